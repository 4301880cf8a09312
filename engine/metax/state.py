"""The MetaX match state: zones as lists of instance ids, an explicit prompt stack, the turn.

Instance ids (iid) number the physical cards of a match; `cards[iid]` is the card number (cid)
and `owner[iid]` its owner; both lists never change during a match and are shared by clones.
Decks are stored bottom-first (the top card is the last element).

`MetaXBoard` holds the data, the queries and mutations the rules and the effects use (it is
the `Board` of effects.py) and the flow of a turn; moves.py adds the actions a player takes.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import compress
from typing import Any, Self

from engine.core.effects import Effect, EffectFrame, run_effect
from engine.core.errors import IllegalAction
from engine.core.prng import Prng
from engine.core.state import TERMINAL, GameState, field_copier
from engine.metax.cards import CARDS, CHARACTER, EVENT
from engine.metax.effects import DECK, Board, CardFilter, Choice

MAX_MP = 10
MAX_CHARACTERS = 3
HAND_SIZE = 5
VP_TO_WIN = 7
LINK_COST = 5

# per-card facts, by card number (immutable tuples of the card table)
KIND = CARDS.kind
NAME = CARDS.name
TRAIT = CARDS.trait
CSTATS = CARDS.cstats
BSTATS = CARDS.bstats
RANK = CARDS.rank
MP = CARDS.mp
EFFECT = CARDS.effect
EFFECT_KIND = CARDS.effect_kind
BASIC = CARDS.basic
TKO_EXTRA = CARDS.tko_extra
HP_EXTRA = CARDS.hp_extra
BONUS = CARDS.bonus

# prompt kinds (first element of a prompt tuple; the second is the deciding player)
P_FIRST, P_MULLIGAN, P_ORDER, P_PLANNING, P_ATTACKS, P_DEFENSE, P_DAMAGE, P_CHOICE = range(8)
P_EFFECT = 8  # an EffectFrame on the stack (never the top of a settled state)
#: (P_LINK_COST, player): an automatic step under a team attack's Battle Card effect (ruleset
#: revision 2): once the effect has resolved, pay 5 MP per linking Character and push them
P_LINK_COST = 9
PROMPT_NAMES = (
    "first-player",
    "mulligan",
    "mulligan-order",
    "planning",
    "attacks",
    "defense",
    "damage",
    "choice",
)

# attack record fields
A_LEAD, A_CARD, A_STAT, A_LINK1, A_LINK2, A_DEF, A_DCARD, A_DONE = range(8)

Prompt = tuple[int, ...]

#: an effect's card filter -> the card numbers it accepts
_MATCHING: dict[CardFilter, frozenset[int]] = {}


def _accepted(wanted: CardFilter) -> frozenset[int]:
    """The card numbers a filter accepts (computed once per filter)."""
    ok = _MATCHING.get(wanted)
    if ok is None:
        kind, trait, basic = wanted
        ok = _MATCHING[wanted] = frozenset(
            cid
            for cid in range(len(KIND))
            if (kind < 0 or KIND[cid] == kind)
            and (trait is None or TRAIT[cid] == trait)
            and (not basic or BASIC[cid])
        )
    return ok


def illegal(rule: str, message: str) -> IllegalAction:
    """An IllegalAction naming a MetaX rule (`metax.<rule>`)."""
    return IllegalAction("metax." + rule, message)


def _copy_piles(state: MetaXBoard, copy: MetaXBoard) -> None:
    """The damage piles, attacks and prompt stack of a clone (lists of lists), its effect
    frames cloned."""
    d0, d1 = state.dmg
    copy.dmg = [[d0[0][:], d0[1][:], d0[2][:]], [d1[0][:], d1[1][:], d1[2][:]]]
    copy.attacks = [a[:] for a in state.attacks]
    copy.stack = [x.clone() if type(x) is EffectFrame else x for x in state.stack]


class MetaXBoard(GameState):
    """A MetaX match's data, what happens to it, and the flow of a turn (see the module docstring)."""

    game = "metax"

    __slots__ = (
        "active",
        "attacks",
        "cards",
        "chars",
        "decks",
        "discards",
        "dmg",
        "entered",
        "first",
        "hands",
        "limbo",
        "mods",
        "mp",
        "owner",
        "played_char",
        "prng",
        "pushed",
        "stack",
        "static",
        "turn",
        "vps",
    )

    cards: list[int]
    owner: list[int]
    decks: list[list[int]]
    hands: list[list[int]]
    discards: list[list[int]]
    vps: list[list[int]]
    limbo: list[list[int]]
    chars: list[list[int]]
    pushed: list[list[int]]
    entered: list[list[int]]
    dmg: list[list[list[int]]]
    mods: list[list[int]]
    mp: list[int]
    turn: int
    active: int
    first: int
    played_char: bool
    attacks: list[list[int]]
    stack: list[Any]
    prng: Prng
    #: the per-match static tables (card number and owner of each instance) as one string,
    #: computed once and shared by clones: serialising ints is what makes a hash expensive
    static: str

    # --- construction -------------------------------------------------------------------

    @classmethod
    def empty(
        cls, cards: list[int], owner: list[int], prng: Prng, static: str, rev: int = 1
    ) -> Self:
        """A state with no card anywhere yet (builders fill the zones) under ruleset revision
        `rev`; `static` is the encoding of `cards` and `owner` (encoding.static_string)."""
        s = cls.__new__(cls)
        s.rev = rev
        s.cards = cards
        s.owner = owner
        s.static = static
        s.decks = [[], []]
        s.hands = [[], []]
        s.discards = [[], []]
        s.vps = [[], []]
        s.limbo = [[], []]
        s.chars = [[-1, -1, -1], [-1, -1, -1]]
        s.pushed = [[0, 0, 0], [0, 0, 0]]
        s.entered = [[0, 0, 0], [0, 0, 0]]
        s.dmg = [[[], [], []], [[], [], []]]
        s.mods = [[0] * 9, [0] * 9]
        s.mp = [0, 0]
        s.turn = 0
        s.active = 0
        s.first = 0
        s.played_char = False
        s.over = False
        s.win = -1
        s.attacks = []
        s.stack = []
        s.prng = prng
        return s

    #: an independent copy: list copies, no deepcopy; card tables are shared
    clone = field_copier(
        shared="rev cards owner static turn active first played_char over win",
        copied="mp",
        paired="decks hands discards vps limbo chars pushed entered mods",
        cloned="prng",
        by_hand="dmg attacks stack",
        then=_copy_piles,
    )

    @property
    def current_player(self) -> int:
        """The player who must act now, or TERMINAL."""
        if self.over:
            return TERMINAL
        return int(self.stack[-1][1])

    def pending_choice(self) -> tuple[EffectFrame, Effect[Board], Choice]:
        """The running effect waiting for the choice prompt on top of the stack: its frame, the
        effect, and the step that asks."""
        frame = self.stack[-2]
        effect = EFFECT[self.cards[frame.source]]
        assert effect is not None
        step = effect.steps[frame.step]
        assert isinstance(step, Choice)
        return frame, effect, step

    def name(self, iid: int) -> str:
        """The card name of an instance."""
        if 0 <= iid < len(self.cards) and self.cards[iid] >= 0:
            return NAME[self.cards[iid]]
        return f"#{iid}"

    # --- queries -------------------------------------------------------------------------

    def slot_of(self, iid: int) -> tuple[int, int]:
        """(player, slot) of a character in play; ValueError if it is not in play."""
        if iid in self.chars[0]:
            return 0, self.chars[0].index(iid)
        if iid in self.chars[1]:
            return 1, self.chars[1].index(iid)
        raise ValueError(f"{iid} is not a character in play")

    def stats(self, iid: int) -> Sequence[int]:
        """Effective ranks (STR, INT, SPE) of a character in play (0 = no such stat)."""
        p, s = self.slot_of(iid)
        return self.stats_at(p, s)

    def stats_at(self, p: int, s: int) -> Sequence[int]:
        """Effective ranks of the character in player p's slot s (read-only)."""
        cards = self.cards
        chars = self.chars[p]
        iid = chars[s]
        cid = cards[iid]
        base = CSTATS[cid]
        mods = self.mods[p]
        o = s * 3
        modified = mods[o] or mods[o + 1] or mods[o + 2]
        c0, c1, c2 = chars
        if (
            not modified
            and (c0 < 0 or BONUS[cards[c0]] is None)
            and (c1 < 0 or BONUS[cards[c1]] is None)
            and (c2 < 0 or BONUS[cards[c2]] is None)
        ):
            return base
        out = list(base)
        if modified:
            for k in range(3):
                if out[k]:
                    out[k] = max(1, out[k] + mods[o + k])
        for other in chars:
            bonus = BONUS[cards[other]] if other >= 0 else None
            if bonus is None:
                continue
            stat, n, btrait, others = bonus
            if (
                out[stat]
                and (btrait is None or btrait == TRAIT[cid])
                and not (others and other == iid)
            ):
                out[stat] += n
        return out

    def base_stat(self, iid: int, stat: int) -> int:
        """The printed rank of a character in a stat."""
        return CSTATS[self.cards[iid]][stat]

    def max_rank(self, iid: int) -> int:
        """A character's HP: its highest effective rank (plus any HP bonus)."""
        return max(self.stats(iid)) + HP_EXTRA[self.cards[iid]]

    def in_battle(self, iid: int) -> bool:
        """Whether a character is attacking, linking or defending in the current battle."""
        for a in self.attacks:
            if iid == a[A_LEAD] or iid == a[A_LINK1] or iid == a[A_LINK2] or iid == a[A_DEF]:
                return True
        return False

    def self_character(self, frame: EffectFrame) -> int:
        """The character an effect's "this character" means (the source, or the battle card's player)."""
        return frame.source if KIND[self.cards[frame.source]] == CHARACTER else frame.target

    def invariant_breaks(self) -> list[str]:
        """Every instance in exactly one place, MP 0..10, at most 3 characters, a decision on top
        of the stack while the match runs and none once it is over."""
        out: list[str] = []
        places = [0] * len(self.cards)
        for p in (0, 1):
            if not 0 <= self.mp[p] <= MAX_MP:
                out.append(f"player {p} has {self.mp[p]} MP")
            for zone in (self.decks, self.hands, self.discards, self.vps, self.limbo):
                for i in zone[p]:
                    places[i] += 1
            for c in self.chars[p]:
                if c >= 0:
                    places[c] += 1
            for pile in self.dmg[p]:
                for i in pile:
                    places[i] += 1
        misplaced = [i for i, n in enumerate(places) if n != 1 and self.owner[i] >= 0]
        if misplaced:
            out.append(f"instances not in exactly one place: {misplaced[:5]}")
        top = self.stack[-1] if self.stack else None
        if self.over and self.rev == 1:
            top = None  # ruleset 1 may keep the choice prompt of an effect that ended the match
        if self.over != (top is None):
            out.append("the stack is empty exactly when the match is over: not so")
        elif top is not None and (type(top) is EffectFrame or top[0] >= len(PROMPT_NAMES)):
            out.append(f"an automatic step is on top of a settled stack: {top!r}")
        return out

    def card_count(self) -> int:
        """Number of cards in all zones (conservation check)."""
        n = 0
        for p in (0, 1):
            n += len(self.decks[p]) + len(self.hands[p]) + len(self.discards[p]) + len(self.vps[p])
            n += len(self.limbo[p]) + sum(1 for c in self.chars[p] if c >= 0)
            n += sum(len(d) for d in self.dmg[p])
        return n

    def slots(self, p: int) -> list[int]:
        """p's three character slots: the instance id of a character in play, or -1 when the
        slot is empty (the list itself: to read, not to change)."""
        return self.chars[p]

    def is_pushed(self, iid: int) -> bool:
        """Whether a character in play is pushed."""
        p, s = self.slot_of(iid)
        return bool(self.pushed[p][s])

    def trait(self, iid: int) -> str | None:
        """The trait printed on a card."""
        return TRAIT[self.cards[iid]]

    def select(self, p: int, zone: int, wanted: CardFilter) -> list[int]:
        """The cards of p's DECK, HAND or DISCARD that `wanted` accepts, in zone order."""
        ok = _MATCHING.get(wanted) or _accepted(wanted)
        cards = (self.decks, self.hands, self.discards)[zone][p]
        return list(compress(cards, map(ok.__contains__, map(self.cards.__getitem__, cards))))

    def holds(self, p: int, zone: int, wanted: CardFilter, iid: int = -1) -> bool:
        """Whether p's zone holds a card `wanted` accepts (`iid`, if given), without listing."""
        ok = _MATCHING.get(wanted) or _accepted(wanted)
        cards = (self.decks, self.hands, self.discards)[zone][p]
        if iid < 0:
            return any(map(ok.__contains__, map(self.cards.__getitem__, cards)))
        return iid in cards and self.cards[iid] in ok

    def damage_count(self, iid: int) -> int:
        """How many damage cards are attached to a character in play."""
        p, s = self.slot_of(iid)
        return len(self.dmg[p][s])

    # --- mutations used by rules and effects ----------------------------------------------

    def gain_mp(self, p: int, n: int) -> None:
        """Gain MP up to the cap of 10; overflow is lost."""
        self.mp[p] = min(MAX_MP, self.mp[p] + n)

    def lose_mp(self, p: int, n: int) -> None:
        """Lose n MP, down to 0."""
        self.mp[p] = max(0, self.mp[p] - n)

    def _lose(self, p: int) -> None:
        if not self.over:
            self.over = True
            self.win = 1 - p
            self.stack.clear()

    def _won(self, p: int) -> None:
        if not self.over:
            self.over = True
            self.win = p
            self.stack.clear()

    def check_deck(self, p: int) -> None:
        """A player whose deck is empty loses at once."""
        if not self.decks[p]:
            self._lose(p)

    def draw(self, p: int, n: int = 1) -> None:
        """Draw n cards, top first; a player whose deck is (or becomes) empty loses at once."""
        if self.over or n <= 0:
            return
        deck = self.decks[p]
        if n == 1 and deck:
            self.hands[p].append(deck.pop())
        else:
            k = min(n, len(deck))
            if k:
                self.hands[p] += deck[: -k - 1 : -1]
                del deck[-k:]
        if not deck:
            self._lose(p)

    def mill(self, p: int, n: int) -> None:
        """Top n cards of p's deck to p's discard pile."""
        deck = self.decks[p]
        for _ in range(n):
            if self.over or not deck:
                return
            self.discards[p].append(deck.pop())
            if not deck:
                self._lose(p)

    def score_vp(self, p: int) -> None:
        """p scores a VP: the top card of the opponent's deck goes face down to p's VP pile."""
        deck = self.decks[1 - p]
        if deck:
            self.vps[p].append(deck.pop())
        if len(self.vps[p]) >= VP_TO_WIN:
            self._won(p)
        elif not deck:
            self._lose(1 - p)

    def discard_at_random(self, p: int, n: int) -> None:
        """p discards n cards from their hand (each picked by the PRNG), fewer if it empties."""
        hand = self.hands[p]
        for _ in range(n):
            if not hand:
                return
            self.discards[p].append(hand.pop(self.prng.below(len(hand))))

    def set_pushed(self, iid: int, pushed: bool) -> None:
        """Push (or prep) a character in play."""
        p, s = self.slot_of(iid)
        self.pushed[p][s] = int(pushed)

    def move(self, iid: int, p: int, source: int, dest: int) -> None:
        """Move a card from p's `source` zone to p's `dest` zone (a deck: to the bottom)."""
        zones = (self.decks, self.hands, self.discards)
        zones[source][p].remove(iid)
        if dest == DECK:
            self.decks[p].insert(0, iid)
        else:
            zones[dest][p].append(iid)

    def shuffle_deck(self, p: int) -> None:
        """Shuffle p's deck; p loses at once if it is empty."""
        self.prng.shuffle(self.decks[p])
        self.check_deck(p)

    def modify_stat(self, iid: int, stat: int, n: int) -> None:
        """A stat modifier until end of turn (only on a stat the character has)."""
        if iid < 0 or (iid not in self.chars[0] and iid not in self.chars[1]):
            return
        p, s = self.slot_of(iid)
        if CSTATS[self.cards[iid]][stat]:
            self.mods[p][s * 3 + stat] += n

    def remove_damage(self, iid: int, n: int) -> None:
        """Remove the n most recently attached damage cards to their owners' discard piles."""
        if iid < 0 or (iid not in self.chars[0] and iid not in self.chars[1]):
            return
        p, s = self.slot_of(iid)
        dmg = self.dmg[p][s]
        for _ in range(min(n, len(dmg))):
            card = dmg.pop()
            self.discards[self.owner[card]].append(card)

    def ko(self, iid: int) -> None:
        """KO a character: it and its attached damage go to their owners' discard piles."""
        p, s = self.slot_of(iid)
        self.chars[p][s] = -1
        self.pushed[p][s] = 0
        self.entered[p][s] = 0
        for k in range(3):
            self.mods[p][s * 3 + k] = 0
        for card in self.dmg[p][s]:
            self.discards[self.owner[card]].append(card)
        self.dmg[p][s] = []
        self.discards[self.owner[iid]].append(iid)

    def check_ko(self, iid: int) -> bool:
        """KO a character if its damage meets HP KO or TKO; return whether it was KO'd."""
        p, s = self.slot_of(iid)
        dmg = self.dmg[p][s]
        if not dmg:
            return False
        cards = self.cards
        cid = cards[iid]
        stats = self.stats_at(p, s)
        total = 0
        for d in dmg:
            total += RANK[cards[d]]
        if total >= max(stats) + HP_EXTRA[cid]:
            self.ko(iid)
            return True
        needed = (stats[0] > 0) + (stats[1] > 0) + (stats[2] > 0) + TKO_EXTRA[cid]
        if len(dmg) >= needed and _distinct_stats([BSTATS[cards[d]] for d in dmg]) >= needed:
            self.ko(iid)
            return True
        return False

    def ask(self, player: int, optional: bool) -> None:
        """Ask `player` to choose for the running effect (its frame goes just below); once the
        match is over, nothing is asked (ruleset 1 still pushed the prompt)."""
        if self.over and self.rev >= 2:
            return
        self.stack.append((P_CHOICE, player, int(optional)))

    # --- flow ----------------------------------------------------------------------------

    def start_effect(self, source: int, controller: int, target: int = -1) -> None:
        """Run the effect of the card instance `source` (pushes a frame; may suspend)."""
        cid = self.cards[source]
        frame = EffectFrame(cid, source, controller, 0, target, 0)
        effect = EFFECT[cid]
        assert effect is not None
        if run_effect(self, effect, frame):
            if not self.over:
                self.effect_done(frame)
        elif not self.over:
            # a step pushed a choice prompt: the frame waits just below it
            self.stack.insert(len(self.stack) - 1, frame)

    def settle(self) -> None:
        """Run effect frames on top of the stack until a decision is needed."""
        stack = self.stack
        while stack and not self.over:
            top = stack[-1]
            if type(top) is not EffectFrame:
                if top[0] != P_LINK_COST:
                    return
                stack.pop()
                self.link_team_attack(top[1])
                continue
            effect = EFFECT[top.effect]
            assert effect is not None
            if not run_effect(self, effect, top) or self.over:
                return
            stack.pop()
            self.effect_done(top)

    def link_team_attack(self, p: int) -> None:
        """The last declared attack, a team attack: p pays 5 MP per linking Character and
        pushes each (into the Battle Zone)."""
        a = self.attacks[-1]
        for link in (a[A_LINK1], a[A_LINK2]):
            if link >= 0:
                self.mp[p] -= LINK_COST
                self.pushed[p][self.chars[p].index(link)] = 1

    def effect_done(self, frame: EffectFrame) -> None:
        """An effect finished: an Event that caused it leaves play for its owner's discard."""
        src = frame.source
        if KIND[self.cards[src]] == EVENT:
            p = self.owner[src]
            if src in self.limbo[p]:
                self.limbo[p].remove(src)
                self.discards[p].append(src)

    def start_turn(self) -> None:
        """Prep step of the active player, then the planning prompt."""
        p = self.active
        self.pushed[p] = [0, 0, 0]
        self.played_char = False
        if self.turn != 1:
            self.draw(p)
            if self.over:
                return
        self.stack.append((P_PLANNING, p))

    def end_turn(self) -> None:
        """Battle cards in play go to their discards, modifiers end, the other player's turn."""
        for a in self.attacks if self.limbo[0] or self.limbo[1] else ():
            for card in (a[A_CARD], a[A_DCARD]):
                if card >= 0:
                    pl = self.owner[card]
                    if card in self.limbo[pl]:
                        self.limbo[pl].remove(card)
                        self.discards[pl].append(card)
        self.attacks = []
        self.mods = [[0] * 9, [0] * 9]
        self.active = 1 - self.active
        self.turn += 1
        self.start_turn()

    def damage_step(self) -> None:
        """Damage sub-step (active player orders defended battles), then Victory Points."""
        pending = [a for a in self.attacks if a[A_DEF] >= 0 and not a[A_DONE]]
        if len(pending) >= 2:
            self.stack.append((P_DAMAGE, self.active))
            return
        if pending:
            self.resolve_battle(pending[0])
            if self.over:
                return
        self.victory_points()

    def resolve_battle(self, a: list[int]) -> None:
        """A defended attack: a team attack may score a VP, then the battle cards trade damage."""
        a[A_DONE] = 1
        me = self.active
        lead, card, dfd, dcard = a[A_LEAD], a[A_CARD], a[A_DEF], a[A_DCARD]
        if a[A_LINK1] >= 0:
            stat = a[A_STAT]
            power = RANK[self.cards[card]]
            for link in (a[A_LINK1], a[A_LINK2]):
                if link >= 0 and (link in self.chars[me]):
                    power += self.stats(link)[stat]
            dstats = self.stats(dfd)
            dcid = self.cards[dcard]
            dpower = RANK[dcid] + max(dstats[k] for k in BSTATS[dcid])
            if power >= dpower:
                self.score_vp(me)
                if self.over:
                    return
        # trade damage: each battle card is attached to the opposing character
        self.limbo[self.owner[card]].remove(card)
        self.limbo[self.owner[dcard]].remove(dcard)
        pd, sd = self.slot_of(dfd)
        self.dmg[pd][sd].append(card)
        pl, sl = self.slot_of(lead)
        self.dmg[pl][sl].append(dcard)
        self.check_ko(dfd)
        self.check_ko(lead)

    def victory_points(self) -> None:
        """Each undefended attack scores a VP; then the turn ends."""
        me = self.active
        for a in self.attacks:
            if a[A_DEF] < 0 and not a[A_DONE]:
                a[A_DONE] = 1
                card = a[A_CARD]
                self.score_vp(me)
                self.limbo[me].remove(card)
                self.discards[me].append(card)
                if self.over:
                    return
        self.end_turn()


def _distinct_stats(card_stats: list[tuple[int, ...]]) -> int:
    """Maximum number of different stats covered, each card counting for one of its stats."""
    singles = 0
    multis: list[tuple[int, ...]] = []
    for st in card_stats:
        if len(st) == 1:
            singles |= 1 << st[0]
        else:
            multis.append(st)
    best = bin(singles).count("1")
    if not multis or best == 3:
        return best
    # tiny bipartite matching over the three stats
    match: dict[int, int] = {}

    def augment(i: int, seen: set[int]) -> bool:
        for k in multis[i]:
            if singles >> k & 1 or k in seen:
                continue
            seen.add(k)
            if k not in match or augment(match[k], seen):
                match[k] = i
                return True
        return False

    for i in range(len(multis)):
        augment(i, set())
    return best + len(match)
