"""The MetaVersus WISH effect vocabulary, registered on the core's EffectCompiler.

Each operation is declared in the catalogue as `{"op": name, ...params}` and compiled once
when the catalogue loads. The subject is the frame's controller (the duelist who cast the
effect) unless the operation names the opponent. Operations that need a choice push a
prompt on the state's stack and resume when it is answered.

A card's text below its dividing line is compiled after a `below_line` step, which skips
the rest of the effect when its condition does not hold.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from engine.core.effects import EffectCompiler, EffectFrame, Param, Step
from engine.metaversus.constants import (
    DESTINATIONS,
    MAX_STARS,
    MODE_DISCARD,
    MODE_REMOVE,
    P_GAIN,
    P_HAND,
)

if TYPE_CHECKING:
    from engine.metaversus.state import WishState

COMPILER: EffectCompiler[WishState] = EffectCompiler("metaversus")
_N = Param("int", min=1)
#: frame.step value that ends an effect
_STOP = 1 << 30
#: operations whose step may push a prompt (an effect using one runs on the stack)
SUSPENDING_OPS = frozenset({"remove_hand", "opp_discard", "gain_upto"})

Run = Callable[["WishState", EffectFrame], None]


@COMPILER.op("draw", n=_N)
def _draw(a: dict[str, Any]) -> Run:
    n = a["n"]

    def run(s: WishState, f: EffectFrame) -> None:
        s.draw(f.controller, n)

    return run


@COMPILER.op("ap", n=_N)
def _ap(a: dict[str, Any]) -> Run:
    n = a["n"]

    def run(s: WishState, f: EffectFrame) -> None:
        s.ap += n

    return run


@COMPILER.op("gems", n=_N)
def _gems(a: dict[str, Any]) -> Run:
    n = a["n"]

    def run(s: WishState, f: EffectFrame) -> None:
        s.gems += n

    return run


@COMPILER.op("buys", n=_N)
def _buys(a: dict[str, Any]) -> Run:
    n = a["n"]

    def run(s: WishState, f: EffectFrame) -> None:
        s.buys += n

    return run


@COMPILER.op("discount", n=_N)
def _discount(a: dict[str, Any]) -> Run:
    n = a["n"]

    def run(s: WishState, f: EffectFrame) -> None:
        s.discount += n

    return run


@COMPILER.op("weapon_bonus", n=_N)
def _weapon_bonus(a: dict[str, Any]) -> Run:
    n = a["n"]

    def run(s: WishState, f: EffectFrame) -> None:
        s.wbonus += n

    return run


@COMPILER.op("attack", n=_N)
def _attack(a: dict[str, Any]) -> Run:
    """Add to this turn's combat damage (dealt all at once at the end of the Combat Phase)."""
    n = a["n"]

    def run(s: WishState, f: EffectFrame) -> None:
        s.pool += n

    return run


@COMPILER.op("damage", n=_N)
def _damage(a: dict[str, Any]) -> Run:
    """Deal damage to the opponent at once."""
    n = a["n"]

    def run(s: WishState, f: EffectFrame) -> None:
        s.lose_hp(1 - f.controller, n)

    return run


@COMPILER.op("lose_hp", n=_N)
def _lose_hp(a: dict[str, Any]) -> Run:
    n = a["n"]

    def run(s: WishState, f: EffectFrame) -> None:
        s.lose_hp(f.controller, n)

    return run


@COMPILER.op("heal", n=_N)
def _heal(a: dict[str, Any]) -> Run:
    """Recover HP, never above Max HP."""
    n = a["n"]

    def run(s: WishState, f: EffectFrame) -> None:
        p = f.controller
        s.hp[p] = min(s.maxhp[p], s.hp[p] + n)

    return run


@COMPILER.op("max_hp", n=_N)
def _max_hp(a: dict[str, Any]) -> Run:
    n = a["n"]

    def run(s: WishState, f: EffectFrame) -> None:
        s.maxhp[f.controller] += n

    return run


@COMPILER.op("star", n=_N)
def _star(a: dict[str, Any]) -> Run:
    """Gain Wishing Stars; any beyond 3 disappear."""
    n = a["n"]

    def run(s: WishState, f: EffectFrame) -> None:
        p = f.controller
        s.stars[p] = min(MAX_STARS, s.stars[p] + n)

    return run


@COMPILER.op("gain", card=Param("str"), to=Param("str", default="play", choices=DESTINATIONS))
def _gain(a: dict[str, Any]) -> Run:
    """Gain a card of the named type from the Market (nothing if it is not in stock)."""
    card_id: str = a["card"]
    dest = DESTINATIONS.index(a["to"])
    resolved: list[int] = []

    def run(s: WishState, f: EffectFrame) -> None:
        if not resolved:
            from engine.metaversus.cards import INDEX

            resolved.append(INDEX[card_id])
        card = resolved[0]
        slot = s.slot_of(card)
        if slot >= 0:
            s.take_from_market(f.controller, slot, dest)

    return run


@COMPILER.op("win")
def _win(a: dict[str, Any]) -> Step[WishState]:
    return _Win(lose=False)


class _Win(Step["WishState"]):
    """The controller wins (or, for `lose`, loses) the match at once."""

    __slots__ = ("lose",)

    def __init__(self, lose: bool) -> None:
        super().__init__("lose" if lose else "win")
        self.lose = lose

    def run(self, state: WishState, frame: EffectFrame) -> bool:
        state.end_match(1 - frame.controller if self.lose else frame.controller)
        frame.step = _STOP
        return True


@COMPILER.op("lose")
def _lose(a: dict[str, Any]) -> Step[WishState]:
    return _Win(lose=True)


class _BelowLine(Step["WishState"]):
    """The dividing line: the rest of the effect is cast only when the condition holds."""

    __slots__ = ("cond", "n")

    def __init__(self, cond: Callable[[WishState, int, int], bool], n: int) -> None:
        super().__init__("below_line")
        self.cond = cond
        self.n = n

    def run(self, state: WishState, frame: EffectFrame) -> bool:
        if not self.cond(state, frame.controller, self.n):
            frame.step = _STOP
        return True


CONDITIONS: dict[str, Callable[[WishState, int, int], bool]] = {
    "always": lambda s, p, n: True,
    "hp_at_most": lambda s, p, n: s.hp[p] <= n,
    "opp_hp_at_most": lambda s, p, n: s.hp[1 - p] <= n,
    "played_at_least": lambda s, p, n: s.played >= n,
    "weapons_played_at_least": lambda s, p, n: s.wplayed >= n,
    "stars_at_least": lambda s, p, n: s.stars[p] >= n,
    "hand_at_most": lambda s, p, n: len(s.hand[p]) <= n,
}


@COMPILER.op(
    "below_line", n=Param("int", default=0), **{"if": Param("str", choices=tuple(CONDITIONS))}
)
def _below_line(a: dict[str, Any]) -> Step[WishState]:
    return _BelowLine(CONDITIONS[a["if"]], a["n"])


class _ChooseFromHand(Step["WishState"]):
    """Remove (or make the opponent discard) up to n cards, one prompt per card."""

    __slots__ = ("may", "mode", "n")

    def __init__(self, op: str, n: int, mode: int, may: bool) -> None:
        super().__init__(op)
        self.n = n
        self.mode = mode
        self.may = may

    def _chooser(self, frame: EffectFrame) -> int:
        return 1 - frame.controller if self.mode == MODE_DISCARD else frame.controller

    def run(self, state: WishState, frame: EffectFrame) -> bool:
        p = self._chooser(frame)
        if not state.hand[p]:
            return True
        frame.value = self.n
        state.stack.append([P_HAND, p, self.mode, int(self.may)])
        return False

    def resume(self, state: WishState, frame: EffectFrame, choice: int) -> bool:
        if choice < 0:
            return True
        p = self._chooser(frame)
        hand = state.hand[p]
        hand.remove(choice)
        (state.removed if self.mode == MODE_REMOVE else state.disc)[p].append(choice)
        frame.value -= 1
        if frame.value > 0 and hand:
            state.stack.append([P_HAND, p, self.mode, int(self.may)])
            return False
        return True


@COMPILER.op("remove_hand", n=_N, may=Param("bool", default=False))
def _remove_hand(a: dict[str, Any]) -> Step[WishState]:
    """Remove cards from your hand to your Removed Card Pile."""
    return _ChooseFromHand("remove_hand", a["n"], MODE_REMOVE, a["may"])


@COMPILER.op("opp_discard", n=_N)
def _opp_discard(a: dict[str, Any]) -> Step[WishState]:
    """The opponent discards cards of their choice from their hand."""
    return _ChooseFromHand("opp_discard", a["n"], MODE_DISCARD, False)


class _GainUpTo(Step["WishState"]):
    """Gain a Market card costing at most n (to the Play Area); skipped if none qualifies."""

    __slots__ = ("n",)

    def __init__(self, n: int) -> None:
        super().__init__("gain_upto")
        self.n = n

    def run(self, state: WishState, frame: EffectFrame) -> bool:
        if not state.gainable(self.n):
            return True
        state.stack.append([P_GAIN, frame.controller, self.n])
        return False

    def resume(self, state: WishState, frame: EffectFrame, choice: int) -> bool:
        state.take_from_market(frame.controller, choice, 0)
        return True


@COMPILER.op("gain_upto", n=_N)
def _gain_upto(a: dict[str, Any]) -> Step[WishState]:
    return _GainUpTo(a["n"])
