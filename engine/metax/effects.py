"""MetaX's vocabulary of effect operations, and the protocol through which they act on a match.

Every operation is a `Step` (engine.core.effects) compiled once when the catalogue loads. A step
reads and changes the match only through `Board`, which `MetaXBoard` (state.py) implements; an
operation that needs a player's pick is a `Choice`: it asks with `Board.ask`, and the answer
comes back through `resume`.
"""

from __future__ import annotations

from typing import Any, ClassVar, NamedTuple, Protocol

from engine.core.effects import (
    Continuous,
    EffectCompiler,
    EffectFrame,
    Param,
    Step,
    amount_ops,
    board_call,
    step_of,
)

STATS = ("strength", "intelligence", "special")
KINDS = ("character", "event", "battle")
#: the zones an effect moves cards between (`Board.zone`, `Board.move`)
DECK, HAND, DISCARD = 0, 1, 2


class CardFilter(NamedTuple):
    """Which cards an effect may pick: of a kind (-1: any), with a trait (None: any), and only
    Basic Battle Cards if `basic`."""

    kind: int
    trait: str | None
    basic: bool


class Board(Protocol):
    """What a MetaX effect may read and change of a match (players 0 and 1, instance ids)."""

    def draw(self, p: int, n: int) -> None:
        """p draws n cards (losing at once on an empty deck)."""

    def gain_mp(self, p: int, n: int) -> None:
        """p gains n MP, up to the cap."""

    def lose_mp(self, p: int, n: int) -> None:
        """p loses n MP, down to 0."""

    def mill(self, p: int, n: int) -> None:
        """The top n cards of p's deck go to p's discard pile."""

    def discard_at_random(self, p: int, n: int) -> None:
        """p discards n cards from their hand, picked by the match's PRNG."""

    def slots(self, p: int) -> list[int]:
        """p's three character slots: the instance id of a character in play, or -1 when the
        slot is empty (the list itself: to read, not to change)."""

    def is_pushed(self, iid: int) -> bool:
        """Whether a character in play is pushed."""

    def trait(self, iid: int) -> str | None:
        """The trait printed on a card."""

    def select(self, p: int, zone: int, wanted: CardFilter) -> list[int]:
        """The cards of p's DECK, HAND or DISCARD that `wanted` accepts, in zone order."""

    def holds(self, p: int, zone: int, wanted: CardFilter, iid: int = -1) -> bool:
        """Whether p's zone holds a card `wanted` accepts (`iid`, if given), without listing."""

    def base_stat(self, iid: int, stat: int) -> int:
        """A character's printed rank in a stat (0: no such stat)."""

    def max_rank(self, iid: int) -> int:
        """A character's HP: its highest effective rank plus any HP bonus."""

    def damage_count(self, iid: int) -> int:
        """How many damage cards are attached to a character in play."""

    def in_battle(self, iid: int) -> bool:
        """Whether a character attacks, links or defends in the current battle."""

    def set_pushed(self, iid: int, pushed: bool) -> None:
        """Push (or prep) a character in play."""

    def modify_stat(self, iid: int, stat: int, n: int) -> None:
        """n to a character's stat until end of turn (only a stat it has)."""

    def remove_damage(self, iid: int, n: int) -> None:
        """Remove the n most recently attached damage cards of a character."""

    def ko(self, iid: int) -> None:
        """KO a character in play."""

    def self_character(self, frame: EffectFrame) -> int:
        """The character an effect's "this character" means."""

    def move(self, iid: int, p: int, source: int, dest: int) -> None:
        """Move a card from p's `source` zone to p's `dest` zone (a deck: to the bottom)."""

    def shuffle_deck(self, p: int) -> None:
        """Shuffle p's deck (p loses at once if it is empty)."""

    def ask(self, player: int, optional: bool) -> None:
        """Ask `player` to pick for the running effect (the step resumes with the answer)."""


fx: EffectCompiler[Board] = EffectCompiler("metax")


class Choice(Step[Board]):
    """A step where a player picks one instance id among candidates (or -1 if optional)."""

    __slots__ = ()

    #: whether the player may pass (pick -1)
    optional: ClassVar[bool] = False

    def candidates(self, board: Board, frame: EffectFrame) -> list[int]:
        """The instance ids the player may pick."""
        raise NotImplementedError

    def accepts(self, board: Board, frame: EffectFrame, iid: int) -> bool:
        """Whether `iid` is one of the candidates (cheaper than building the list)."""
        return iid in self.candidates(board, frame)

    def has_candidates(self, board: Board, frame: EffectFrame) -> bool:
        """Whether there is anything to pick."""
        return bool(self.candidates(board, frame))

    def pick(self, board: Board, frame: EffectFrame, iid: int) -> None:
        """Carry out the step with the picked instance."""
        raise NotImplementedError

    def done(self, board: Board, frame: EffectFrame) -> None:
        """Called once after the pick (or the pass)."""

    def prompt(self) -> str:
        """A short description for labels."""
        return self.op

    def run(self, board: Board, frame: EffectFrame) -> bool:
        """Ask the controller for a pick if there is anything to pick; otherwise do nothing."""
        if not self.has_candidates(board, frame):
            self.done(board, frame)
            return True
        board.ask(frame.controller, self.optional)
        return False

    def resume(self, board: Board, frame: EffectFrame, choice: int) -> bool:
        """Apply the pick (-1: pass)."""
        if choice != -1:
            self.pick(board, frame, choice)
        self.done(board, frame)
        return True


# --- plain operations -------------------------------------------------------------------


#: operations with an amount n that make one board call: name -> (the `Board` method, whom it
#: names, n)
amount_ops(
    fx,
    {
        "draw": ("draw", "self", Param("int", min=1, max=5)),
        "gain_mp": ("gain_mp", "self", Param("int", min=1, max=10)),
        # the top n cards of the opponent's deck go to their discard pile
        "mill": ("mill", "opponent", Param("int", min=1, max=3)),
        "opponent_discards_random": (
            "discard_at_random",
            "opponent",
            Param("int", 1, min=1, max=3),
        ),
    },
)


@fx.op("lose_mp", n=Param("int", min=1, max=10), who=Param("str", "opponent", ("self", "opponent")))
def _lose_mp(p: dict[str, Any]) -> Step[Board]:
    """A player (the opponent by default) loses n MP."""
    return board_call("lose_mp", p["who"], p["n"])


@fx.op("gain_mp_per_trait", trait=Param("str"), n=Param("int", 1, min=1, max=5))
class GainMpPerTrait(Step[Board]):
    """The controller gains n MP per character in play with the trait."""

    __slots__ = ("n", "trait")

    def __init__(self, p: dict[str, Any]) -> None:
        self.trait: str = p["trait"]
        self.n: int = p["n"]

    def run(self, board: Board, frame: EffectFrame) -> bool:
        """Count the characters and gain the MP."""
        me = frame.controller
        count = sum(1 for c in board.slots(me) if c >= 0 and board.trait(c) == self.trait)
        if count:
            board.gain_mp(me, self.n * count)
        return True


class OnSelf(Step[Board]):
    """One board call on "this character": `board.<method>(character, *args)`."""

    __slots__ = ("args", "method")

    def __init__(self, method: str, *args: int) -> None:
        self.method = method
        self.args = args

    def run(self, board: Board, frame: EffectFrame) -> bool:
        """Make the call."""
        getattr(board, self.method)(board.self_character(frame), *self.args)
        return True


class CharacterChoice(Choice):
    """The controller picks a character in play, of theirs or (`opposing`) of the opponent's,
    that `fits`."""

    __slots__ = ()

    #: whether the pick is among the opponent's characters
    opposing: ClassVar[bool] = False

    def fits(self, board: Board, iid: int) -> bool:
        """Whether a character in play may be picked."""
        raise NotImplementedError

    def candidates(self, board: Board, frame: EffectFrame) -> list[int]:
        """The characters in play of the side that fit."""
        slots = board.slots(frame.controller ^ self.opposing)
        return [c for c in slots if c >= 0 and self.fits(board, c)]


class ModifyChosen(CharacterChoice):
    """n to a stat of a character the controller picks, until end of turn."""

    __slots__ = ("n", "stat")

    def __init__(self, stat: int, n: int) -> None:
        self.stat = stat
        self.n = n

    def fits(self, board: Board, iid: int) -> bool:
        """The controller's characters that have the stat."""
        return board.base_stat(iid, self.stat) > 0

    def pick(self, board: Board, frame: EffectFrame, iid: int) -> None:
        """Modify the stat."""
        board.modify_stat(iid, self.stat, self.n)

    def prompt(self) -> str:
        """What the player picks."""
        return f"give {self.n:+d} {STATS[self.stat]} until end of turn to"


@fx.op(
    "modify_stat",
    stat=Param("str", choices=STATS),
    n=Param("int", min=-5, max=5),
    target=Param("str", "self", ("self", "choose")),
)
def _modify_stat(p: dict[str, Any]) -> Step[Board]:
    """n to a stat of "this character" (or of one the controller picks) until end of turn."""
    stat = STATS.index(p["stat"])
    if p["target"] == "choose":
        return ModifyChosen(stat, p["n"])
    return OnSelf("modify_stat", stat, p["n"])


class RemoveDamageChosen(CharacterChoice):
    """Remove n damage cards from a character the controller picks."""

    __slots__ = ("n",)

    def __init__(self, n: int) -> None:
        self.n = n

    def fits(self, board: Board, iid: int) -> bool:
        """The controller's damaged characters."""
        return board.damage_count(iid) > 0

    def pick(self, board: Board, frame: EffectFrame, iid: int) -> None:
        """Remove the damage."""
        board.remove_damage(iid, self.n)

    def prompt(self) -> str:
        """What the player picks."""
        return f"remove {self.n} damage from"


@fx.op(
    "remove_damage",
    n=Param("int", 1, min=1, max=3),
    target=Param("str", "self", ("self", "choose")),
)
def _remove_damage(p: dict[str, Any]) -> Step[Board]:
    """Remove n damage cards from "this character" (or from one the controller picks)."""
    if p["target"] == "choose":
        return RemoveDamageChosen(p["n"])
    return OnSelf("remove_damage", p["n"])


# --- choices over characters ------------------------------------------------------------


@fx.op("ko_character", max_rank=Param("int", 10, min=1, max=10))
class KoCharacter(CharacterChoice):
    """KO an opposing character of at most the given maximum rank."""

    __slots__ = ("max_rank",)
    opposing = True

    def __init__(self, p: dict[str, Any]) -> None:
        self.max_rank: int = p["max_rank"]

    def fits(self, board: Board, iid: int) -> bool:
        """The opposing characters of low enough maximum rank."""
        return board.max_rank(iid) <= self.max_rank

    def pick(self, board: Board, frame: EffectFrame, iid: int) -> None:
        """KO it."""
        board.ko(iid)

    def prompt(self) -> str:
        """What the player picks."""
        return f"KO an opposing character of maximum rank {self.max_rank} or less:"


class SetPushed(CharacterChoice):
    """Push (or prep) a character the controller picks; the subclass says whose and which."""

    __slots__ = ()

    #: what the pick becomes: pushed (True) or prepped
    push: ClassVar[bool]

    def pick(self, board: Board, frame: EffectFrame, iid: int) -> None:
        """Push or prep it."""
        board.set_pushed(iid, self.push)


@fx.op("push_character")
class PushCharacter(SetPushed):
    """Push an opposing prepped character."""

    __slots__ = ()
    opposing, push = True, True

    def fits(self, board: Board, iid: int) -> bool:
        """The opponent's prepped characters."""
        return not board.is_pushed(iid)

    def prompt(self) -> str:
        """What the player picks."""
        return "push an opposing prepped character:"


@fx.op("prep_character")
class PrepCharacter(SetPushed):
    """Prep a pushed character of the controller's that is not in the battle."""

    __slots__ = ()
    push = False

    def fits(self, board: Board, iid: int) -> bool:
        """The controller's pushed characters outside the battle."""
        return board.is_pushed(iid) and not board.in_battle(iid)

    def prompt(self) -> str:
        """What the player picks."""
        return "prep a pushed character you control:"


# --- choices over cards in zones --------------------------------------------------------

_FILTER = {
    "kind": Param("str", None, KINDS),
    "trait": Param("str", None),
    "basic": Param("bool", False),
}


class MoveChoice(Choice):
    """The controller picks a card of one of their zones (matching a filter) to move to another;
    a search of the deck ends with a shuffle."""

    __slots__ = ("dest", "source", "template", "wanted")

    optional = True

    def __init__(self, source: int, dest: int, template: str, p: dict[str, Any]) -> None:
        #: the zone the card is picked from, and where it goes
        self.source = source
        self.dest = dest
        #: the prompt, with {} for the filter in words
        self.template = template
        kind = KINDS.index(p["kind"]) if p["kind"] is not None else -1
        self.wanted = CardFilter(kind, p["trait"], p["basic"])

    def candidates(self, board: Board, frame: EffectFrame) -> list[int]:
        """The matching cards of the zone, by instance id."""
        return sorted(board.select(frame.controller, self.source, self.wanted))

    def has_candidates(self, board: Board, frame: EffectFrame) -> bool:
        """Whether the zone holds a matching card."""
        return board.holds(frame.controller, self.source, self.wanted)

    def accepts(self, board: Board, frame: EffectFrame, iid: int) -> bool:
        """Whether `iid` is a matching card of the zone."""
        return board.holds(frame.controller, self.source, self.wanted, iid)

    def pick(self, board: Board, frame: EffectFrame, iid: int) -> None:
        """Move the card."""
        board.move(iid, frame.controller, self.source, self.dest)

    def done(self, board: Board, frame: EffectFrame) -> None:
        """Shuffle the deck after searching it."""
        if self.source == DECK:
            board.shuffle_deck(frame.controller)

    def what(self) -> str:
        """The filter in words."""
        w = self.wanted
        kind = KINDS[w.kind] if w.kind >= 0 else None
        parts = [p for p in ("Basic" if w.basic else None, w.trait, kind) if p]
        return " ".join(parts) or "card"

    def prompt(self) -> str:
        """What the player picks."""
        return self.template.format(self.what())


#: the moves of a card the controller may pick (or pass): name -> (from, to, the prompt)
_MOVES = {
    "search_deck": (DECK, HAND, "search your deck for a {} (then shuffle):"),
    "recover_from_discard": (DISCARD, HAND, "return a {} from your discard pile to your hand:"),
    "return_to_deck": (
        DISCARD,
        DECK,
        "put a {} from your discard pile on the bottom of your deck:",
    ),
}
for _name, (_source, _dest, _template) in _MOVES.items():
    fx.op(_name, **_FILTER)(step_of(MoveChoice, _source, _dest, _template))


@fx.op("discard_from_hand")
class DiscardFromHand(MoveChoice):
    """Discard a card from your hand (you must)."""

    __slots__ = ()
    optional = False

    def __init__(self, p: dict[str, Any]) -> None:
        super().__init__(
            HAND,
            DISCARD,
            "discard a {} from your hand:",
            {"kind": None, "trait": None, "basic": False},
        )


# --- continuous abilities ---------------------------------------------------------------

fx.op(
    "stat_bonus",
    stat=Param("str", choices=STATS),
    n=Param("int", 1, min=1, max=3),
    trait=Param("str", None),
    others=Param("bool", True),
)(Continuous)
fx.op("tko_resist", n=Param("int", 1, min=1, max=2))(Continuous)
fx.op("hp_bonus", n=Param("int", 1, min=1, max=3))(Continuous)


# --- named Python effects ---------------------------------------------------------------


@fx.named("evil_parade", min_damage=Param("int", 2, min=1, max=5))
class EvilParade(Step[Board]):
    """KO every opposing character with at least `min_damage` damage cards attached."""

    __slots__ = ("need",)

    def __init__(self, p: dict[str, Any]) -> None:
        self.need: int = p["min_damage"]

    def run(self, board: Board, frame: EffectFrame) -> bool:
        """KO them."""
        for c in board.slots(1 - frame.controller)[:]:  # a KO empties its slot
            if c >= 0 and board.damage_count(c) >= self.need:
                board.ko(c)
        return True
