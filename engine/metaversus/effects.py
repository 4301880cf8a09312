"""MetaVersus WISH's vocabulary of effect operations, and the protocol through which they act.

Each operation is declared in the catalogue as `{"op": name, ...params}` and compiled once, as a
`Step` (engine.core.effects), when the catalogue loads. The subject is the frame's controller
(the duelist who cast the effect) unless the operation names the opponent. Operations that need
a choice ask through the board and resume when it is answered.

A card's text below its dividing line is compiled after a `below_line` step, which skips the
rest of the effect when its condition does not hold.

A step reads and changes the match only through `Board`, which `WishBoard` (state.py)
implements.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar, Protocol

from engine.core.effects import (
    EffectCompiler,
    EffectFrame,
    Param,
    Step,
    amount_ops,
    step_of,
)

#: what a choice from the hand does with the chosen card
MODE_REMOVE, MODE_DISCARD = 0, 1
MODE_NAMES = ("remove", "discard")
#: where a gained card goes
TO_PLAY, TO_HAND, TO_DISCARD, TO_DECK = 0, 1, 2, 3
DESTINATIONS = ("play", "hand", "discard", "deck")
#: the counters of the turn an effect raises (`Board.add_this_turn`): AP, Gems, buys, how much
#: less Market cards cost, how much more weapons deal, and the damage to deal at the end of the
#: Combat Phase (all at once)
AP, GEMS, BUYS, DISCOUNT, WEAPON_BONUS, COMBAT_DAMAGE = range(6)
#: each counter's operation
TURN_COUNTERS = {
    "ap": AP,
    "gems": GEMS,
    "buys": BUYS,
    "discount": DISCOUNT,
    "weapon_bonus": WEAPON_BONUS,
    "attack": COMBAT_DAMAGE,
}


class Board(Protocol):
    """What a WISH effect may read and change of a match (duelists 0 and 1, card numbers)."""

    def draw(self, p: int, n: int) -> None:
        """p draws n cards (the discard pile is shuffled into a new deck when needed)."""

    def add_this_turn(self, counter: int, n: int) -> None:
        """n more of one of this turn's counters (`TURN_COUNTERS`)."""

    def lose_hp(self, p: int, n: int) -> None:
        """p loses n HP (it may go below 0)."""

    def heal(self, p: int, n: int) -> None:
        """p recovers n HP, never above Max HP."""

    def raise_max_hp(self, p: int, n: int) -> None:
        """p's Max HP goes up by n."""

    def gain_stars(self, p: int, n: int) -> None:
        """p gains n Wishing Stars (any beyond the maximum disappear)."""

    def gain_card(self, p: int, card_id: str, dest: int) -> None:
        """p gains a card of the named type from the Market to `dest` (nothing if sold out)."""

    def end_match(self, winner: int) -> None:
        """The match ends now with a winner."""

    def hp_of(self, p: int) -> int:
        """p's HP."""

    def stars_of(self, p: int) -> int:
        """p's Wishing Stars."""

    def hand_size(self, p: int) -> int:
        """How many cards p holds."""

    def cards_played(self) -> int:
        """Cards the active duelist played this turn."""

    def weapons_played(self) -> int:
        """Weapon cards the active duelist played this turn."""

    def ask_for_card(self, p: int, mode: int, may: bool) -> None:
        """Ask p to choose a card of their hand to remove (MODE_REMOVE) or discard (the running
        effect resumes with the answer, -1 if `may` and declined)."""

    def take_from_hand(self, p: int, card: int, mode: int) -> None:
        """Move a card of p's hand to their Removed Card Pile (MODE_REMOVE) or discard pile."""

    def gainable(self, max_cost: int) -> bool:
        """Whether some Market card in stock costs at most max_cost."""

    def ask_to_gain(self, p: int, max_cost: int) -> None:
        """Ask p to choose a Market slot costing at most max_cost (the effect resumes with it)."""

    def take_from_market(self, p: int, slot: int, dest: int) -> None:
        """p gains the card of a Market slot to `dest`."""


COMPILER: EffectCompiler[Board] = EffectCompiler("metaversus")
_N = Param("int", min=1)
#: frame.step value that ends an effect
_STOP = 1 << 30
#: operations whose step may ask for a choice
SUSPENDING_OPS = frozenset({"remove_hand", "opp_discard", "gain_upto"})


class TurnCounter(Step[Board]):
    """n more of one of the turn's counters."""

    __slots__ = ("counter", "n")

    def __init__(self, counter: int, p: dict[str, Any]) -> None:
        self.counter = counter
        self.n: int = p["n"]

    def run(self, board: Board, frame: EffectFrame) -> bool:
        """Raise the counter."""
        board.add_this_turn(self.counter, self.n)
        return True


for _name, _counter in TURN_COUNTERS.items():
    COMPILER.op(_name, n=_N)(step_of(TurnCounter, _counter))


#: operations with an amount n that make one board call: name -> (the `Board` method, whom it
#: names, n); e.g. `{"op": "damage", "n": 2}` deals 2 damage to the opponent at once
amount_ops(
    COMPILER,
    {
        "draw": ("draw", "self", _N),
        "damage": ("lose_hp", "opponent", _N),
        "lose_hp": ("lose_hp", "self", _N),
        "heal": ("heal", "self", _N),
        "max_hp": ("raise_max_hp", "self", _N),
        # any Wishing Stars beyond 3 disappear
        "star": ("gain_stars", "self", _N),
    },
)


@COMPILER.op("gain", card=Param("str"), to=Param("str", default="play", choices=DESTINATIONS))
class Gain(Step[Board]):
    """Gain a card of the named type from the Market (nothing if it is not in stock)."""

    __slots__ = ("card", "dest")

    def __init__(self, p: dict[str, Any]) -> None:
        self.card: str = p["card"]
        self.dest = DESTINATIONS.index(p["to"])

    def run(self, board: Board, frame: EffectFrame) -> bool:
        """Gain it."""
        board.gain_card(frame.controller, self.card, self.dest)
        return True


class EndMatch(Step[Board]):
    """The controller wins (or, for `lose`, loses) the match at once."""

    __slots__ = ()

    #: whether the controller loses rather than wins
    lose: ClassVar[bool]

    def run(self, board: Board, frame: EffectFrame) -> bool:
        """End the match."""
        board.end_match(1 - frame.controller if self.lose else frame.controller)
        frame.step = _STOP
        return True


@COMPILER.op("win")
class Win(EndMatch):
    """The controller wins the match at once."""

    __slots__ = ()
    lose = False


@COMPILER.op("lose")
class Lose(EndMatch):
    """The controller loses the match at once."""

    __slots__ = ()
    lose = True


#: a below-the-line condition: (board, controller, n) -> whether it holds
Condition = Callable[[Board, int, int], bool]
CONDITIONS: dict[str, Condition] = {
    "always": lambda b, p, n: True,
    "hp_at_most": lambda b, p, n: b.hp_of(p) <= n,
    "opp_hp_at_most": lambda b, p, n: b.hp_of(1 - p) <= n,
    "played_at_least": lambda b, p, n: b.cards_played() >= n,
    "weapons_played_at_least": lambda b, p, n: b.weapons_played() >= n,
    "stars_at_least": lambda b, p, n: b.stars_of(p) >= n,
    "hand_at_most": lambda b, p, n: b.hand_size(p) <= n,
}


@COMPILER.op(
    "below_line", n=Param("int", default=0), **{"if": Param("str", choices=tuple(CONDITIONS))}
)
class BelowLine(Step[Board]):
    """The dividing line: the rest of the effect is cast only when the condition holds."""

    __slots__ = ("cond", "n")

    def __init__(self, p: dict[str, Any]) -> None:
        self.cond = CONDITIONS[p["if"]]
        self.n: int = p["n"]

    def run(self, board: Board, frame: EffectFrame) -> bool:
        """Stop the effect here unless the condition holds."""
        if not self.cond(board, frame.controller, self.n):
            frame.step = _STOP
        return True


class ChooseFromHand(Step[Board]):
    """Remove (or make the opponent discard) up to n cards, one choice per card."""

    __slots__ = ("may", "mode", "n")

    def __init__(self, n: int, mode: int, may: bool) -> None:
        self.n = n
        self.mode = mode
        self.may = may

    def _chooser(self, frame: EffectFrame) -> int:
        return 1 - frame.controller if self.mode == MODE_DISCARD else frame.controller

    def run(self, board: Board, frame: EffectFrame) -> bool:
        """Ask for the first card, if the chooser has any."""
        p = self._chooser(frame)
        if not board.hand_size(p):
            return True
        frame.value = self.n
        board.ask_for_card(p, self.mode, self.may)
        return False

    def resume(self, board: Board, frame: EffectFrame, choice: int) -> bool:
        """Take the chosen card; ask for the next while some are left to choose."""
        if choice < 0:
            return True
        p = self._chooser(frame)
        board.take_from_hand(p, choice, self.mode)
        frame.value -= 1
        if frame.value > 0 and board.hand_size(p):
            board.ask_for_card(p, self.mode, self.may)
            return False
        return True


@COMPILER.op("remove_hand", n=_N, may=Param("bool", default=False))
def _remove_hand(p: dict[str, Any]) -> Step[Board]:
    """Remove cards from your hand to your Removed Card Pile."""
    return ChooseFromHand(p["n"], MODE_REMOVE, p["may"])


@COMPILER.op("opp_discard", n=_N)
def _opp_discard(p: dict[str, Any]) -> Step[Board]:
    """The opponent discards cards of their choice from their hand."""
    return ChooseFromHand(p["n"], MODE_DISCARD, False)


@COMPILER.op("gain_upto", n=_N)
class GainUpTo(Step[Board]):
    """Gain a Market card costing at most n (to the Play Area); skipped if none qualifies."""

    __slots__ = ("n",)

    def __init__(self, p: dict[str, Any]) -> None:
        self.n: int = p["n"]

    def run(self, board: Board, frame: EffectFrame) -> bool:
        """Ask for a slot, if one qualifies."""
        if not board.gainable(self.n):
            return True
        board.ask_to_gain(frame.controller, self.n)
        return False

    def resume(self, board: Board, frame: EffectFrame, choice: int) -> bool:
        """Gain the chosen card."""
        board.take_from_market(frame.controller, choice, TO_PLAY)
        return True
