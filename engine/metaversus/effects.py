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

from engine.core.effects import EffectCompiler, EffectFrame, Param, Step

#: what a choice from the hand does with the chosen card
MODE_REMOVE, MODE_DISCARD = 0, 1
MODE_NAMES = ("remove", "discard")
#: where a gained card goes
TO_PLAY, TO_HAND, TO_DISCARD, TO_DECK = 0, 1, 2, 3
DESTINATIONS = ("play", "hand", "discard", "deck")


class Board(Protocol):
    """What a WISH effect may read and change of a match (duelists 0 and 1, card numbers)."""

    def draw(self, p: int, n: int) -> None:
        """p draws n cards (the discard pile is shuffled into a new deck when needed)."""

    def add_ap(self, n: int) -> None:
        """n more AP this turn."""

    def add_gems(self, n: int) -> None:
        """n more Gems this turn."""

    def add_buys(self, n: int) -> None:
        """n more buys this turn."""

    def add_discount(self, n: int) -> None:
        """Market cards cost n less this turn."""

    def add_weapon_bonus(self, n: int) -> None:
        """Weapons played this turn deal n more damage."""

    def add_combat_damage(self, n: int) -> None:
        """n more damage to deal at the end of this turn's Combat Phase."""

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


class Counted(Step[Board]):
    """An operation with an amount n."""

    __slots__ = ("n",)

    def __init__(self, p: dict[str, Any]) -> None:
        self.n: int = p["n"]


@COMPILER.op("draw", n=_N)
class Draw(Counted):
    """Draw n cards."""

    __slots__ = ()

    def run(self, board: Board, frame: EffectFrame) -> bool:
        """Draw."""
        board.draw(frame.controller, self.n)
        return True


@COMPILER.op("ap", n=_N)
class Ap(Counted):
    """n more AP."""

    __slots__ = ()

    def run(self, board: Board, frame: EffectFrame) -> bool:
        """Add the AP."""
        board.add_ap(self.n)
        return True


@COMPILER.op("gems", n=_N)
class Gems(Counted):
    """n more Gems."""

    __slots__ = ()

    def run(self, board: Board, frame: EffectFrame) -> bool:
        """Add the Gems."""
        board.add_gems(self.n)
        return True


@COMPILER.op("buys", n=_N)
class Buys(Counted):
    """n more buys."""

    __slots__ = ()

    def run(self, board: Board, frame: EffectFrame) -> bool:
        """Add the buys."""
        board.add_buys(self.n)
        return True


@COMPILER.op("discount", n=_N)
class Discount(Counted):
    """Market cards cost n less this turn."""

    __slots__ = ()

    def run(self, board: Board, frame: EffectFrame) -> bool:
        """Add the discount."""
        board.add_discount(self.n)
        return True


@COMPILER.op("weapon_bonus", n=_N)
class WeaponBonus(Counted):
    """Weapons deal n more damage this turn."""

    __slots__ = ()

    def run(self, board: Board, frame: EffectFrame) -> bool:
        """Add the bonus."""
        board.add_weapon_bonus(self.n)
        return True


@COMPILER.op("attack", n=_N)
class Attack(Counted):
    """Add to this turn's combat damage (dealt all at once at the end of the Combat Phase)."""

    __slots__ = ()

    def run(self, board: Board, frame: EffectFrame) -> bool:
        """Add the damage."""
        board.add_combat_damage(self.n)
        return True


@COMPILER.op("damage", n=_N)
class Damage(Counted):
    """Deal damage to the opponent at once."""

    __slots__ = ()

    def run(self, board: Board, frame: EffectFrame) -> bool:
        """Deal it."""
        board.lose_hp(1 - frame.controller, self.n)
        return True


@COMPILER.op("lose_hp", n=_N)
class LoseHp(Counted):
    """The controller loses n HP."""

    __slots__ = ()

    def run(self, board: Board, frame: EffectFrame) -> bool:
        """Lose it."""
        board.lose_hp(frame.controller, self.n)
        return True


@COMPILER.op("heal", n=_N)
class Heal(Counted):
    """Recover HP, never above Max HP."""

    __slots__ = ()

    def run(self, board: Board, frame: EffectFrame) -> bool:
        """Heal."""
        board.heal(frame.controller, self.n)
        return True


@COMPILER.op("max_hp", n=_N)
class MaxHp(Counted):
    """The controller's Max HP goes up by n."""

    __slots__ = ()

    def run(self, board: Board, frame: EffectFrame) -> bool:
        """Raise it."""
        board.raise_max_hp(frame.controller, self.n)
        return True


@COMPILER.op("star", n=_N)
class Star(Counted):
    """Gain Wishing Stars; any beyond 3 disappear."""

    __slots__ = ()

    def run(self, board: Board, frame: EffectFrame) -> bool:
        """Gain them."""
        board.gain_stars(frame.controller, self.n)
        return True


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

    def __init__(self, p: dict[str, Any]) -> None:
        pass

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
class GainUpTo(Counted):
    """Gain a Market card costing at most n (to the Play Area); skipped if none qualifies."""

    __slots__ = ()

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
