"""The MetaVersus WISH match state: setup choices, the turn, the Market, the end of the match.

Cards and packs are catalogue numbers (see `cards.py`). Zones are lists of ints; a draw deck's
top card is the end of its list. Every pending decision is an entry on `stack`: a prompt list
`[kind, player, *args]` or a running effect (`EffectFrame`) waiting under the prompt one of its
steps pushed. With an empty stack the active duelist acts in the current phase (Wish, Action,
Buy, Combat; the Discard Phase runs by itself at the end of a turn).

`WishBoard` holds the data, what happens to it (it is the `Board` of effects.py) and the flow
of setup and of a turn; moves.py adds the actions a player takes.
"""

from __future__ import annotations

from typing import Any, ClassVar

from engine.core.effects import EffectFrame, resume_effect, run_effect
from engine.core.errors import IllegalAction
from engine.core.prng import Prng
from engine.core.state import ENGINE_LIMIT, TERMINAL, GameState, field_copier
from engine.metaversus.cards import CARDS, MARKET_PICKS, STOCK_COPIES, TRIGGER_TURN_START
from engine.metaversus.effects import (
    AP,
    BUYS,
    COMBAT_DAMAGE,
    DISCOUNT,
    GEMS,
    MODE_REMOVE,
    TO_DECK,
    TO_DISCARD,
    TO_HAND,
    TO_PLAY,
    WEAPON_BONUS,
)

#: phases of a match (SETUP while packs and market cards are being chosen)
SETUP, WISH, ACTION, BUY, COMBAT, OVER = 0, 1, 2, 3, 4, 5
PHASE_NAMES = ("setup", "wish", "action", "buy", "combat", "over")

#: prompt kinds on the decision stack: [kind, player, *args]
P_BAN = 0  # [P_BAN, player]: ban one character pack from your hand, or not
P_CHOOSE = 1  # [P_CHOOSE, player]: choose your character from your hand
P_PICK = 2  # [P_PICK, player, left]: choose a card type of your pack for the Market
P_HAND = 3  # [P_HAND, player, mode, may]: choose a card in your hand (an effect asks)
P_GAIN = 4  # [P_GAIN, player, max_cost]: choose a Market card to gain
P_SKILL = 5  # [P_SKILL, player]: cast a "may" passive skill that was triggered, or not
PROMPT_NAMES = ("ban", "choose", "pick", "hand", "gain", "skill")

#: the pile a Market slot restocks from
SRC_REQUIRED, SRC_NEUTRAL, SRC_P1, SRC_P2 = 0, 1, 2, 3
SOURCE_NAMES = ("required", "neutral", "p1", "p2")

MAX_STARS = 3
HAND_SIZE = 5

_EFFECTS = CARDS.effects
_SKILL_BASE = 2 * CARDS.n
_TRIGGER = CARDS.skill_trigger
_COST = CARDS.cost
_PRICIER = CARDS.pricier
# zones hold card (and pack) numbers; `hash_bytes` writes each as one byte
assert CARDS.n <= 256


def illegal(rule: str, message: str) -> IllegalAction:
    """An IllegalAction naming a WISH rule (`metaversus.<rule>`)."""
    return IllegalAction("metaversus." + rule, message)


#: the field holding each counter of the turn an effect raises (`add_this_turn`)
_COUNTER_FIELDS = {
    AP: "ap",
    GEMS: "gems",
    BUYS: "buys",
    DISCOUNT: "discount",
    WEAPON_BONUS: "wbonus",
    COMBAT_DAMAGE: "pool",
}
#: where a gained card goes (effects.DESTINATIONS), by its per-player list
_DESTINATION_LISTS = {TO_PLAY: "play", TO_HAND: "hand", TO_DISCARD: "disc", TO_DECK: "deck"}


def _copy_stack(state: WishBoard, copy: WishBoard) -> None:
    """The prompt stack of a clone: its effect frames cloned, its prompts copied."""
    copy.stack = [e.clone() if isinstance(e, EffectFrame) else e[:] for e in state.stack]


class WishBoard(GameState):
    """A WISH match's data, what happens to it, and the flow of setup and turns (players 0 =
    P1 and 1 = P2)."""

    game: ClassVar[str] = "metaversus"

    __slots__ = (
        "active",
        "ap",
        "bans",
        "bought",
        "buys",
        "char",
        "chosen",
        "deck",
        "disc",
        "discount",
        "first",
        "gems",
        "hand",
        "hp",
        "m_card",
        "m_src",
        "m_stock",
        "max_rounds",
        "maxhp",
        "neutral",
        "over",
        "phase",
        "picks",
        "pile",
        "play",
        "played",
        "pool",
        "removed",
        "rng",
        "sel",
        "skill_turn",
        "stack",
        "stars",
        "turn",
        "uses",
        "wbonus",
        "win",
        "wplayed",
        "zero",
    )

    rng: Prng
    stack: list[Any]
    phase: int
    active: int
    first: int
    turn: int
    max_rounds: int
    ap: int
    gems: int
    buys: int
    bought: int
    pool: int
    wbonus: int
    discount: int
    played: int
    wplayed: int
    skill_turn: int
    hp: list[int]
    maxhp: list[int]
    stars: list[int]
    uses: list[int]
    char: list[int]
    hand: list[list[int]]
    deck: list[list[int]]
    disc: list[list[int]]
    play: list[list[int]]
    removed: list[list[int]]
    pile: list[list[int]]
    neutral: list[int]
    m_card: list[int]
    m_stock: list[int]
    m_src: list[int]
    zero: bool
    over: bool
    win: int
    sel: list[list[int]]
    bans: list[int]
    chosen: list[int]
    picks: list[list[int]]

    def __init__(self, seed: int = 0, rev: int = 1) -> None:
        self.rev = rev
        self.rng = Prng(seed)
        self.phase = SETUP
        self.active = 0
        self.first = 0
        self.turn = 0
        self.max_rounds = 50
        self.ap = self.gems = self.buys = self.bought = 0
        self.pool = self.wbonus = self.discount = self.played = self.wplayed = 0
        self.skill_turn = 0
        self.hp = [0, 0]
        self.maxhp = [0, 0]
        self.stars = [0, 0]
        self.uses = [-1, -1]
        self.char = [-1, -1]
        self.hand = [[], []]
        self.deck = [[], []]
        self.disc = [[], []]
        self.play = [[], []]
        self.removed = [[], []]
        self.pile = [[], []]
        self.neutral = []
        self.m_card = []
        self.m_stock = []
        self.m_src = []
        self.stack = []
        self.zero = False
        self.over = False
        self.win = -1
        self.sel = [[], []]
        self.bans = [-2, -2]
        self.chosen = [-1, -1]
        self.picks = [[], []]

    # ------------------------------------------------------------------ interface

    @property
    def current_player(self) -> int:
        """The player to act: the owner of the top prompt, else the active duelist."""
        if self.over:
            return TERMINAL
        st = self.stack
        if st:
            top = st[-1]
            return int(top[1])
        return self.active

    #: an independent copy (lists copied, no deepcopy)
    clone = field_copier(
        shared="rev phase active first turn max_rounds ap gems buys bought pool wbonus discount "
        "played wplayed skill_turn zero over win",
        copied="hp maxhp stars uses char neutral m_card m_stock m_src bans chosen",
        paired="hand deck disc play removed pile sel picks",
        cloned="rng",
        by_hand="stack",
        then=_copy_stack,
    )

    def card_count(self) -> int | None:
        """Cards in every zone, the Market stock and 6 per unrevealed pile type (conserved once
        setup is over; None during setup)."""
        if self.phase == SETUP:
            return None
        n = sum(
            len(z[p])
            for z in (self.hand, self.deck, self.disc, self.play, self.removed)
            for p in (0, 1)
        )
        n += sum(self.m_stock)
        return n + STOCK_COPIES * (len(self.neutral) + len(self.pile[0]) + len(self.pile[1]))

    def invariant_breaks(self) -> list[str]:
        """Stars 0..3, no negative stock, AP, Gems or buys, the top of the stack a prompt."""
        out: list[str] = []
        if not all(0 <= n <= MAX_STARS for n in self.stars):
            out.append(f"Wishing Stars out of 0..3: {self.stars}")
        if any(n < 0 for n in self.m_stock):
            out.append("a Market slot has negative stock")
        if self.ap < 0 or self.gems < 0 or self.buys < 0:
            out.append("negative AP, Gems or buys")
        if self.stack and isinstance(self.stack[-1], EffectFrame):
            out.append("a running effect is on top of the stack")
        if self.over and self.stack:
            out.append("prompts left on a finished match")
        return out

    # ------------------------------------------------------------------ setup

    def _after_bans(self) -> None:
        for p in (0, 1):
            b = self.bans[p]
            if b >= 0:
                self.sel[p] = [k for k in self.sel[p] if k != b]
        self.sel = [self.sel[1], self.sel[0]]
        self.stack = [[P_CHOOSE, 1], [P_CHOOSE, 0]]

    def _after_choices(self) -> None:
        self.sel = [[], []]
        self.start_picks(self.chosen[0], self.chosen[1])

    def start_picks(self, pack0: int, pack1: int) -> None:
        """Both characters are known: each duelist picks 4 market card types of their pack."""
        self.char = [pack0, pack1]
        self.stack = [[P_PICK, 1, MARKET_PICKS], [P_PICK, 0, MARKET_PICKS]]

    def _finish_setup(self) -> None:
        rng = self.rng
        for p in (0, 1):
            pack = self.char[p]
            for c in self.picks[p]:
                self.m_card.append(c)
                self.m_stock.append(STOCK_COPIES)
                self.m_src.append(SRC_P1 + p)
            rest = [c for c in CARDS.pack_market[pack] if c not in self.picks[p]]
            rng.shuffle(rest)
            self.pile[p] = rest
            self.hp[p] = CARDS.hp[pack]
            self.maxhp[p] = CARDS.max_hp[pack]
            self.uses[p] = CARDS.skill_uses[pack]
        self.picks = [[], []]
        if self.first < 0:  # no first-match rule: roll the First Player Die
            self.first = rng.below(2)
        for p in (0, 1):
            deck = list(CARDS.basic_deck)
            rng.shuffle(deck)
            self.deck[p] = deck
            self.draw(p, HAND_SIZE)
        self.active = self.first
        self._start_turn()

    # ------------------------------------------------------------------ the turn

    def _start_turn(self) -> None:
        self.turn += 1
        self.phase = WISH
        self.ap = self.gems = self.bought = 0
        self.buys = 1
        self.pool = self.wbonus = self.discount = self.played = self.wplayed = 0
        self.skill_turn = 0
        if _TRIGGER[self.char[self.active]] == TRIGGER_TURN_START:
            self._trigger(self.active, TRIGGER_TURN_START)

    def _trigger(self, p: int, trigger: int) -> None:
        pack = self.char[p]
        if _TRIGGER[pack] != trigger or self.uses[p] == 0:
            return
        if CARDS.skill_may[pack]:
            self.stack.append([P_SKILL, p])
        else:
            self._cast_skill(p)

    def _cast_skill(self, p: int) -> None:
        if self.uses[p] > 0:
            self.uses[p] -= 1
        pack = self.char[p]
        self._run(_SKILL_BASE + pack, pack, p)

    def _run(self, effect: int, source: int, controller: int) -> None:
        """Cast effect number `effect` of card `source` for `controller`; when a step asks for
        a choice, the effect's frame waits on the stack just below the prompt it pushed."""
        eff = _EFFECTS[effect]
        if not eff.steps:
            return
        frame = EffectFrame(effect, source, controller)
        done = run_effect(self, eff, frame)
        st = self.stack
        if self.over:
            st.clear()
        elif not done:
            st.insert(len(st) - 1, frame)

    def _resume(self, choice: int) -> None:
        """Give the answer to the prompt on top to the effect waiting below it."""
        st = self.stack
        st.pop()
        frame = st[-1]
        done = resume_effect(self, _EFFECTS[frame.effect], frame, choice)
        if self.over:
            st.clear()
        elif done:
            st.pop()

    def price(self, slot: int) -> int:
        """What buying from a Market slot costs now (the last copies of a weapon cost 1 more)."""
        c = self.m_card[slot]
        cost = _COST[c]
        if _PRICIER[c] and self.m_stock[slot] <= _PRICIER[c]:
            cost += 1
        return max(0, cost - self.discount)

    def list_price(self, slot: int) -> int:
        """A slot's cost without this turn's discounts."""
        c = self.m_card[slot]
        return _COST[c] + (1 if _PRICIER[c] and self.m_stock[slot] <= _PRICIER[c] else 0)

    def _end_turn(self) -> None:
        """The Discard Phase, the end-of-match check, then the opponent's turn."""
        p = self.active
        disc = self.disc[p]
        disc += self.play[p]
        disc += self.hand[p]
        self.play[p] = []
        self.hand[p] = []
        self.draw(p, HAND_SIZE)
        if p != self.first and (self.zero or self.turn >= 2 * self.max_rounds):
            self.ap = self.gems = self.buys = 0
            f = self.first
            if self.zero or self.rev == 1:  # ruleset 1 decided the round limit by HP as well
                self.end_match(f if self.hp[f] >= self.hp[1 - f] else 1 - f)
            else:  # the engine's safety cap, not a rule of the guide: a draw
                self.end_match(ENGINE_LIMIT)
            return
        self.active = 1 - p
        self._start_turn()

    # ------------------------------------------------------------------ helpers for effects

    def draw(self, p: int, n: int) -> None:
        """Draw n cards; an empty draw deck is remade from the shuffled discard pile."""
        deck = self.deck[p]
        k = len(deck)
        hand = self.hand[p]
        if k < n:
            if k:
                hand += deck[::-1]
                deck.clear()
                n -= k
            disc = self.disc[p]
            if not disc:
                return
            self.rng.shuffle(disc)
            self.deck[p] = deck = disc
            self.disc[p] = []
            k = len(deck)
            if k < n:
                n = k
        hand += deck[k - n :][::-1]
        del deck[k - n :]

    def add_this_turn(self, counter: int, n: int) -> None:
        """n more of one of this turn's counters (effects.TURN_COUNTERS)."""
        name = _COUNTER_FIELDS[counter]
        setattr(self, name, getattr(self, name) + n)

    def heal(self, p: int, n: int) -> None:
        """p recovers n HP, never above Max HP."""
        self.hp[p] = min(self.maxhp[p], self.hp[p] + n)

    def raise_max_hp(self, p: int, n: int) -> None:
        """p's Max HP goes up by n."""
        self.maxhp[p] += n

    def gain_stars(self, p: int, n: int) -> None:
        """p gains n Wishing Stars (any beyond the maximum disappear)."""
        self.stars[p] = min(MAX_STARS, self.stars[p] + n)

    def gain_card(self, p: int, card_id: str, dest: int) -> None:
        """p gains a card of the named type from the Market to `dest` (nothing if sold out)."""
        slot = self.slot_of(CARDS.index[card_id])
        if slot >= 0:
            self.take_from_market(p, slot, dest)

    def hp_of(self, p: int) -> int:
        """p's HP."""
        return self.hp[p]

    def stars_of(self, p: int) -> int:
        """p's Wishing Stars."""
        return self.stars[p]

    def hand_size(self, p: int) -> int:
        """How many cards p holds."""
        return len(self.hand[p])

    def cards_played(self) -> int:
        """Cards the active duelist played this turn."""
        return self.played

    def weapons_played(self) -> int:
        """Weapon cards the active duelist played this turn."""
        return self.wplayed

    def ask_for_card(self, p: int, mode: int, may: bool) -> None:
        """Ask p to choose a card of their hand to remove or discard (for the running effect)."""
        self.stack.append([P_HAND, p, mode, int(may)])

    def take_from_hand(self, p: int, card: int, mode: int) -> None:
        """Move a card of p's hand to their Removed Card Pile (MODE_REMOVE) or discard pile."""
        self.hand[p].remove(card)
        (self.removed if mode == MODE_REMOVE else self.disc)[p].append(card)

    def ask_to_gain(self, p: int, max_cost: int) -> None:
        """Ask p to choose a Market slot costing at most max_cost (for the running effect)."""
        self.stack.append([P_GAIN, p, max_cost])

    def lose_hp(self, p: int, n: int) -> None:
        """Reduce a duelist's HP (it may go below 0)."""
        hp = self.hp[p] - n
        self.hp[p] = hp
        if hp <= 0:
            self.zero = True

    def end_match(self, winner: int) -> None:
        """End the match now with a winner (ENGINE_LIMIT: a draw at the engine's safety cap)."""
        self.over = True
        self.win = winner
        self.phase = OVER

    def slot_of(self, card: int) -> int:
        """The Market slot selling `card` with stock left, or -1."""
        for s, c in enumerate(self.m_card):
            if c == card and self.m_stock[s]:
                return s
        return -1

    def _gain_ok(self, slot: int, max_cost: int) -> bool:
        return (
            0 <= slot < len(self.m_card)
            and self.m_stock[slot] > 0
            and self.list_price(slot) <= max_cost
        )

    def gainable(self, max_cost: int) -> bool:
        """Whether some Market card in stock costs at most max_cost."""
        return any(self._gain_ok(s, max_cost) for s in range(len(self.m_card)))

    def take_from_market(self, p: int, slot: int, dest: int) -> None:
        """Gain the card of a Market slot; a sold-out slot is restocked from its pile."""
        c = self.m_card[slot]
        self.m_stock[slot] -= 1
        getattr(self, _DESTINATION_LISTS[dest])[p].append(c)
        if self.m_stock[slot] == 0:
            src = self.m_src[slot]
            if src == SRC_REQUIRED:
                return
            pile = self.neutral if src == SRC_NEUTRAL else self.pile[src - SRC_P1]
            if pile:
                self.m_card[slot] = pile.pop()
                self.m_stock[slot] = STOCK_COPIES
            else:
                self.m_card[slot] = -1
