"""MetaMasters' vocabulary of effect operations, and the protocol through which they act on a match.

A card's `effect` is a list of steps, each a `Step` (engine.core.effects) compiled once when the
catalogue loads. A step aimed with `"to"` acts on the chosen target ("target": picked when the
effect starts, see the card's `target` field), on the card itself ("self") or on the Actor a
Link is attached to ("host"); an aim with no card does nothing. `link_stat` and `aura` are
continuous: they are read while the card is on the field (a Link's bonus to its Actor, a
face-up ∞ card's aura) and do nothing when the effect runs.

A step reads and changes the match only through `Board`, which `MetaMastersBoard` (state.py)
implements.
"""

from __future__ import annotations

from typing import Any, Protocol

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

TRAITS = ("meme", "crypto", "legend", "bot")
#: what `recover` may bring back ("any" = any card but a Token); the index is the card kind
RECOVER_KINDS = ("any", "actor", "link", "special")


class Board(Protocol):
    """What a MetaMasters effect may read and change of a match (players 0 and 1, instance ids)."""

    @property
    def is_over(self) -> bool:
        """Whether the match has ended."""

    def draw_card(self, p: int) -> bool:
        """Move the top card of p's deck to p's hand; False if the deck is empty."""

    def mill(self, p: int, n: int) -> None:
        """Send the top n cards of p's deck to p's Trash."""

    def search_deck(self, p: int, trait: str) -> None:
        """Move the first card with `trait` (from the top) of p's deck to hand, then shuffle."""

    def recover_from_trash(self, p: int, kind: int) -> None:
        """Move the last card of `kind` (0 = any but a Token) sent to p's Trash to p's hand."""

    def discard_random(self, p: int, n: int) -> None:
        """p discards n cards chosen by the match's PRNG."""

    def grant_extra_plays(self, n: int) -> None:
        """The active player may play n more Actors from hand this turn."""

    def host_of(self, iid: int) -> int:
        """The Actor a Link on the field is attached to (-1: none)."""

    def is_actor_on_field(self, iid: int) -> bool:
        """Whether an instance is an Actor on the field."""

    def is_special_on_field(self, iid: int) -> bool:
        """Whether an instance is a Special card on the field."""

    def grant_extra_attacks(self, iid: int, n: int) -> None:
        """An Actor on the field may attack n more times this turn."""

    def modify_stat(self, iid: int, intel: bool, n: int) -> None:
        """n to an Actor's EGO (INT if `intel`) until end of turn."""

    def switch_position(self, iid: int) -> None:
        """Switch the battle position of a face-up Actor (a face-down one stays as it is)."""

    def destroy_actor(self, iid: int) -> None:
        """An Actor leaves the field for its owner's Trash (its Links too)."""

    def exile_actor(self, iid: int) -> None:
        """An Actor leaves the field for its owner's Exile (its Links go to the Trash)."""

    def bounce_actor(self, iid: int) -> None:
        """An Actor leaves the field for its owner's hand (its Links go to the Trash)."""

    def remove_special(self, iid: int) -> None:
        """A Special card leaves the field for its owner's Trash."""

    def restore_token(self, p: int) -> None:
        """Return the last Token card sent to p's Trash to p's Tokens."""

    def destroy_token(self, p: int) -> None:
        """Destroy one of p's Token cards; p loses when the last one goes."""

    def negate_attack(self) -> None:
        """Negate the attack being declared, if there is one."""


fx: EffectCompiler[Board] = EffectCompiler("metamasters")

_AIM = Param("str", choices=("target", "self", "host"))
_N = Param("int", default=1, min=1, max=5)


def _aimed(board: Board, frame: EffectFrame, to: str) -> int:
    if to == "target":
        return frame.target
    if to == "self":
        return frame.source
    return board.host_of(frame.source) if frame.source >= 0 else -1


class Repeat(Step[Board]):
    """An operation done n times: `board.<method>(player)` each time, for the controller."""

    __slots__ = ("method", "n")

    def __init__(self, method: str, p: dict[str, Any]) -> None:
        self.method = method
        self.n: int = p["n"]

    def run(self, board: Board, frame: EffectFrame) -> bool:
        """Make the calls."""
        act = getattr(board, self.method)
        for _ in range(self.n):
            act(frame.controller)
        return True


# the controller draws n cards (fewer from a short deck)
fx.op("draw", n=_N)(step_of(Repeat, "draw_card"))
# the controller gets back up to n Token cards from their Trash
fx.op("restore_token", n=_N)(step_of(Repeat, "restore_token"))
#: operations with an amount n that make one board call: name -> (the `Board` method, whom it
#: names, n)
amount_ops(
    fx,
    {
        # the top n cards of the opponent's deck go to their Trash
        "mill": ("mill", "opponent", _N),
        # the opponent discards n cards at random
        "discard_random": ("discard_random", "opponent", _N),
        # the active player may play n more Actors this turn
        "extra_play": ("grant_extra_plays", None, _N),
    },
)


@fx.op("search", trait=Param("str", choices=TRAITS))
def _search(p: dict[str, Any]) -> Step[Board]:
    """The controller takes the first card with the trait from their deck, then shuffles."""
    return board_call("search_deck", "self", p["trait"])


@fx.op("recover", kind=Param("str", default="any", choices=RECOVER_KINDS))
def _recover(p: dict[str, Any]) -> Step[Board]:
    """The controller takes back the last card of a kind sent to their Trash."""
    return board_call("recover_from_trash", "self", RECOVER_KINDS.index(p["kind"]))


class Aimed(Step[Board]):
    """An operation on the card it is aimed at, if `board.<check>(iid)` holds for it (nothing
    otherwise): `board.<method>(iid)`, unless a subclass acts otherwise."""

    __slots__ = ("check", "method", "to")

    def __init__(self, method: str, check: str, p: dict[str, Any]) -> None:
        self.to: str = p["to"]
        self.method = method
        self.check = check

    def act(self, board: Board, iid: int) -> None:
        """The operation on the card."""
        getattr(board, self.method)(iid)

    def run(self, board: Board, frame: EffectFrame) -> bool:
        """Find the card and act on it."""
        iid = _aimed(board, frame, self.to)
        if iid >= 0 and getattr(board, self.check)(iid):
            self.act(board, iid)
        return True


@fx.op("extra_attack", to=_AIM, n=_N)
class ExtraAttack(Aimed):
    """The Actor may attack n more times this turn."""

    __slots__ = ("n",)

    def __init__(self, p: dict[str, Any]) -> None:
        super().__init__("", "is_actor_on_field", p)
        self.n: int = p["n"]

    def act(self, board: Board, iid: int) -> None:
        """Grant the attacks."""
        board.grant_extra_attacks(iid, self.n)


@fx.op(
    "modify_stat", to=_AIM, stat=Param("str", choices=("ego", "int")), n=Param("int", min=-9, max=9)
)
class ModifyStat(Aimed):
    """n to the Actor's EGO or INT until end of turn."""

    __slots__ = ("intel", "n")

    def __init__(self, p: dict[str, Any]) -> None:
        super().__init__("", "is_actor_on_field", p)
        self.n: int = p["n"]
        self.intel = p["stat"] == "int"

    def act(self, board: Board, iid: int) -> None:
        """Modify the stat."""
        board.modify_stat(iid, self.intel, self.n)


#: operations on the card aimed at that make one board call: name -> (the `Board` method, what
#: the card must be); an aim at anything else does nothing
_AIMED = {
    # switch the face-up Actor's battle position
    "switch_position": ("switch_position", "is_actor_on_field"),
    # destroy the Actor (to its owner's Trash)
    "destroy": ("destroy_actor", "is_actor_on_field"),
    "exile": ("exile_actor", "is_actor_on_field"),
    # return the Actor to its owner's hand
    "bounce": ("bounce_actor", "is_actor_on_field"),
    # destroy the Special card (to its owner's Trash)
    "destroy_special": ("remove_special", "is_special_on_field"),
}
for _name, (_method, _check) in _AIMED.items():
    fx.op(_name, to=_AIM)(step_of(Aimed, _method, _check))


@fx.op("destroy_token", n=_N)
class DestroyToken(Step[Board]):
    """Destroy n of the opponent's Token cards (the match may end)."""

    __slots__ = ("n",)

    def __init__(self, p: dict[str, Any]) -> None:
        self.n: int = p["n"]

    def run(self, board: Board, frame: EffectFrame) -> bool:
        """Destroy them."""
        for _ in range(self.n):
            if not board.is_over:
                board.destroy_token(1 - frame.controller)
        return True


@fx.op("negate_attack")
class NegateAttack(Step[Board]):
    """Negate the attack being declared."""

    __slots__ = ()

    def run(self, board: Board, frame: EffectFrame) -> bool:
        """Negate it."""
        board.negate_attack()
        return True


fx.op(
    "link_stat",
    ego=Param("int", default=0, min=-9, max=9),
    int=Param("int", default=0, min=-9, max=9),
)(Continuous)
fx.op(
    "aura",
    stat=Param("str", choices=("ego", "int")),
    n=Param("int", min=-9, max=9),
    side=Param("str", choices=("own", "opp")),
)(Continuous)
