"""The MetaMasters match state: zones, phases, battle, and the explicit prompt stack.

Every card in a match is an integer instance id (iid); per-iid facts live in flat lists and
per-player zones are lists of iids, so `clone()` is a handful of list copies. Decisions are
prompts on `self.prompts` (tuples `(kind, player, arg)`); automatic steps (damage calculation,
end of turn) sit on the same stack, so a state can be saved between any two choices.
"""

from __future__ import annotations

from typing import Any, ClassVar, Self

from engine.core.actions import Action
from engine.core.effects import EffectFrame, run_effect
from engine.core.errors import IllegalAction
from engine.core.prng import Prng
from engine.core.state import TERMINAL, GameState, pack_ints, pack_prng
from engine.metamasters.catalogue import (
    BY_ID,
    CARDS,
    K_ACTOR,
    K_LINK,
    K_SPECIAL,
    K_TOKEN,
    S_CONTINUOUS,
    S_NORMAL,
    T_OMEGA,
    T_SIGMA,
)

# Zones of a card instance.
Z_DECK, Z_HAND, Z_ACTOR, Z_LINK, Z_SPECIAL, Z_TRASH, Z_EXILE, Z_TOKEN = range(8)
ZONE_NAMES = ("deck", "hand", "actor", "link", "special", "trash", "exile", "token")

# Phases of a turn.
DRAW, STANDBY, MAIN1, BATTLE, MAIN2, END = range(6)
PHASE_NAMES = ("draw", "standby", "main1", "battle", "main2", "end")

# Prompt kinds: decisions (a player must act) and automatic steps.
P_MAIN, P_BATTLE, P_RESPONSE, P_TARGET = range(4)
S_DAMAGE, S_ENDTURN = 10, 11
PROMPT_NAMES = {
    P_MAIN: "main",
    P_BATTLE: "battle",
    P_RESPONSE: "response",
    P_TARGET: "target",
    S_DAMAGE: "damage",
    S_ENDTURN: "end_turn",
}

ATTACK, DEFENSE = 0, 1
ACTOR_ZONES = 3
SPECIAL_ZONES = 3

_MAIN_KINDS = frozenset({"play", "set", "link", "activate", "flip", "position", "next"})
_BATTLE_KINDS = frozenset({"attack", "direct", "activate", "next"})
_RESPONSE_KINDS = frozenset({"activate", "pass"})
_TARGET_KINDS = frozenset({"target"})
_KINDS_BY_PROMPT = {
    P_MAIN: _MAIN_KINDS,
    P_BATTLE: _BATTLE_KINDS,
    P_RESPONSE: _RESPONSE_KINDS,
    P_TARGET: _TARGET_KINDS,
}
_ALL_KINDS = _MAIN_KINDS | _BATTLE_KINDS | _RESPONSE_KINDS | _TARGET_KINDS
_ARITY = {
    "play": (1, 2),
    "set": (1, 2),
    "link": (2, 2),
    "activate": (1, 1),
    "flip": (1, 1),
    "position": (1, 1),
    "next": (0, 0),
    "attack": (2, 2),
    "direct": (1, 1),
    "pass": (0, 0),
    "target": (1, 1),
}

_PER_IID_FIELD = (
    "faceup",
    "pos",
    "set_at",
    "ego_mod",
    "int_mod",
    "attacked",
    "bonus_atk",
    "pos_changed",
    "pos_revert",
    "host",
)
_PER_PLAYER = ("hand", "deck", "actors", "specials", "links", "trash", "exile", "tokens")
_ZONE_OF_LIST = (
    (Z_HAND, "hand"),
    (Z_DECK, "deck"),
    (Z_ACTOR, "actors"),
    (Z_SPECIAL, "specials"),
    (Z_LINK, "links"),
    (Z_TRASH, "trash"),
    (Z_EXILE, "exile"),
    (Z_TOKEN, "tokens"),
)
_SCALARS = (
    "turn",
    "active",
    "phase",
    "first",
    "plays_used",
    "extra_plays",
    "links_used",
    "atk_a",
    "atk_t",
    "atk_neg",
    "win",
    "over",
)

Err = tuple[str, str] | None

_IDS_CACHE: dict[tuple[int, ...], str] = {}


def _card_ids(cid: tuple[int, ...]) -> str:
    """Card ids of a match's instances, comma-separated (cached: clones share `cid`)."""
    ids = _IDS_CACHE.get(cid)
    if ids is None:
        if len(_IDS_CACHE) > 256:
            _IDS_CACHE.clear()
        ids = _IDS_CACHE[cid] = ",".join(CARDS[i].id for i in cid)
    return ids


#: id(cid) -> (cid, owner, their packed bytes); the entry holds cid, so the id stays its own
_STATIC_CACHE: dict[int, tuple[tuple[int, ...], tuple[int, ...], bytes]] = {}


def _static_bytes(cid: tuple[int, ...], owner: tuple[int, ...]) -> bytes:
    """The per-match tables (card and owner of each instance) packed once and shared by clones."""
    hit = _STATIC_CACHE.get(id(cid))
    if hit is None or hit[0] is not cid or hit[1] is not owner:
        if len(_STATIC_CACHE) > 256:
            _STATIC_CACHE.clear()
        hit = _STATIC_CACHE[id(cid)] = (cid, owner, pack_ints((len(cid), *cid, *owner)))
    return hit[2]


class MetaMastersState(GameState):
    """A MetaMasters match in progress (see the module docstring for the layout)."""

    game: ClassVar[str] = "metamasters"
    Z_HAND: ClassVar[int] = Z_HAND
    Z_ACTOR: ClassVar[int] = Z_ACTOR
    Z_SPECIAL: ClassVar[int] = Z_SPECIAL
    Z_TRASH: ClassVar[int] = Z_TRASH
    Z_EXILE: ClassVar[int] = Z_EXILE

    __slots__ = (
        "active",
        "actors",
        "atk_a",
        "atk_neg",
        "atk_t",
        "attacked",
        "bonus_atk",
        "cid",
        "deck",
        "ego_mod",
        "exile",
        "extra_plays",
        "faceup",
        "first",
        "hand",
        "host",
        "int_mod",
        "links",
        "links_used",
        "over",
        "owner",
        "phase",
        "plays_used",
        "pos",
        "pos_changed",
        "pos_revert",
        "prng",
        "prompts",
        "set_at",
        "specials",
        "tokens",
        "trash",
        "turn",
        "win",
        "zone",
    )

    def __init__(self, cid: tuple[int, ...], owner: tuple[int, ...], prng: Prng) -> None:
        n = len(cid)
        #: catalogue index of each instance (shared between clones: never mutated)
        self.cid = cid
        #: owning player of each instance (shared between clones: never mutated)
        self.owner = owner
        self.prng = prng
        self.zone = [Z_DECK] * n
        self.faceup = [0] * n
        self.pos = [ATTACK] * n
        #: turn * 8 + phase when the card was last placed on the field (face-down)
        self.set_at = [-1] * n
        self.ego_mod = [0] * n
        self.int_mod = [0] * n
        self.attacked = [0] * n
        self.bonus_atk = [0] * n
        self.pos_changed = [0] * n
        self.pos_revert = [0] * n
        #: for a Link on the field: the Actor it is attached to
        self.host = [-1] * n
        self.hand: list[list[int]] = [[], []]
        #: the top of a deck is its last element
        self.deck: list[list[int]] = [[], []]
        self.actors: list[list[int]] = [[-1] * ACTOR_ZONES, [-1] * ACTOR_ZONES]
        self.specials: list[list[int]] = [[-1] * SPECIAL_ZONES, [-1] * SPECIAL_ZONES]
        self.links: list[list[int]] = [[], []]
        self.trash: list[list[int]] = [[], []]
        self.exile: list[list[int]] = [[], []]
        self.tokens: list[list[int]] = [[], []]
        self.turn = 1
        self.active = 0
        self.phase = DRAW
        self.first = 0
        self.plays_used = 0
        self.extra_plays = 0
        self.links_used = 0
        self.atk_a = -1
        self.atk_t = -1
        self.atk_neg = 0
        self.win = -1
        self.over = False
        self.prompts: list[tuple[int, int, int]] = []

    # ------------------------------------------------------------------ interface

    @property
    def current_player(self) -> int:
        """The player who must act now, or TERMINAL."""
        if self.over or not self.prompts:
            return TERMINAL
        return self.prompts[-1][1]

    @property
    def is_over(self) -> bool:
        """Whether the match has ended."""
        return self.over

    @property
    def winner(self) -> int | None:
        """The winner once over (MetaMasters has no draws)."""
        return self.win if self.over and self.win >= 0 else None

    def clone(self) -> Self:
        """An independent copy by list copies."""
        c = object.__new__(type(self))
        c.cid = self.cid
        c.owner = self.owner
        c.prng = self.prng.clone()
        c.zone = self.zone[:]
        c.faceup = self.faceup[:]
        c.pos = self.pos[:]
        c.set_at = self.set_at[:]
        c.ego_mod = self.ego_mod[:]
        c.int_mod = self.int_mod[:]
        c.attacked = self.attacked[:]
        c.bonus_atk = self.bonus_atk[:]
        c.pos_changed = self.pos_changed[:]
        c.pos_revert = self.pos_revert[:]
        c.host = self.host[:]
        c.hand = [self.hand[0][:], self.hand[1][:]]
        c.deck = [self.deck[0][:], self.deck[1][:]]
        c.actors = [self.actors[0][:], self.actors[1][:]]
        c.specials = [self.specials[0][:], self.specials[1][:]]
        c.links = [self.links[0][:], self.links[1][:]]
        c.trash = [self.trash[0][:], self.trash[1][:]]
        c.exile = [self.exile[0][:], self.exile[1][:]]
        c.tokens = [self.tokens[0][:], self.tokens[1][:]]
        c.turn = self.turn
        c.active = self.active
        c.phase = self.phase
        c.first = self.first
        c.plays_used = self.plays_used
        c.extra_plays = self.extra_plays
        c.links_used = self.links_used
        c.atk_a = self.atk_a
        c.atk_t = self.atk_t
        c.atk_neg = self.atk_neg
        c.win = self.win
        c.over = self.over
        c.prompts = self.prompts[:]
        return c

    def to_json(self) -> dict[str, Any]:
        """The whole state as JSON-able data.

        Per-instance facts are written only for cards on the field: every card that leaves the
        field is reset to the defaults, and `zone` is implied by the zone lists.
        """
        on_field = [
            i
            for i in (*self.actors[0], *self.actors[1], *self.specials[0], *self.specials[1])
            if i >= 0
        ]
        on_field += self.links[0]
        on_field += self.links[1]
        on_field.sort()
        f, po, sa, em, im = self.faceup, self.pos, self.set_at, self.ego_mod, self.int_mod
        at, ba, pc, pr, ho = (
            self.attacked,
            self.bonus_atk,
            self.pos_changed,
            self.pos_revert,
            self.host,
        )
        return {
            "game": "metamasters",
            "cards": _card_ids(self.cid),
            "player1_from": self.owner.index(1) if 1 in self.owner else len(self.owner),
            "prng": self.prng.get_state(),
            "prompts": [list(p) for p in self.prompts],
            # per instance on the field: iid, then the values named by _PER_IID_FIELD
            "field": [
                [i, f[i], po[i], sa[i], em[i], im[i], at[i], ba[i], pc[i], pr[i], ho[i]]
                for i in on_field
            ],
            # per player: the zone lists named by _PER_PLAYER, in that order
            "zones": [[getattr(self, name)[q][:] for name in _PER_PLAYER] for q in (0, 1)],
            # the values named by _SCALARS, in that order
            "scalars": [
                self.turn,
                self.active,
                self.phase,
                self.first,
                self.plays_used,
                self.extra_plays,
                self.links_used,
                self.atk_a,
                self.atk_t,
                self.atk_neg,
                self.win,
                int(self.over),
            ],
        }

    def hash_bytes(self) -> bytes:
        """The compact encoding `state_hash` digests (the same information as `to_json`).

        Layout, all int64s but the PRNG words: the number of instances, the catalogue index of
        each, the owner of each; the PRNG words; the 12 values of `_SCALARS` in that order; the
        number of prompts, each as its three ints; the number of cards on the field, each as
        its iid then the 10 values of `_PER_IID_FIELD`; then per player (0, then 1) the lists
        of `_PER_PLAYER`, each as its length then its ids.
        """
        a0, a1 = self.actors
        s0, s1 = self.specials
        l0, l1 = self.links
        on_field = [i for i in (*a0, *a1, *s0, *s1) if i >= 0]
        on_field += l0
        on_field += l1
        on_field.sort()
        prompts = self.prompts
        flat = [
            self.turn, self.active, self.phase, self.first, self.plays_used, self.extra_plays,
            self.links_used, self.atk_a, self.atk_t, self.atk_neg, self.win, self.over,
            len(prompts),
        ]  # fmt: skip
        for pr in prompts:
            flat += pr
        flat.append(len(on_field))
        f, po, sa, em, im = self.faceup, self.pos, self.set_at, self.ego_mod, self.int_mod
        at, ba, pc, pv, ho = (
            self.attacked,
            self.bonus_atk,
            self.pos_changed,
            self.pos_revert,
            self.host,
        )
        for i in on_field:
            flat += (i, f[i], po[i], sa[i], em[i], im[i], at[i], ba[i], pc[i], pv[i], ho[i])
        h0, h1 = self.hand
        d0, d1 = self.deck
        t0, t1 = self.trash
        e0, e1 = self.exile
        k0, k1 = self.tokens
        flat += (
            len(h0), *h0, len(d0), *d0, len(a0), *a0, len(s0), *s0, len(l0), *l0,
            len(t0), *t0, len(e0), *e0, len(k0), *k0,
            len(h1), *h1, len(d1), *d1, len(a1), *a1, len(s1), *s1, len(l1), *l1,
            len(t1), *t1, len(e1), *e1, len(k1), *k1,
        )  # fmt: skip
        return (
            _static_bytes(self.cid, self.owner) + pack_prng(self.prng.get_state()) + pack_ints(flat)
        )

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Self:
        """Rebuild a state from `to_json()` output."""
        if data.get("game") != "metamasters":
            raise ValueError("not a metamasters state")
        cid = tuple(BY_ID[c].index for c in data["cards"].split(","))
        n = len(cid)
        split = int(data["player1_from"])
        s = cls(cid, (0,) * split + (1,) * (n - split), Prng.from_state(data["prng"]))
        for name, zones0, zones1 in zip(_PER_PLAYER, *data["zones"], strict=True):
            setattr(s, name, [[int(v) for v in zones0], [int(v) for v in zones1]])
        for code, name in _ZONE_OF_LIST:
            for side in getattr(s, name):
                for i in side:
                    if i >= 0:
                        s.zone[i] = code
        for entry in data["field"]:
            i = int(entry[0])
            for name, value in zip(_PER_IID_FIELD, entry[1:], strict=True):
                getattr(s, name)[i] = int(value)
        for name, value in zip(_SCALARS, data["scalars"], strict=True):
            setattr(s, name, bool(value) if name == "over" else int(value))
        s.prompts = [(int(k), int(p), int(a)) for k, p, a in data["prompts"]]
        return s

    # ------------------------------------------------------------------ card facts

    def card(self, iid: int) -> str:
        """The catalogue id of an instance."""
        return CARDS[self.cid[iid]].id

    def on_field_actor(self, iid: int) -> bool:
        """Whether an instance is an Actor on the field."""
        return self.zone[iid] == Z_ACTOR

    def ego(self, iid: int) -> int:
        """The current EGO of an Actor: base, changes until end of turn, Links, ∞ auras."""
        c = CARDS[self.cid[iid]]
        return self._with_links(iid, c.base_ego + self.ego_mod[iid], 0)

    def intel(self, iid: int) -> int:
        """The current INT of an Actor (same sources as EGO)."""
        c = CARDS[self.cid[iid]]
        return self._with_links(iid, c.base_int + self.int_mod[iid], 1)

    def _with_links(self, iid: int, value: int, stat: int) -> int:
        """`value` plus the EGO (stat 0) or INT (stat 1) of the Links on `iid` and the ∞ auras."""
        o = self.owner[iid]
        cid = self.cid
        host = self.host
        for link in self.links[o]:
            if host[link] == iid:
                card = CARDS[cid[link]]
                value += card.link_int if stat else card.link_ego
        return value + self._aura(o, stat)

    def _aura(self, owner: int, stat: int) -> int:
        total = 0
        faceup = self.faceup
        cid = self.cid
        for q in (0, 1):
            for s in self.specials[q]:
                if s >= 0 and faceup[s]:
                    a = CARDS[cid[s]].aura
                    if a is not None and a[0] == stat and (a[2] == 0) == (q == owner):
                        total += a[1]
        return total

    # ------------------------------------------------------------------ moves used by effects

    def draw_card(self, p: int) -> bool:
        """Move the top card of p's deck to p's hand; False if the deck is empty."""
        deck = self.deck[p]
        if not deck:
            return False
        iid = deck.pop()
        self.hand[p].append(iid)
        self.zone[iid] = Z_HAND
        return True

    def mill(self, p: int, n: int) -> None:
        """Send the top n cards of p's deck to p's Trash."""
        deck = self.deck[p]
        for _ in range(min(n, len(deck))):
            iid = deck.pop()
            self.trash[p].append(iid)
            self.zone[iid] = Z_TRASH

    def search_deck(self, p: int, trait: str) -> None:
        """Move the first card with `trait` (from the top) of p's deck to hand, then shuffle."""
        deck = self.deck[p]
        cid = self.cid
        for i in range(len(deck) - 1, -1, -1):
            c = CARDS[cid[deck[i]]]
            if c.trait == trait and c.kind != K_TOKEN:
                iid = deck.pop(i)
                self.hand[p].append(iid)
                self.zone[iid] = Z_HAND
                break
        self.prng.shuffle(deck)

    def recover_from_trash(self, p: int, kind: int) -> None:
        """Move the last card of `kind` (0 = any but a Token) sent to p's Trash to p's hand."""
        trash = self.trash[p]
        cid = self.cid
        for i in range(len(trash) - 1, -1, -1):
            k = CARDS[cid[trash[i]]].kind
            if k != K_TOKEN and (kind == 0 or k == kind):
                iid = trash.pop(i)
                self.hand[p].append(iid)
                self.zone[iid] = Z_HAND
                return

    def discard_random(self, p: int, n: int) -> None:
        """p discards n cards chosen by the engine's PRNG."""
        hand = self.hand[p]
        for _ in range(min(n, len(hand))):
            iid = hand.pop(self.prng.below(len(hand)))
            self.trash[p].append(iid)
            self.zone[iid] = Z_TRASH

    def _reset(self, iid: int) -> None:
        self.faceup[iid] = 0
        self.pos[iid] = ATTACK
        self.set_at[iid] = -1
        self.ego_mod[iid] = 0
        self.int_mod[iid] = 0
        self.attacked[iid] = 0
        self.bonus_atk[iid] = 0
        self.pos_changed[iid] = 0
        self.pos_revert[iid] = 0
        self.host[iid] = -1

    def _put(self, iid: int, dest: int) -> None:
        o = self.owner[iid]
        self.zone[iid] = dest
        if dest == Z_TRASH:
            self.trash[o].append(iid)
        elif dest == Z_EXILE:
            self.exile[o].append(iid)
        elif dest == Z_HAND:
            self.hand[o].append(iid)
        else:  # pragma: no cover - programming error
            raise ValueError(f"cannot put a card into zone {dest}")

    def remove_actor(self, iid: int, dest: int) -> None:
        """An Actor leaves the field for `dest`; its Links go to their owner's Trash."""
        o = self.owner[iid]
        row = self.actors[o]
        row[row.index(iid)] = -1
        links = self.links[o]
        if links:
            keep = []
            for link in links:
                if self.host[link] == iid:
                    self._reset(link)
                    self._put(link, Z_TRASH)
                else:
                    keep.append(link)
            self.links[o] = keep
        self._reset(iid)
        self._put(iid, dest)

    def remove_special(self, iid: int) -> None:
        """A Special card leaves the field for its owner's Trash."""
        o = self.owner[iid]
        row = self.specials[o]
        row[row.index(iid)] = -1
        self._reset(iid)
        self._put(iid, Z_TRASH)

    def destroy_token(self, p: int) -> None:
        """Destroy one of p's Token cards (to Trash); p loses when the last one goes."""
        tokens = self.tokens[p]
        if tokens:
            iid = tokens.pop()
            self.trash[p].append(iid)
            self.zone[iid] = Z_TRASH
        if not tokens:
            self._finish(1 - p)

    def restore_token(self, p: int) -> None:
        """Return the last Token card sent to p's Trash to p's Tokens."""
        trash = self.trash[p]
        cid = self.cid
        for i in range(len(trash) - 1, -1, -1):
            if CARDS[cid[trash[i]]].kind == K_TOKEN:
                iid = trash.pop(i)
                self.tokens[p].append(iid)
                self.zone[iid] = Z_TOKEN
                return

    def _finish(self, winner: int) -> None:
        if not self.over:
            self.over = True
            self.win = winner
            self.prompts.clear()

    # ------------------------------------------------------------------ flow

    def _now(self) -> int:
        return self.turn * 8 + self.phase

    def can_respond(self, p: int) -> bool:
        """Whether p gets a response window now: p has a face-down Special not set in this phase.

        The window is offered for any face-down Special (not only » cards), so that being
        offered one never tells the opponent what kind of card is set.
        """
        now = self.turn * 8 + self.phase
        faceup = self.faceup
        set_at = self.set_at
        for s in self.specials[p]:  # noqa: SIM110 - a plain loop is faster on this hot path
            if s >= 0 and not faceup[s] and set_at[s] != now:
                return True
        return False

    def _window(self, p: int) -> None:
        # pushed only when usable now (same test as can_respond, inlined: this is the hot path);
        # settle() checks again when the window reaches the top of the stack
        now = self.turn * 8 + self.phase
        faceup = self.faceup
        set_at = self.set_at
        for s in self.specials[p]:
            if s >= 0 and not faceup[s] and set_at[s] != now:
                self.prompts.append((P_RESPONSE, p, 0))
                return

    def settle(self) -> None:
        """Run automatic steps and phase changes until a player must decide or the match ends."""
        prompts = self.prompts
        while not self.over:
            if not prompts:
                self.enter_phase(self.phase + 1)
                continue
            kind, player, _ = prompts[-1]
            if kind <= P_BATTLE or kind == P_TARGET:
                return
            if kind == P_RESPONSE:
                if self.can_respond(player):
                    return
                prompts.pop()
            elif kind == S_DAMAGE:
                prompts.pop()
                self._damage()
            else:
                prompts.pop()
                self._end_turn()

    def enter_phase(self, phase: int) -> None:
        """Begin `phase` of the active player's turn: its automatic part, then its prompts."""
        self.phase = phase
        a = self.active
        o = 1 - a
        push = self.prompts.append
        if phase == DRAW:
            if self.turn > 1 and not self.draw_card(a):
                self._finish(o)
                return
            self._window(o)
            self._window(a)
        elif phase == STANDBY:
            self._window(o)
            self._window(a)
        elif phase in (MAIN1, MAIN2):
            push((P_MAIN, a, 0))
            self._window(o)
        elif phase == BATTLE:
            # no Battle phase on the first turn; no prompt when the player could only end it
            if self.turn > 1:
                if self._can_attack(a) or self.can_respond(a):
                    push((P_BATTLE, a, 0))
                self._window(o)
        else:
            push((S_ENDTURN, a, 0))
            self._window(o)
            self._window(a)

    def _can_attack(self, p: int) -> bool:
        for i in self.actors[p]:
            if (
                i >= 0
                and self.faceup[i]
                and self.pos[i] == ATTACK
                and self.attacked[i] <= self.bonus_atk[i]
            ):
                return True
        return False

    def _end_turn(self) -> None:
        for p in (0, 1):
            for i in self.actors[p]:
                if i >= 0:
                    self.ego_mod[i] = 0
                    self.int_mod[i] = 0
                    self.attacked[i] = 0
                    self.bonus_atk[i] = 0
                    self.pos_changed[i] = 0
                    if self.pos_revert[i]:
                        self.pos[i] ^= 1
                        self.pos_revert[i] = 0
        self.turn += 1
        self.active ^= 1
        self.plays_used = 0
        self.extra_plays = 0
        self.links_used = 0
        self.enter_phase(DRAW)

    def start_effect(self, src: int, controller: int) -> None:
        """A card's effect activates: ask for its target if there is a choice, else resolve."""
        c = CARDS[self.cid[src]]
        if c.target is not None:
            cands = self.targets(c.target, controller)
            if len(cands) > 1:
                self.prompts.append((P_TARGET, controller, src))
                return
            self._resolve(src, controller, cands[0] if cands else -1)
        else:
            self._resolve(src, controller, -1)

    def targets(self, spec: str, controller: int) -> list[int]:
        """The instances a card's `target` spec may choose, in zone order."""
        if spec == "opp_actor":
            return [i for i in self.actors[1 - controller] if i >= 0]
        if spec == "own_actor":
            return [i for i in self.actors[controller] if i >= 0]
        return [i for i in self.specials[1 - controller] if i >= 0]

    def _resolve(self, src: int, controller: int, target: int) -> None:
        c = CARDS[self.cid[src]]
        if c.effect.steps:
            run_effect(self, c.effect, EffectFrame(c.index, src, controller, 0, target))
        if c.kind == K_SPECIAL and c.subtype != S_CONTINUOUS and self.zone[src] == Z_SPECIAL:
            self.remove_special(src)

    def _damage(self) -> None:
        a, t, negated = self.atk_a, self.atk_t, self.atk_neg
        self.atk_a = self.atk_t = -1
        self.atk_neg = 0
        if negated or self.zone[a] != Z_ACTOR or not self.faceup[a] or self.pos[a] != ATTACK:
            return
        if t < 0:
            if self.ego(a) > 0:
                self.destroy_token(1 - self.owner[a])
            return
        if self.zone[t] != Z_ACTOR:
            return
        ea = self.ego(a)
        if self.pos[t] == ATTACK:
            et = self.ego(t)
            if ea >= et:
                self.remove_actor(t, Z_TRASH)
            if et >= ea:
                self.remove_actor(a, Z_TRASH)
        else:
            it = self.intel(t)
            if it > ea:
                self.pos[a] = DEFENSE
                self.pos_revert[a] = 1
            elif ea > it:
                self.remove_actor(t, Z_TRASH)

    # ------------------------------------------------------------------ validation

    def _check(self, action: Action) -> Err:
        if self.over:
            return ("metamasters.match.over", "the match is over")
        kind = action.kind
        args = action.args
        if kind not in _ALL_KINDS:
            return ("metamasters.action.unknown", f"unknown action {kind!r}")
        lo, hi = _ARITY[kind]
        if not lo <= len(args) <= hi:
            return ("metamasters.action.args", f"{kind} takes {lo}..{hi} arguments")
        n = len(self.cid)
        for x in args:
            if not 0 <= x < n:
                return ("metamasters.action.card", f"no card instance {x}")
        pk, p, parg = self.prompts[-1]
        if kind not in _KINDS_BY_PROMPT[pk]:
            if kind in ("attack", "direct"):
                if self.turn == 1:
                    return (
                        "metamasters.battle.first_turn",
                        "there is no Battle phase on the first turn of the match",
                    )
                return ("metamasters.battle.phase", "attacks are declared in your Battle phase")
            if kind in _MAIN_KINDS and kind != "next":
                return ("metamasters.phase.main", f"{kind} is done in your Main phases")
            return (
                "metamasters.prompt.unexpected",
                f"{kind} does not answer the {PROMPT_NAMES[pk]} prompt",
            )
        if not args:  # next, pass: nothing more to check
            return None
        if kind == "play":
            return self._check_actor(p, args)
        if kind == "set":
            return self._check_set(p, args)
        if kind == "link":
            return self._check_link(p, args[0], args[1])
        if kind == "activate":
            return self._check_activate(p, args[0], pk)
        if kind == "flip" or kind == "position":
            return self._check_position(p, args[0], kind == "flip")
        if kind == "attack" or kind == "direct":
            return self._check_attack(p, args)
        if kind == "target":
            c = CARDS[self.cid[parg]]
            if c.target is None or args[0] not in self.targets(c.target, p):
                return ("metamasters.target.invalid", "not a target this effect may choose")
        return None

    def _in_hand(self, p: int, iid: int) -> Err:
        if self.zone[iid] != Z_HAND or self.owner[iid] != p:
            return ("metamasters.card.not_in_hand", "that card is not in your hand")
        return None

    def _check_actor(self, p: int, args: tuple[int, ...]) -> Err:
        iid = args[0]
        err = self._in_hand(p, iid)
        if err:
            return err
        c = CARDS[self.cid[iid]]
        if c.kind != K_ACTOR:
            if c.kind == K_LINK:
                return (
                    "metamasters.link.attach",
                    "a Link is played by attaching it to one of your Actors",
                )
            return (
                "metamasters.special.activate",
                "a Special card is activated or set, not played",
            )
        if self.plays_used >= 1 + self.extra_plays:
            return (
                "metamasters.actor.one_per_turn",
                "you already played an Actor from your hand this turn",
            )
        if c.subtype == T_OMEGA:
            if len(args) != 2:
                return (
                    "metamasters.actor.omega_tribute",
                    "an Ω Actor needs one of your Actors sent to Trash",
                )
            t = args[1]
            if self.zone[t] != Z_ACTOR or self.owner[t] != p:
                return (
                    "metamasters.actor.omega_tribute",
                    "the tribute must be one of your Actors on the field",
                )
        else:
            if len(args) != 1:
                return ("metamasters.actor.no_tribute", "only Ω Actors take a tribute")
            if -1 not in self.actors[p]:
                return ("metamasters.zone.actors_full", "all three of your Actor zones are filled")
        if c.subtype == T_SIGMA:
            for key, value in c.condition:
                if not self._condition(p, key, value):
                    return (
                        "metamasters.actor.sigma_condition",
                        f"{c.name} needs {key.replace('_', ' ')} {value}",
                    )
        return None

    def _condition(self, p: int, key: str, value: int) -> bool:
        if key == "trash_at_least":
            return len(self.trash[p]) >= value
        if key == "actors_at_least":
            return sum(1 for i in self.actors[p] if i >= 0) >= value
        if key == "tokens_at_most":
            return len(self.tokens[p]) <= value
        return sum(1 for i in self.actors[1 - p] if i >= 0) >= value

    def _check_set(self, p: int, args: tuple[int, ...]) -> Err:
        iid = args[0]
        err = self._in_hand(p, iid)
        if err:
            return err
        c = CARDS[self.cid[iid]]
        if c.kind == K_ACTOR:
            return self._check_actor(p, args)
        if c.kind == K_LINK:
            return ("metamasters.link.cannot_set", "Link cards cannot be set")
        if len(args) != 1:
            return ("metamasters.action.args", "set takes one card")
        if -1 not in self.specials[p]:
            return ("metamasters.zone.specials_full", "all three of your Special zones are filled")
        return None

    def _check_link(self, p: int, iid: int, host: int) -> Err:
        err = self._in_hand(p, iid)
        if err:
            return err
        if CARDS[self.cid[iid]].kind != K_LINK:
            return ("metamasters.link.not_link", "only Link cards attach to Actors")
        if self.links_used >= 1:
            return (
                "metamasters.link.one_per_turn",
                "you already played a Link from your hand this turn",
            )
        if self.zone[host] != Z_ACTOR or self.owner[host] != p:
            return ("metamasters.link.host", "a Link attaches to one of your Actors on the field")
        return None

    def _check_activate(self, p: int, iid: int, pk: int) -> Err:
        if self.owner[iid] != p:
            return ("metamasters.card.not_yours", "that card is not yours")
        c = CARDS[self.cid[iid]]
        z = self.zone[iid]
        if z == Z_HAND:
            if c.kind != K_SPECIAL:
                return ("metamasters.special.not_special", "only Special cards are activated")
            if pk != P_MAIN:
                return (
                    "metamasters.special.hand_main_phase",
                    "Special cards are activated from your hand in your Main phases",
                )
            if -1 not in self.specials[p]:
                return (
                    "metamasters.zone.specials_full",
                    "all three of your Special zones are filled",
                )
            return None
        if z != Z_SPECIAL:
            return (
                "metamasters.special.not_available",
                "that card is neither in your hand nor set on your field",
            )
        if self.faceup[iid]:
            return ("metamasters.special.already_active", "that Special card is already face-up")
        if c.subtype == S_NORMAL:
            if pk != P_MAIN:
                return (
                    "metamasters.special.main_phase",
                    "unmarked Special cards are activated in your Main phases",
                )
            if self.set_at[iid] // 8 == self.turn:
                return (
                    "metamasters.special.set_this_turn",
                    "an unmarked Special set this turn waits until your next turn",
                )
        elif c.subtype == S_CONTINUOUS:
            if pk != P_MAIN:
                return (
                    "metamasters.special.main_phase",
                    "∞ Special cards are activated in your Main phases",
                )
            if self.set_at[iid] == self._now():
                return (
                    "metamasters.special.same_phase",
                    "a set Special card cannot be activated in the phase it was set",
                )
        elif self.set_at[iid] == self._now():
            return (
                "metamasters.special.same_phase",
                "a set » card cannot be activated in the phase it was set",
            )
        return None

    def _check_position(self, p: int, iid: int, flip: bool) -> Err:
        if self.zone[iid] != Z_ACTOR or self.owner[iid] != p:
            return (
                "metamasters.position.not_your_actor",
                "that is not one of your Actors on the field",
            )
        if self.turn == 1:
            return (
                "metamasters.position.first_turn",
                "battle positions cannot change on the first turn of the match",
            )
        if flip:
            if self.faceup[iid]:
                return ("metamasters.position.face_up", "that Actor is already face-up")
            if self.set_at[iid] // 8 == self.turn:
                return (
                    "metamasters.position.set_this_turn",
                    "an Actor set this turn cannot be flipped this turn",
                )
        elif not self.faceup[iid]:
            return (
                "metamasters.position.face_down",
                "a set Actor changes position by being flipped",
            )
        if self.phase == MAIN2 and self.attacked[iid]:
            return (
                "metamasters.position.attacked",
                "in Main 2 only Actors that did not attack change position",
            )
        if self.pos_changed[iid] or self.pos_revert[iid]:
            return (
                "metamasters.position.once_per_turn",
                "that Actor's battle position already changed this turn",
            )
        return None

    def _check_attack(self, p: int, args: tuple[int, ...]) -> Err:
        a = args[0]
        if self.zone[a] != Z_ACTOR or self.owner[a] != p:
            return (
                "metamasters.battle.attacker",
                "the attacker must be one of your Actors on the field",
            )
        if not self.faceup[a] or self.pos[a] != ATTACK:
            return ("metamasters.battle.attack_position", "only Actors in attack position attack")
        if self.attacked[a] >= 1 + self.bonus_atk[a]:
            return ("metamasters.battle.once", "that Actor has already attacked this turn")
        if len(args) == 2:
            t = args[1]
            if self.zone[t] != Z_ACTOR or self.owner[t] == p:
                return (
                    "metamasters.battle.target",
                    "the target must be an opponent Actor on the field",
                )
        elif any(i >= 0 for i in self.actors[1 - p]):
            return (
                "metamasters.battle.direct_blocked",
                "the opponent has an Actor: attack it first",
            )
        return None

    # ------------------------------------------------------------------ applying

    def apply(self, action: Action) -> None:
        """Validate (cheaply, without listing legal actions) and apply one action."""
        kind, args = action
        if not args and not self.over:
            # the most frequent actions: end a phase, close a response window
            top = self.prompts[-1][0]
            if top == P_RESPONSE if kind == "pass" else (kind == "next" and top <= P_BATTLE):
                self.prompts.pop()
                self.settle()
                return
        err = self._check(action)
        if err is not None:
            raise IllegalAction(err[0], err[1])
        self._do(action)
        self.settle()

    def _do(self, action: Action) -> None:
        kind = action.kind
        args = action.args
        if not args:  # next, pass
            self.prompts.pop()
            return
        pk, p, parg = self.prompts[-1]
        o = 1 - p
        if kind == "target":
            self.prompts.pop()
            self._resolve(parg, p, args[0])
            return
        active_turn = pk in (P_MAIN, P_BATTLE)
        iid = args[0]
        if kind == "attack" or kind == "direct":
            self.attacked[iid] += 1
            self.atk_a = iid
            self.atk_t = args[1] if kind == "attack" else -1
            self.atk_neg = 0
            self.prompts.append((S_DAMAGE, p, 0))
            self._window(o)
            t = self.atk_t
            if t >= 0 and not self.faceup[t]:
                self.faceup[t] = 1
                self.start_effect(t, o)
            return
        if active_turn:
            self._window(o)
        if kind == "play" or (kind == "set" and CARDS[self.cid[iid]].kind == K_ACTOR):
            self.hand[p].remove(iid)
            if len(args) == 2:
                self.remove_actor(args[1], Z_TRASH)
            row = self.actors[p]
            row[row.index(-1)] = iid
            self.zone[iid] = Z_ACTOR
            self.plays_used += 1
            if kind == "play":
                self.faceup[iid] = 1
                self.pos[iid] = ATTACK
                self.start_effect(iid, p)
            else:
                self.faceup[iid] = 0
                self.pos[iid] = DEFENSE
                self.set_at[iid] = self._now()
        elif kind == "set":
            self.hand[p].remove(iid)
            row = self.specials[p]
            row[row.index(-1)] = iid
            self.zone[iid] = Z_SPECIAL
            self.faceup[iid] = 0
            self.set_at[iid] = self._now()
        elif kind == "link":
            self.hand[p].remove(iid)
            self.links[p].append(iid)
            self.zone[iid] = Z_LINK
            self.faceup[iid] = 1
            self.host[iid] = args[1]
            self.links_used += 1
            self.start_effect(iid, p)
        elif kind == "activate":
            if self.zone[iid] == Z_HAND:
                self.hand[p].remove(iid)
                row = self.specials[p]
                row[row.index(-1)] = iid
                self.zone[iid] = Z_SPECIAL
            self.faceup[iid] = 1
            self.start_effect(iid, p)
        elif kind == "flip":
            self.faceup[iid] = 1
            self.pos[iid] = ATTACK
            self.pos_changed[iid] = 1
            self.start_effect(iid, p)
        elif kind == "position":
            self.pos[iid] ^= 1
            self.pos_changed[iid] = 1

    # ------------------------------------------------------------------ legal actions

    def legal_actions(self) -> list[Action]:
        """Every legal action of the current player, in a deterministic order."""
        if self.over or not self.prompts:
            return []
        pk, p, parg = self.prompts[-1]
        out: list[Action] = []
        # every candidate goes through apply's own validator, so the two can never disagree
        check = self._check
        if pk == P_TARGET:
            c = CARDS[self.cid[parg]]
            return [Action("target", (t,)) for t in self.targets(c.target or "", p)]
        if pk == P_RESPONSE:
            for s in self.specials[p]:
                if s >= 0 and check(Action("activate", (s,))) is None:
                    out.append(Action("activate", (s,)))
            out.append(Action("pass"))
            return out
        own = [i for i in self.actors[p] if i >= 0]
        if pk == P_BATTLE:
            opp = [i for i in self.actors[1 - p] if i >= 0]
            for a in own:
                if self._check_attack(p, (a,) if not opp else (a, opp[0])) is not None:
                    continue
                if opp:
                    out.extend(Action("attack", (a, t)) for t in opp)
                else:
                    out.append(Action("direct", (a,)))
            for s in self.specials[p]:
                if s >= 0 and check(Action("activate", (s,))) is None:
                    out.append(Action("activate", (s,)))
            out.append(Action("next"))
            return out
        for iid in self.hand[p]:
            c = CARDS[self.cid[iid]]
            if c.kind == K_ACTOR:
                for args in [(iid, t) for t in own] if c.subtype == T_OMEGA else [(iid,)]:
                    out.extend(
                        a for a in (Action("play", args), Action("set", args)) if check(a) is None
                    )
            elif c.kind == K_LINK:
                out.extend(a for a in (Action("link", (iid, h)) for h in own) if check(a) is None)
            elif c.kind == K_SPECIAL:
                out.extend(
                    a
                    for a in (Action("activate", (iid,)), Action("set", (iid,)))
                    if check(a) is None
                )
        for s in self.specials[p]:
            if s >= 0 and check(Action("activate", (s,))) is None:
                out.append(Action("activate", (s,)))
        for a in own:
            act = Action("flip" if not self.faceup[a] else "position", (a,))
            if check(act) is None:
                out.append(act)
        out.append(Action("next"))
        return out

    # ------------------------------------------------------------------ views

    def label(self, action: Action) -> str:
        """A readable description of an action."""
        args = action.args
        names = [self._name(x) for x in args]
        k = action.kind
        if k == "play":
            return f"play {names[0]}" + (f", sending {names[1]} to Trash" if len(args) == 2 else "")
        if k == "set":
            return f"set {names[0]} face-down" + (
                f", sending {names[1]} to Trash" if len(args) == 2 else ""
            )
        if k == "link":
            return f"attach {names[0]} to {names[1]}"
        if k == "activate":
            return f"activate {names[0]}"
        if k == "flip":
            return f"flip {names[0]} face-up"
        if k == "position":
            return f"change the battle position of {names[0]}"
        if k == "attack":
            return f"{names[0]} attacks {names[1]}"
        if k == "direct":
            return f"{names[0]} attacks directly"
        if k == "target":
            return f"target {names[0]}"
        if k == "next":
            return f"end {PHASE_NAMES[self.phase]}"
        return k

    def _name(self, iid: int) -> str:
        if not 0 <= iid < len(self.cid):
            return f"#{iid}"
        c = CARDS[self.cid[iid]]
        if (
            self.zone[iid] in (Z_ACTOR, Z_SPECIAL)
            and not self.faceup[iid]
            and self.owner[iid] != self.current_player
        ):
            return f"face-down card #{iid}"
        mark = f" {c.mark}" if c.mark else ""
        return f"{c.name}{mark} #{iid}"

    def observation(self, player: int) -> dict[str, Any]:
        """What `player` may see: no opponent hand, no deck order, no opponent face-down card."""
        cid = self.cid

        def actor(i: int, q: int) -> dict[str, Any] | None:
            if i < 0:
                return None
            view: dict[str, Any] = {
                "iid": i,
                "face_up": bool(self.faceup[i]),
                "position": "attack" if self.pos[i] == ATTACK else "defense",
            }
            if self.faceup[i] or q == player:
                view["card"] = CARDS[cid[i]].id
                view["ego"] = self.ego(i)
                view["int"] = self.intel(i)
            view["links"] = [
                {"iid": x, "card": CARDS[cid[x]].id} for x in self.links[q] if self.host[x] == i
            ]
            return view

        def special(i: int, q: int) -> dict[str, Any] | None:
            if i < 0:
                return None
            view: dict[str, Any] = {"iid": i, "face_up": bool(self.faceup[i])}
            if self.faceup[i] or q == player:
                view["card"] = CARDS[cid[i]].id
            return view

        sides = []
        for q in (0, 1):
            side: dict[str, Any] = {
                "deck": len(self.deck[q]),
                "hand_count": len(self.hand[q]),
                "actors": [actor(i, q) for i in self.actors[q]],
                "specials": [special(i, q) for i in self.specials[q]],
                "trash": [CARDS[cid[i]].id for i in self.trash[q]],
                "exile": [CARDS[cid[i]].id for i in self.exile[q]],
                "tokens": [CARDS[cid[i]].id for i in self.tokens[q]],
            }
            if q == player:
                side["hand"] = [{"iid": i, "card": CARDS[cid[i]].id} for i in self.hand[q]]
            sides.append(side)
        top = self.prompts[-1] if self.prompts else None
        return {
            "game": "metamasters",
            "player": player,
            "turn": self.turn,
            "active": self.active,
            "phase": PHASE_NAMES[self.phase],
            "current_player": self.current_player,
            "prompt": PROMPT_NAMES[top[0]] if top else None,
            "attack": None if self.atk_a < 0 else {"attacker": self.atk_a, "target": self.atk_t},
            "over": self.over,
            "winner": self.winner,
            "players": sides,
        }
