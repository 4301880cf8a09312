"""MetaX's vocabulary of effect operations (compiled once when the catalogue loads)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from engine.core.effects import EffectCompiler, EffectFrame, Param, Step
from engine.metax.tables import BASIC, KIND, TRAIT

if TYPE_CHECKING:
    from engine.metax.state import MetaXState

STATS = ("strength", "intelligence", "special")
KINDS = ("character", "event", "battle")

fx: EffectCompiler[MetaXState] = EffectCompiler("metax")

Fn = Callable[["MetaXState", EffectFrame], None]


def _who(frame: EffectFrame, who: str) -> int:
    return frame.controller if who == "self" else 1 - frame.controller


class Continuous(Step["MetaXState"]):
    """A continuous (static) ability: never run; the rules read its parameters."""

    __slots__ = ("params",)

    def __init__(self, op: str, params: dict[str, Any]) -> None:
        super().__init__(op)
        self.params = params

    def run(self, state: MetaXState, frame: EffectFrame) -> bool:
        """Continuous abilities do nothing when run."""
        return True


class Choice(Step["MetaXState"]):
    """A step where a player picks one instance id among candidates (or -1 if optional)."""

    __slots__ = ("optional",)

    def __init__(self, op: str, optional: bool) -> None:
        super().__init__(op)
        self.optional = optional

    def candidates(self, state: MetaXState, frame: EffectFrame) -> list[int]:
        """The instance ids the player may pick."""
        raise NotImplementedError

    def accepts(self, state: MetaXState, frame: EffectFrame, iid: int) -> bool:
        """Whether `iid` is one of the candidates (cheaper than building the list)."""
        return iid in self.candidates(state, frame)

    def has_candidates(self, state: MetaXState, frame: EffectFrame) -> bool:
        """Whether there is anything to pick."""
        return bool(self.candidates(state, frame))

    def chooser(self, frame: EffectFrame) -> int:
        """The player who picks."""
        return frame.controller

    def pick(self, state: MetaXState, frame: EffectFrame, iid: int) -> None:
        """Carry out the step with the picked instance."""
        raise NotImplementedError

    def done(self, state: MetaXState, frame: EffectFrame) -> None:
        """Called once after the pick (or the pass)."""

    def prompt(self) -> str:
        """A short description for labels."""
        return self.op

    def run(self, state: MetaXState, frame: EffectFrame) -> bool:
        """Ask for a pick if there is anything to pick; otherwise do nothing."""
        if not self.has_candidates(state, frame):
            self.done(state, frame)
            return True
        state.push_choice(self.chooser(frame), self.optional)
        return False

    def resume(self, state: MetaXState, frame: EffectFrame, choice: int) -> bool:
        """Apply the pick (-1: pass)."""
        if choice != -1:
            self.pick(state, frame, choice)
        self.done(state, frame)
        return True


# --- plain operations -------------------------------------------------------------------


@fx.op("draw", n=Param("int", min=1, max=5))
def _draw(p: dict[str, Any]) -> Fn:
    n = p["n"]

    def run(st: MetaXState, fr: EffectFrame) -> None:
        st.draw(fr.controller, n)

    return run


@fx.op("gain_mp", n=Param("int", min=1, max=10))
def _gain_mp(p: dict[str, Any]) -> Fn:
    n = p["n"]

    def run(st: MetaXState, fr: EffectFrame) -> None:
        st.gain_mp(fr.controller, n)

    return run


@fx.op("lose_mp", n=Param("int", min=1, max=10), who=Param("str", "opponent", ("self", "opponent")))
def _lose_mp(p: dict[str, Any]) -> Fn:
    n, who = p["n"], p["who"]

    def run(st: MetaXState, fr: EffectFrame) -> None:
        pl = _who(fr, who)
        st.mp[pl] = max(0, st.mp[pl] - n)

    return run


@fx.op("gain_mp_per_trait", trait=Param("str"), n=Param("int", 1, min=1, max=5))
def _gain_mp_per_trait(p: dict[str, Any]) -> Fn:
    trait, n = p["trait"], p["n"]

    def run(st: MetaXState, fr: EffectFrame) -> None:
        count = sum(1 for c in st.chars[fr.controller] if c >= 0 and TRAIT[st.cards[c]] == trait)
        if count:
            st.gain_mp(fr.controller, n * count)

    return run


@fx.op("mill", n=Param("int", min=1, max=3))
def _mill(p: dict[str, Any]) -> Fn:
    n = p["n"]

    def run(st: MetaXState, fr: EffectFrame) -> None:
        st.mill(1 - fr.controller, n)

    return run


@fx.op("opponent_discards_random", n=Param("int", 1, min=1, max=3))
def _opp_discard(p: dict[str, Any]) -> Fn:
    n = p["n"]

    def run(st: MetaXState, fr: EffectFrame) -> None:
        opp = 1 - fr.controller
        hand = st.hands[opp]
        for _ in range(n):
            if not hand:
                return
            iid = hand.pop(st.prng.below(len(hand)))
            st.discards[opp].append(iid)

    return run


@fx.op(
    "modify_stat",
    stat=Param("str", choices=STATS),
    n=Param("int", min=-5, max=5),
    target=Param("str", "self", ("self", "choose")),
)
def _modify_stat(p: dict[str, Any]) -> Step[MetaXState] | Fn:
    stat, n = STATS.index(p["stat"]), p["n"]
    if p["target"] == "self":

        def run(st: MetaXState, fr: EffectFrame) -> None:
            st.modify_stat(st.self_character(fr), stat, n)

        return run
    return _ModifyChosen("modify_stat", stat, n)


class _ModifyChosen(Choice):
    __slots__ = ("n", "stat")

    def __init__(self, op: str, stat: int, n: int) -> None:
        super().__init__(op, False)
        self.stat = stat
        self.n = n

    def candidates(self, state: MetaXState, frame: EffectFrame) -> list[int]:
        return [
            c for c in state.chars[frame.controller] if c >= 0 and state.base_stat(c, self.stat) > 0
        ]

    def pick(self, state: MetaXState, frame: EffectFrame, iid: int) -> None:
        state.modify_stat(iid, self.stat, self.n)

    def prompt(self) -> str:
        return f"give {self.n:+d} {STATS[self.stat]} until end of turn to"


@fx.op(
    "remove_damage",
    n=Param("int", 1, min=1, max=3),
    target=Param("str", "self", ("self", "choose")),
)
def _remove_damage(p: dict[str, Any]) -> Step[MetaXState] | Fn:
    n = p["n"]
    if p["target"] == "self":

        def run(st: MetaXState, fr: EffectFrame) -> None:
            st.remove_damage(st.self_character(fr), n)

        return run
    return _RemoveDamageChosen("remove_damage", n)


class _RemoveDamageChosen(Choice):
    __slots__ = ("n",)

    def __init__(self, op: str, n: int) -> None:
        super().__init__(op, False)
        self.n = n

    def candidates(self, state: MetaXState, frame: EffectFrame) -> list[int]:
        p = frame.controller
        return [c for s, c in enumerate(state.chars[p]) if c >= 0 and state.dmg[p][s]]

    def pick(self, state: MetaXState, frame: EffectFrame, iid: int) -> None:
        state.remove_damage(iid, self.n)

    def prompt(self) -> str:
        return f"remove {self.n} damage from"


# --- choices over characters ------------------------------------------------------------


@fx.op("ko_character", max_rank=Param("int", 10, min=1, max=10))
def _ko(p: dict[str, Any]) -> Step[MetaXState]:
    return _KoChosen("ko_character", p["max_rank"])


class _KoChosen(Choice):
    __slots__ = ("max_rank",)

    def __init__(self, op: str, max_rank: int) -> None:
        super().__init__(op, False)
        self.max_rank = max_rank

    def candidates(self, state: MetaXState, frame: EffectFrame) -> list[int]:
        opp = 1 - frame.controller
        return [c for c in state.chars[opp] if c >= 0 and state.max_rank(c) <= self.max_rank]

    def pick(self, state: MetaXState, frame: EffectFrame, iid: int) -> None:
        state.ko(iid)

    def prompt(self) -> str:
        return f"KO an opposing character of maximum rank {self.max_rank} or less:"


@fx.op("push_character")
def _push(p: dict[str, Any]) -> Step[MetaXState]:
    return _PushChosen("push_character", False)


class _PushChosen(Choice):
    __slots__ = ()

    def candidates(self, state: MetaXState, frame: EffectFrame) -> list[int]:
        opp = 1 - frame.controller
        return [c for s, c in enumerate(state.chars[opp]) if c >= 0 and not state.pushed[opp][s]]

    def pick(self, state: MetaXState, frame: EffectFrame, iid: int) -> None:
        pl, s = state.slot_of(iid)
        state.pushed[pl][s] = 1

    def prompt(self) -> str:
        return "push an opposing prepped character:"


@fx.op("prep_character")
def _prep(p: dict[str, Any]) -> Step[MetaXState]:
    return _PrepChosen("prep_character", False)


class _PrepChosen(Choice):
    __slots__ = ()

    def candidates(self, state: MetaXState, frame: EffectFrame) -> list[int]:
        me = frame.controller
        return [
            c
            for s, c in enumerate(state.chars[me])
            if c >= 0 and state.pushed[me][s] and not state.in_battle(c)
        ]

    def pick(self, state: MetaXState, frame: EffectFrame, iid: int) -> None:
        pl, s = state.slot_of(iid)
        state.pushed[pl][s] = 0

    def prompt(self) -> str:
        return "prep a pushed character you control:"


# --- choices over cards in zones --------------------------------------------------------


def _matching_cids(kind: str | None, trait: str | None, basic: bool) -> frozenset[int]:
    k = KINDS.index(kind) if kind is not None else None
    return frozenset(
        cid
        for cid in range(len(KIND))
        if (k is None or KIND[cid] == k)
        and (trait is None or TRAIT[cid] == trait)
        and (not basic or BASIC[cid])
    )


_FILTER = {
    "kind": Param("str", None, KINDS),
    "trait": Param("str", None),
    "basic": Param("bool", False),
}


class _ZoneChoice(Choice):
    __slots__ = ("_ok", "basic", "kind", "trait")

    def __init__(self, op: str, p: dict[str, Any]) -> None:
        super().__init__(op, True)
        self.kind: str | None = p["kind"]
        self.trait: str | None = p["trait"]
        self.basic: bool = p["basic"]
        self._ok: frozenset[int] | None = None

    def zone(self, state: MetaXState, frame: EffectFrame) -> list[int]:
        raise NotImplementedError

    def ok(self) -> frozenset[int]:
        """The card numbers this step's filter accepts (computed once)."""
        if self._ok is None:
            self._ok = _matching_cids(self.kind, self.trait, self.basic)
        return self._ok

    def candidates(self, state: MetaXState, frame: EffectFrame) -> list[int]:
        cards = state.cards
        ok = self.ok()
        return sorted(iid for iid in self.zone(state, frame) if cards[iid] in ok)

    def has_candidates(self, state: MetaXState, frame: EffectFrame) -> bool:
        cards = state.cards
        ok = self.ok()
        for iid in self.zone(state, frame):  # noqa: SIM110 - a plain loop is faster than any() here
            if cards[iid] in ok:
                return True
        return False

    def accepts(self, state: MetaXState, frame: EffectFrame, iid: int) -> bool:
        return iid in self.zone(state, frame) and state.cards[iid] in self.ok()

    def what(self) -> str:
        parts = [p for p in ("Basic" if self.basic else None, self.trait, self.kind) if p]
        return " ".join(parts) or "card"


@fx.op("search_deck", **_FILTER)
def _search(p: dict[str, Any]) -> Step[MetaXState]:
    return _Search("search_deck", p)


class _Search(_ZoneChoice):
    __slots__ = ()

    def zone(self, state: MetaXState, frame: EffectFrame) -> list[int]:
        return state.decks[frame.controller]

    def pick(self, state: MetaXState, frame: EffectFrame, iid: int) -> None:
        me = frame.controller
        state.decks[me].remove(iid)
        state.hands[me].append(iid)

    def done(self, state: MetaXState, frame: EffectFrame) -> None:
        me = frame.controller
        state.prng.shuffle(state.decks[me])
        state.check_deck(me)

    def prompt(self) -> str:
        return f"search your deck for a {self.what()} (then shuffle):"


@fx.op("recover_from_discard", **_FILTER)
def _recover(p: dict[str, Any]) -> Step[MetaXState]:
    return _Recover("recover_from_discard", p)


class _Recover(_ZoneChoice):
    __slots__ = ()

    def zone(self, state: MetaXState, frame: EffectFrame) -> list[int]:
        return state.discards[frame.controller]

    def pick(self, state: MetaXState, frame: EffectFrame, iid: int) -> None:
        me = frame.controller
        state.discards[me].remove(iid)
        state.hands[me].append(iid)

    def prompt(self) -> str:
        return f"return a {self.what()} from your discard pile to your hand:"


@fx.op("return_to_deck", **_FILTER)
def _return_to_deck(p: dict[str, Any]) -> Step[MetaXState]:
    return _ReturnToDeck("return_to_deck", p)


class _ReturnToDeck(_ZoneChoice):
    __slots__ = ()

    def zone(self, state: MetaXState, frame: EffectFrame) -> list[int]:
        return state.discards[frame.controller]

    def pick(self, state: MetaXState, frame: EffectFrame, iid: int) -> None:
        me = frame.controller
        state.discards[me].remove(iid)
        state.decks[me].insert(0, iid)

    def prompt(self) -> str:
        return f"put a {self.what()} from your discard pile on the bottom of your deck:"


@fx.op("discard_from_hand")
def _discard_from_hand(p: dict[str, Any]) -> Step[MetaXState]:
    return _DiscardFromHand("discard_from_hand", False)


class _DiscardFromHand(Choice):
    __slots__ = ()

    def candidates(self, state: MetaXState, frame: EffectFrame) -> list[int]:
        return sorted(state.hands[frame.controller])

    def pick(self, state: MetaXState, frame: EffectFrame, iid: int) -> None:
        me = frame.controller
        state.hands[me].remove(iid)
        state.discards[me].append(iid)

    def prompt(self) -> str:
        return "discard a card from your hand:"


# --- continuous abilities ---------------------------------------------------------------


@fx.op(
    "stat_bonus",
    stat=Param("str", choices=STATS),
    n=Param("int", 1, min=1, max=3),
    trait=Param("str", None),
    others=Param("bool", True),
)
def _stat_bonus(p: dict[str, Any]) -> Step[MetaXState]:
    return Continuous("stat_bonus", p)


@fx.op("tko_resist", n=Param("int", 1, min=1, max=2))
def _tko_resist(p: dict[str, Any]) -> Step[MetaXState]:
    return Continuous("tko_resist", p)


@fx.op("hp_bonus", n=Param("int", 1, min=1, max=3))
def _hp_bonus(p: dict[str, Any]) -> Step[MetaXState]:
    return Continuous("hp_bonus", p)


# --- named Python effects ---------------------------------------------------------------


@fx.named("evil_parade", min_damage=Param("int", 2, min=1, max=5))
def _evil_parade(p: dict[str, Any]) -> Fn:
    """KO every opposing character with at least `min_damage` damage cards attached."""
    need = p["min_damage"]

    def run(st: MetaXState, fr: EffectFrame) -> None:
        opp = 1 - fr.controller
        for s in range(3):
            c = st.chars[opp][s]
            if c >= 0 and len(st.dmg[opp][s]) >= need:
                st.ko(c)

    return run
