"""The MetaX match state: zones as lists of instance ids, an explicit prompt stack.

Instance ids (iid) number the physical cards of a match; `cards[iid]` is the card number (cid)
and `owner[iid]` its owner; both lists never change during a match and are shared by clones.
Decks are stored bottom-first (the top card is the last element).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Self

from engine.core.actions import Action
from engine.core.effects import EffectFrame, resume_effect, run_effect
from engine.core.errors import IllegalAction, ReplayRejected
from engine.core.prng import Prng
from engine.core.state import TERMINAL, GameState, pack_ints, pack_prng
from engine.metax.cards import (
    BATTLE,
    BONUS,
    BSTATS,
    CHARACTER,
    CONTINUOUS,
    CSTATS,
    EFFECT,
    EFFECT_KIND,
    EVENT,
    HP_EXTRA,
    KIND,
    MP,
    NAME,
    ON_ATTACK,
    ON_DEFENSE,
    PLAYED,
    PUSH,
    RANK,
    STAT_NAMES,
    TKO_EXTRA,
    TRAIT,
)
from engine.metax.ops import Choice

MAX_MP = 10
MAX_CHARACTERS = 3
HAND_SIZE = 5
VP_TO_WIN = 7
LINK_COST = 5

# prompt kinds (first element of a prompt tuple; the second is the deciding player)
P_FIRST, P_MULLIGAN, P_ORDER, P_PLANNING, P_ATTACKS, P_DEFENSE, P_DAMAGE, P_CHOICE = range(8)
P_EFFECT = 8  # an EffectFrame on the stack (never the top of a settled state)
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


#: static string -> the start of `hash_bytes` (its length, then its bytes), built once per match
_STATIC_PREFIX: dict[str, bytes] = {}


def _illegal(rule: str, message: str) -> IllegalAction:
    return IllegalAction("metax." + rule, message)


class MetaXState(GameState):
    """A MetaX match. `apply` validates an action without building the legal-action list."""

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
        "over",
        "owner",
        "played_char",
        "prng",
        "pushed",
        "stack",
        "static",
        "turn",
        "vps",
        "win",
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
    over: bool
    win: int
    attacks: list[list[int]]
    stack: list[Any]
    prng: Prng
    #: the per-match static tables (card number and owner of each instance) as one string,
    #: computed once and shared by clones: serialising ints is what makes a hash expensive
    static: str

    # --- construction -------------------------------------------------------------------

    @classmethod
    def empty(
        cls, cards: list[int], owner: list[int], prng: Prng, static: str | None = None
    ) -> MetaXState:
        """A state with no card anywhere yet (builders fill the zones)."""
        s = cls.__new__(cls)
        s.cards = cards
        s.owner = owner
        s.static = _static(cards, owner) if static is None else static
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

    def clone(self) -> Self:
        """An independent copy: list copies, no deepcopy; card tables are shared."""
        s = self.__class__.__new__(self.__class__)
        s.cards = self.cards
        s.owner = self.owner
        s.static = self.static
        s.decks = [self.decks[0][:], self.decks[1][:]]
        s.hands = [self.hands[0][:], self.hands[1][:]]
        s.discards = [self.discards[0][:], self.discards[1][:]]
        s.vps = [self.vps[0][:], self.vps[1][:]]
        s.limbo = [self.limbo[0][:], self.limbo[1][:]]
        s.chars = [self.chars[0][:], self.chars[1][:]]
        s.pushed = [self.pushed[0][:], self.pushed[1][:]]
        s.entered = [self.entered[0][:], self.entered[1][:]]
        d0, d1 = self.dmg
        s.dmg = [[d0[0][:], d0[1][:], d0[2][:]], [d1[0][:], d1[1][:], d1[2][:]]]
        s.mods = [self.mods[0][:], self.mods[1][:]]
        s.mp = self.mp[:]
        s.turn = self.turn
        s.active = self.active
        s.first = self.first
        s.played_char = self.played_char
        s.over = self.over
        s.win = self.win
        s.attacks = [a[:] for a in self.attacks]
        s.stack = [x.clone() if type(x) is EffectFrame else x for x in self.stack]
        s.prng = self.prng.clone()
        return s

    # --- serialisation ------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        """The whole state (card numbers by instance, zones, prompt stack, PRNG)."""
        return {
            "static": self.static,
            "decks": self.decks,
            "hands": self.hands,
            "discards": self.discards,
            "vps": self.vps,
            "limbo": self.limbo,
            "chars": self.chars,
            "pushed": self.pushed,
            "entered": self.entered,
            "dmg": self.dmg,
            "mods": self.mods,
            "mp": self.mp,
            "turn": self.turn,
            "active": self.active,
            "first": self.first,
            "played_char": self.played_char,
            "over": self.over,
            "win": self.win,
            "attacks": self.attacks,
            "stack": [
                [P_EFFECT, *x.to_json()] if type(x) is EffectFrame else list(x) for x in self.stack
            ],
            "prng": self.prng.get_state(),
        }

    def hash_bytes(self) -> bytes:
        """The compact encoding `state_hash` digests (the same information as `to_json`).

        Layout: the length of the static string, then its ASCII bytes; the PRNG words; then as
        int64s: turn, active, first, played_char, over, win, mp[2], chars, pushed, entered (3
        per player each), mods (9 per player); the decks, hands, discards, VP piles, limbo
        (player 0 then 1) and the six damage piles, each as its length then its ids; the
        number of attacks, each as its length then its fields; the stack size, each entry as
        its length then its ints (an effect frame as P_EFFECT then its six fields).
        """
        d, h, di, v, li, dm = self.decks, self.hands, self.discards, self.vps, self.limbo, self.dmg
        d0, d1 = d
        h0, h1 = h
        di0, di1 = di
        v0, v1 = v
        l0, l1 = li
        (m0, m1, m2), (m3, m4, m5) = dm
        c, pu, en, mo = self.chars, self.pushed, self.entered, self.mods
        flat = [
            self.turn, self.active, self.first, self.played_char, self.over, self.win, *self.mp,
            *c[0], *c[1], *pu[0], *pu[1], *en[0], *en[1], *mo[0], *mo[1],
            len(d0), *d0, len(d1), *d1, len(h0), *h0, len(h1), *h1,
            len(di0), *di0, len(di1), *di1, len(v0), *v0, len(v1), *v1, len(l0), *l0, len(l1), *l1,
            len(m0), *m0, len(m1), *m1, len(m2), *m2, len(m3), *m3, len(m4), *m4, len(m5), *m5,
            len(self.attacks),
        ]  # fmt: skip
        for a in self.attacks:
            flat.append(len(a))
            flat += a
        stack = self.stack
        flat.append(len(stack))
        for x in stack:
            if type(x) is EffectFrame:
                flat += (7, P_EFFECT, *x.to_json())
            else:
                flat.append(len(x))
                flat += x
        prefix = _STATIC_PREFIX.get(self.static)
        if prefix is None:
            if len(_STATIC_PREFIX) > 256:
                _STATIC_PREFIX.clear()
            static = self.static.encode()
            prefix = _STATIC_PREFIX[self.static] = pack_ints((len(static),)) + static
        return prefix + pack_prng(self.prng.get_state()) + pack_ints(flat)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Self:
        """Rebuild a state from `to_json()` output."""
        s = cls.__new__(cls)
        s.cards, s.owner = _parse_static(data["static"])
        s.static = data["static"]
        for key in (
            "decks",
            "hands",
            "discards",
            "vps",
            "limbo",
            "chars",
            "pushed",
            "entered",
            "mods",
        ):
            setattr(s, key, [list(data[key][0]), list(data[key][1])])
        s.dmg = [[list(x) for x in data["dmg"][0]], [list(x) for x in data["dmg"][1]]]
        s.mp = list(data["mp"])
        s.turn = int(data["turn"])
        s.active = int(data["active"])
        s.first = int(data["first"])
        s.played_char = bool(data["played_char"])
        s.over = bool(data["over"])
        s.win = int(data["win"])
        s.attacks = [list(a) for a in data["attacks"]]
        s.stack = [
            EffectFrame.from_json(x[1:]) if x[0] == P_EFFECT else tuple(x) for x in data["stack"]
        ]
        s.prng = Prng.from_state(data["prng"])
        return s

    def observation(self, player: int) -> dict[str, Any]:
        """What `player` sees: public zones, own hand; never the opponent's hand or deck order."""
        cid = self.cards

        def side(p: int) -> dict[str, Any]:
            return {
                "mp": self.mp[p],
                "deck_count": len(self.decks[p]),
                "hand_count": len(self.hands[p]),
                "hand": [[i, cid[i]] for i in self.hands[p]] if p == player else None,
                "discard": [[i, cid[i]] for i in self.discards[p]],
                "vp_count": len(self.vps[p]),
                "in_play": [[i, cid[i]] for i in self.limbo[p]],
                "characters": [
                    None
                    if c < 0
                    else {
                        "iid": c,
                        "card": cid[c],
                        "pushed": bool(self.pushed[p][s]),
                        "entered_this_turn": self.entered[p][s] == self.turn,
                        "damage": [[i, cid[i]] for i in self.dmg[p][s]],
                        "stats": list(self.stats(c)),
                    }
                    for s, c in enumerate(self.chars[p])
                ],
            }

        top = self.stack[-1] if self.stack and not self.over else None
        obs: dict[str, Any] = {
            "game": "metax",
            "player": player,
            "turn": self.turn,
            "active": self.active,
            "first": self.first,
            "current_player": self.current_player,
            "prompt": PROMPT_NAMES[top[0]] if top is not None else None,
            "over": self.over,
            "winner": self.winner,
            "players": [side(0), side(1)],
            "attacks": [list(a) for a in self.attacks],
        }
        if top is not None and self.current_player == player:
            obs["legal_actions"] = [a.to_json() for a in self.legal_actions()]
        return obs

    # --- GameState interface -------------------------------------------------------------

    @property
    def current_player(self) -> int:
        """The player who must act now, or TERMINAL."""
        if self.over:
            return TERMINAL
        return int(self.stack[-1][1])

    @property
    def is_over(self) -> bool:
        """Whether the match has ended."""
        return self.over

    @property
    def winner(self) -> int | None:
        """The winner once over (MetaX has no draws)."""
        return self.win if self.over and self.win >= 0 else None

    def legal_actions(self) -> list[Action]:
        """Every legal action of the current player, in a deterministic order."""
        if self.over:
            return []
        top = self.stack[-1]
        kind = top[0]
        p = top[1]
        if kind == P_PLANNING:
            return self._planning_actions(p)
        if kind == P_ATTACKS:
            return self._attack_actions(p)
        if kind == P_DEFENSE:
            out = self._defense_actions(p)
            out.append(Action("end_defense"))
            return out
        if kind == P_CHOICE:
            frame = self.stack[-2]
            step = self.pending_choice()
            acts = [Action("choose", (c,)) for c in step.candidates(self, frame)]
            if step.optional:
                acts.append(Action("choose", (-1,)))
            return acts
        if kind == P_DAMAGE:
            return [
                Action("resolve", (a[A_LEAD],))
                for a in self.attacks
                if a[A_DEF] >= 0 and not a[A_DONE]
            ]
        if kind == P_ORDER:
            return [Action("bottom", (i,)) for i in self.hands[p]]
        if kind == P_MULLIGAN:
            return [Action("keep"), Action("mulligan")]
        return [Action("first_player", (0,)), Action("first_player", (1,))]

    def apply(self, action: Action) -> None:
        """Apply an action; IllegalAction (naming the rule) leaves the state unchanged."""
        kind, args = action
        entry = _DISPATCH.get(kind)
        stack = self.stack
        if not stack:  # the stack is emptied exactly when the match ends
            raise _illegal("flow.game-over", "the match is over")
        if entry is None:
            raise _illegal("flow.unknown-action", f"unknown action kind {kind!r}")
        top = stack[-1]
        if top[0] != entry[1]:
            raise _illegal(
                "flow.not-now",
                f"{kind!r} is not possible now (waiting for {PROMPT_NAMES[top[0]]} from player {top[1]})",
            )
        if len(args) not in entry[2]:
            raise _illegal(
                "flow.arguments", f"{kind!r} takes {'/'.join(map(str, entry[2]))} argument(s)"
            )
        entry[0](self, top[1], *args)

    def apply_actions(self, actions: Sequence[Sequence[Any]], start: int, stop: int) -> None:
        """Replay's loop: `apply` for each of `actions[start:stop]` (transcript form), inlined.

        The same checks in the same order as `apply` (a test holds them equal), without
        building an `Action` per step; "end_planning" and "end_attacks" answering their own
        prompt run inline. ReplayRejected names the index of an illegal action.
        """
        dispatch = _DISPATCH
        for i, raw in enumerate(actions[start:stop], start):
            kind = raw[0]
            stack = self.stack
            try:
                if stack and len(raw) == 1:
                    # the two commonest actions (over 40%), when legal, exactly as their handlers
                    top = stack[-1]
                    if kind == "end_planning" and top[0] == P_PLANNING:
                        stack[-1] = (P_ATTACKS, top[1])
                        continue
                    if kind == "end_attacks" and top[0] == P_ATTACKS:
                        stack.pop()
                        self._after_attacks()
                        continue
                entry = dispatch.get(kind)
                if not stack:
                    raise _illegal("flow.game-over", "the match is over")
                if entry is None:
                    raise _illegal("flow.unknown-action", f"unknown action kind {kind!r}")
                top = stack[-1]
                if top[0] != entry[1]:
                    raise _illegal(
                        "flow.not-now",
                        f"{kind!r} is not possible now (waiting for {PROMPT_NAMES[top[0]]} from player {top[1]})",
                    )
                if len(raw) - 1 not in entry[2]:
                    raise _illegal(
                        "flow.arguments",
                        f"{kind!r} takes {'/'.join(map(str, entry[2]))} argument(s)",
                    )
                n = len(raw)
                if n == 1:
                    entry[0](self, top[1])
                elif n == 2:
                    entry[0](self, top[1], raw[1])
                elif n == 3:
                    entry[0](self, top[1], raw[1], raw[2])
                else:
                    entry[0](self, top[1], *raw[1:])
            except IllegalAction as exc:
                raise ReplayRejected(i, exc.rule, f"{list(raw)!r}: {exc.message}") from exc

    def label(self, action: Action) -> str:
        """A human-readable description of an action in this state."""
        try:
            return self._label(action)
        except (IndexError, KeyError, AssertionError):
            return f"{action.kind} {list(action.args)}"

    def _label(self, action: Action) -> str:
        k, a = action.kind, action.args
        n = self.name
        if k == "first_player":
            return f"player {a[0]} takes the first turn"
        if k == "keep":
            return "keeps the opening hand"
        if k == "mulligan":
            return "mulligans (five cards to the bottom, draws five)"
        if k == "bottom":
            return f"puts {n(a[0])} on the bottom of the deck"
        if k == "play_character":
            return f"plays {n(a[0])} (+{MP[self.cards[a[0]]]} MP)"
        if k == "play_event":
            return f"plays {n(a[0])} (pays {MP[self.cards[a[0]]]} MP)"
        if k == "push_effect":
            return f"pushes {n(a[0])} for its effect"
        if k == "end_planning":
            return "ends the planning step"
        if k == "attack":
            return f"attacks with {n(a[0])} playing {n(a[1])}"
        if k == "team_attack":
            links = " and ".join(n(x) for x in a[3:])
            return f"team attacks: {n(a[0])} leads with {n(a[1])} ({STAT_NAMES[a[2]]}), linking {links}"
        if k == "end_attacks":
            return "ends attack declarations"
        if k == "defend":
            return f"defends {n(a[1])}'s attack with {n(a[0])} playing {n(a[2])}"
        if k == "end_defense":
            return "assigns no more defenders"
        if k == "resolve":
            return f"resolves the battle of {n(a[0])}"
        if k == "choose":
            if self.stack and self.stack[-1][0] == P_CHOICE:
                what = self.pending_choice().prompt()
                return f"{what} {n(a[0]) if a[0] >= 0 else 'nothing'}"
            return f"chooses {a[0]}"
        return f"{k} {list(a)}"

    def pending_choice(self) -> Choice:
        """The effect step waiting for the choice prompt on top of the stack."""
        frame = self.stack[-2]
        effect = EFFECT[self.cards[frame.source]]
        assert effect is not None
        step = effect.steps[frame.step]
        assert isinstance(step, Choice)
        return step

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

    def can_play_battle_card(self, stats: Sequence[int], bc: int) -> bool:
        """Whether a character with these effective ranks meets one of the battle card's stats."""
        cid = self.cards[bc]
        r = RANK[cid]
        for k in BSTATS[cid]:  # noqa: SIM110 - a plain loop is faster than any() here
            if stats[k] >= r:
                return True
        return False

    def card_count(self) -> int:
        """Number of cards in all zones (conservation check)."""
        n = 0
        for p in (0, 1):
            n += len(self.decks[p]) + len(self.hands[p]) + len(self.discards[p]) + len(self.vps[p])
            n += len(self.limbo[p]) + sum(1 for c in self.chars[p] if c >= 0)
            n += sum(len(d) for d in self.dmg[p])
        return n

    # --- mutations used by rules and effects ----------------------------------------------

    def gain_mp(self, p: int, n: int) -> None:
        """Gain MP up to the cap of 10; overflow is lost."""
        self.mp[p] = min(MAX_MP, self.mp[p] + n)

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
        """Draw n cards (stops if the match ends)."""
        deck = self.decks[p]
        for _ in range(n):
            if self.over:
                return
            if not deck:
                self._lose(p)
                return
            self.hands[p].append(deck.pop())
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

    def push_choice(self, player: int, optional: bool) -> None:
        """Ask `player` to choose for the effect frame on top of the stack."""
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
                self._effect_done(frame)
        elif not self.over:
            # a step pushed a choice prompt: the frame waits just below it
            self.stack.insert(len(self.stack) - 1, frame)

    def _settle(self) -> None:
        """Run effect frames on top of the stack until a decision is needed."""
        stack = self.stack
        while stack and not self.over:
            top = stack[-1]
            if type(top) is not EffectFrame:
                return
            effect = EFFECT[top.effect]
            assert effect is not None
            if not run_effect(self, effect, top) or self.over:
                return
            stack.pop()
            self._effect_done(top)

    def _effect_done(self, frame: EffectFrame) -> None:
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
            if self.over:
                return
            deck = self.decks[p]  # draw(p), inlined: the turn's one card
            if not deck:
                self._lose(p)
                return
            self.hands[p].append(deck.pop())
            if not deck:
                self._lose(p)
                return
        self.stack.append((P_PLANNING, p))

    def _end_turn(self) -> None:
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

    def _after_attacks(self) -> None:
        if not self.attacks:
            self._end_turn()
            return
        self.stack.append((P_DEFENSE, 1 - self.active))

    def _damage(self) -> None:
        """Damage sub-step (active player orders defended battles), then Victory Points."""
        pending = [a for a in self.attacks if a[A_DEF] >= 0 and not a[A_DONE]]
        if len(pending) >= 2:
            self.stack.append((P_DAMAGE, self.active))
            return
        if pending:
            self._resolve_battle(pending[0])
            if self.over:
                return
        self._victory_points()

    def _resolve_battle(self, a: list[int]) -> None:
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

    def _victory_points(self) -> None:
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
        self._end_turn()

    # --- legal action generation ---------------------------------------------------------

    def _planning_actions(self, p: int) -> list[Action]:
        out: list[Action] = []
        cards = self.cards
        mp = self.mp[p]
        can_char = not self.played_char and -1 in self.chars[p]
        for iid in self.hands[p]:
            cid = cards[iid]
            k = KIND[cid]
            if k == CHARACTER:
                if can_char:
                    out.append(Action("play_character", (iid,)))
            elif k == EVENT and MP[cid] <= mp:
                out.append(Action("play_event", (iid,)))
        turn = self.turn
        for s, c in enumerate(self.chars[p]):
            if (
                c >= 0
                and not self.pushed[p][s]
                and self.entered[p][s] != turn
                and EFFECT_KIND[cards[c]] == PUSH
            ):
                out.append(Action("push_effect", (c,)))
        out.append(Action("end_planning"))
        return out

    def _attack_actions(self, p: int, first_only: bool = False) -> list[Action]:
        out: list[Action] = []
        cards = self.cards
        mp = self.mp[p]
        turn = self.turn
        ready = [
            c
            for s, c in enumerate(self.chars[p])
            if c >= 0 and not self.pushed[p][s] and self.entered[p][s] != turn
        ]
        if ready:
            bcs = [i for i in self.hands[p] if KIND[cards[i]] == BATTLE and mp + MP[cards[i]] >= 0]
            if bcs:
                stats = {c: self.stats(c) for c in ready}
                for c in ready:
                    st = stats[c]
                    for b in bcs:
                        cid = cards[b]
                        r = RANK[cid]
                        if any(st[k] >= r for k in BSTATS[cid]):
                            out.append(Action("attack", (c, b)))
                            if first_only:
                                return out
                if len(ready) >= 2:
                    self._team_actions(ready, bcs, stats, mp, out)
        if first_only:
            return out
        out.append(Action("end_attacks"))
        return out

    def _team_actions(
        self,
        ready: list[int],
        bcs: list[int],
        stats: dict[int, Sequence[int]],
        mp: int,
        out: list[Action],
    ) -> None:
        cards = self.cards
        for lead in ready:
            st = stats[lead]
            others = [c for c in ready if c != lead]
            for b in bcs:
                cid = cards[b]
                r = RANK[cid]
                if not any(st[k] >= r for k in BSTATS[cid]):
                    continue
                after = min(MAX_MP, mp + MP[cid]) if MP[cid] > 0 else mp + MP[cid]
                if after < LINK_COST:
                    continue
                for k in BSTATS[cid]:
                    sharers = [c for c in others if stats[c][k]]
                    for x in sharers:
                        out.append(Action("team_attack", (lead, b, k, x)))
                    if len(sharers) == 2 and after >= 2 * LINK_COST:
                        out.append(Action("team_attack", (lead, b, k, sharers[0], sharers[1])))

    def _defense_actions(self, p: int, first_only: bool = False) -> list[Action]:
        out: list[Action] = []
        open_attacks = [a[A_LEAD] for a in self.attacks if a[A_DEF] < 0]
        if not open_attacks:
            return out
        cards = self.cards
        mp = self.mp[p]
        bcs = [i for i in self.hands[p] if KIND[cards[i]] == BATTLE and mp + MP[cards[i]] >= 0]
        if not bcs:
            return out
        busy = {a[A_DEF] for a in self.attacks}
        for s, d in enumerate(self.chars[p]):
            if d < 0 or self.pushed[p][s] or d in busy:
                continue
            st = self.stats(d)
            playable = [b for b in bcs if any(st[k] >= RANK[cards[b]] for k in BSTATS[cards[b]])]
            for lead in open_attacks:
                for b in playable:
                    out.append(Action("defend", (d, lead, b)))
                    if first_only:
                        return out
        return out


def static_string(cards: list[int], owner: list[int]) -> str:
    """The serialised form of the per-match static tables (see `MetaXState.static`)."""
    return _static(cards, owner)


def _static(cards: list[int], owner: list[int]) -> str:
    """`cards` and `owner` as "cid.owner" pairs joined by commas (-1 for an unused id)."""
    return ",".join(f"{c}.{o}" for c, o in zip(cards, owner, strict=True))


def _parse_static(text: str) -> tuple[list[int], list[int]]:
    cards: list[int] = []
    owner: list[int] = []
    if text:
        for pair in text.split(","):
            c, o = pair.split(".")
            cards.append(int(c))
            owner.append(int(o))
    return cards, owner


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


# --- action handlers (validate first, then mutate) ------------------------------------------


def _first_player(st: MetaXState, p: int, who: int) -> None:
    if who not in (0, 1):
        raise _illegal("setup.first-player", "the first player is 0 or 1")
    st.stack.pop()
    st.first = who
    st.active = who
    st.stack.append((P_MULLIGAN, 1 - who))
    st.stack.append((P_MULLIGAN, who))


def _next_setup(st: MetaXState) -> None:
    if not st.stack:
        st.turn = 1
        st.start_turn()


def _keep(st: MetaXState, p: int) -> None:
    st.stack.pop()
    _next_setup(st)


def _mulligan(st: MetaXState, p: int) -> None:
    st.stack.pop()
    st.stack.append((P_ORDER, p))


def _bottom(st: MetaXState, p: int, iid: int) -> None:
    hand = st.hands[p]
    if iid not in hand:
        raise _illegal("setup.mulligan-order", f"{iid} is not one of the cards being put back")
    hand.remove(iid)
    st.decks[p].insert(0, iid)
    if len(hand) == 1:
        st.decks[p].insert(0, hand.pop())
    if not hand:
        st.stack.pop()
        st.draw(p, HAND_SIZE)
        if not st.over:
            _next_setup(st)


def _in_hand(st: MetaXState, p: int, iid: int, kind: int, rule: str, what: str) -> int:
    if iid not in st.hands[p]:
        raise _illegal(rule + ".not-in-hand", f"card {iid} is not in your hand")
    cid = st.cards[iid]
    if KIND[cid] != kind:
        raise _illegal(rule + ".wrong-kind", f"{NAME[cid]} is not {what}")
    return cid


def _play_character(st: MetaXState, p: int, iid: int) -> None:
    cid = _in_hand(st, p, iid, CHARACTER, "planning", "a Character")
    if st.played_char:
        raise _illegal(
            "planning.one-character-per-turn", "you already played a Character this turn"
        )
    slots = st.chars[p]
    if -1 not in slots:
        raise _illegal("planning.character-limit", "you already control three Characters")
    s = slots.index(-1)
    st.hands[p].remove(iid)
    slots[s] = iid
    st.pushed[p][s] = 0
    st.entered[p][s] = st.turn
    st.dmg[p][s] = []
    st.played_char = True
    st.gain_mp(p, MP[cid])
    if EFFECT_KIND[cid] == PLAYED:
        st.start_effect(iid, p)


def _play_event(st: MetaXState, p: int, iid: int) -> None:
    cid = _in_hand(st, p, iid, EVENT, "planning", "an Event")
    if MP[cid] > st.mp[p]:
        raise _illegal(
            "planning.event-cost", f"{NAME[cid]} costs {MP[cid]} MP; you have {st.mp[p]}"
        )
    st.hands[p].remove(iid)
    st.mp[p] -= MP[cid]
    st.limbo[p].append(iid)
    st.start_effect(iid, p)


def _own_character(st: MetaXState, p: int, iid: int, rule: str) -> int:
    if iid < 0 or iid not in st.chars[p]:
        raise _illegal(rule, f"{iid} is not a Character you control")
    return st.chars[p].index(iid)


def _push_effect(st: MetaXState, p: int, iid: int) -> None:
    s = _own_character(st, p, iid, "planning.not-your-character")
    cid = st.cards[iid]
    if EFFECT_KIND[cid] != PUSH:
        raise _illegal("planning.no-push-effect", f"{NAME[cid]} has no Push effect")
    if st.entered[p][s] == st.turn:
        raise _illegal("planning.push-entered-this-turn", f"{NAME[cid]} entered play this turn")
    if st.pushed[p][s]:
        raise _illegal("planning.push-already-pushed", f"{NAME[cid]} is already pushed")
    st.pushed[p][s] = 1
    st.start_effect(iid, p)


def _end_planning(st: MetaXState, p: int) -> None:
    st.stack[-1] = (P_ATTACKS, p)


def _check_attacker(st: MetaXState, p: int, c: int) -> int:
    s = _own_character(st, p, c, "battle.not-your-character")
    if st.entered[p][s] == st.turn:
        raise _illegal("battle.entered-this-turn", f"{st.name(c)} entered play this turn")
    if st.pushed[p][s]:
        raise _illegal("battle.attacker-pushed", f"{st.name(c)} is pushed")
    return s


def _check_battle_card(st: MetaXState, p: int, s: int, b: int) -> int:
    cid = _in_hand(st, p, b, BATTLE, "battle", "a Battle Card")
    c = st.chars[p][s]
    if not st.can_play_battle_card(st.stats_at(p, s), b):
        raise _illegal(
            "battle.stat-requirement",
            f"{st.name(c)} does not meet rank {RANK[cid]} in any stat of {NAME[cid]}",
        )
    if st.mp[p] + MP[cid] < 0:
        raise _illegal("battle.card-cost", f"{NAME[cid]} costs {-MP[cid]} MP; you have {st.mp[p]}")
    return cid


def _play_battle_card(st: MetaXState, p: int, b: int, cid: int) -> None:
    st.hands[p].remove(b)
    st.limbo[p].append(b)
    if MP[cid] > 0:
        st.gain_mp(p, MP[cid])
    else:
        st.mp[p] += MP[cid]


def _attack(st: MetaXState, p: int, c: int, b: int) -> None:
    s = _check_attacker(st, p, c)
    cid = _check_battle_card(st, p, s, b)
    st.pushed[p][s] = 1
    _play_battle_card(st, p, b, cid)
    st.attacks.append([c, b, -1, -1, -1, -1, -1, 0])
    if EFFECT[cid] is not None and EFFECT_KIND[cid] != ON_DEFENSE:
        st.start_effect(b, p, c)


def _team_attack(st: MetaXState, p: int, lead: int, b: int, stat: int, *links: int) -> None:
    s = _check_attacker(st, p, lead)
    cid = _check_battle_card(st, p, s, b)
    if stat not in BSTATS[cid]:
        raise _illegal(
            "battle.team-stat",
            f"{NAME[cid]} has no {STAT_NAMES[stat] if 0 <= stat < 3 else stat} stat",
        )
    if len(set(links)) != len(links) or lead in links:
        raise _illegal(
            "battle.team-links", "linking characters must be different from each other and the lead"
        )
    link_slots = []
    for x in links:
        link_slots.append(_check_attacker(st, p, x))
        if not st.stats(x)[stat]:
            raise _illegal(
                "battle.team-link-stat", f"{st.name(x)} does not share the {STAT_NAMES[stat]} stat"
            )
    after = min(MAX_MP, st.mp[p] + MP[cid]) if MP[cid] > 0 else st.mp[p] + MP[cid]
    if after < LINK_COST * len(links):
        raise _illegal(
            "battle.team-link-cost",
            f"linking {len(links)} character(s) costs {LINK_COST * len(links)} MP",
        )
    st.pushed[p][s] = 1
    _play_battle_card(st, p, b, cid)
    st.mp[p] -= LINK_COST * len(links)
    for ls in link_slots:
        st.pushed[p][ls] = 1
    st.attacks.append([lead, b, stat, links[0], links[1] if len(links) > 1 else -1, -1, -1, 0])
    if EFFECT[cid] is not None and EFFECT_KIND[cid] != ON_DEFENSE:
        st.start_effect(b, p, lead)


def _end_attacks(st: MetaXState, p: int) -> None:
    st.stack.pop()
    st._after_attacks()


def _defend(st: MetaXState, p: int, d: int, lead: int, b: int) -> None:
    s = _own_character(st, p, d, "battle.not-your-character")
    if st.pushed[p][s]:
        raise _illegal(
            "battle.defender-pushed", f"{st.name(d)} is pushed; only prepped characters defend"
        )
    attack = next((a for a in st.attacks if a[A_LEAD] == lead), None)
    if attack is None:
        raise _illegal("battle.no-such-attack", f"{lead} is not leading an attack")
    if attack[A_DEF] >= 0:
        raise _illegal(
            "battle.one-defender-per-attack", f"{st.name(lead)}'s attack is already defended"
        )
    if any(a[A_DEF] == d for a in st.attacks):
        raise _illegal("battle.defender-busy", f"{st.name(d)} is already defending")
    cid = _check_battle_card(st, p, s, b)
    _play_battle_card(st, p, b, cid)
    attack[A_DEF] = d
    attack[A_DCARD] = b
    if EFFECT[cid] is not None and EFFECT_KIND[cid] != ON_ATTACK:
        st.start_effect(b, p, d)


def _end_defense(st: MetaXState, p: int) -> None:
    st.stack.pop()
    st._damage()


def _resolve(st: MetaXState, p: int, lead: int) -> None:
    attack = next(
        (a for a in st.attacks if a[A_LEAD] == lead and a[A_DEF] >= 0 and not a[A_DONE]), None
    )
    if attack is None:
        raise _illegal("battle.no-such-battle", f"{lead} leads no unresolved defended attack")
    st.stack.pop()
    st._resolve_battle(attack)
    if not st.over:
        st._damage()


def _choose(st: MetaXState, p: int, iid: int) -> None:
    frame = st.stack[-2]
    effect = EFFECT[st.cards[frame.source]]
    assert effect is not None
    step = effect.steps[frame.step]
    assert isinstance(step, Choice)
    if iid == -1:
        if not step.optional:
            raise _illegal("choice.required", "this choice cannot be declined")
    elif not step.accepts(st, frame, iid):
        raise _illegal("choice.invalid", f"{iid} is not one of the choices")
    st.stack.pop()
    if resume_effect(st, effect, frame, iid) and not st.over:
        st.stack.pop()
        st._effect_done(frame)
    st._settle()


#: action kind -> (handler, the prompt kind it answers, accepted argument counts)
_DISPATCH: dict[str, tuple[Any, int, tuple[int, ...]]] = {
    "first_player": (_first_player, P_FIRST, (1,)),
    "keep": (_keep, P_MULLIGAN, (0,)),
    "mulligan": (_mulligan, P_MULLIGAN, (0,)),
    "bottom": (_bottom, P_ORDER, (1,)),
    "play_character": (_play_character, P_PLANNING, (1,)),
    "play_event": (_play_event, P_PLANNING, (1,)),
    "push_effect": (_push_effect, P_PLANNING, (1,)),
    "end_planning": (_end_planning, P_PLANNING, (0,)),
    "attack": (_attack, P_ATTACKS, (2,)),
    "team_attack": (_team_attack, P_ATTACKS, (4, 5)),
    "end_attacks": (_end_attacks, P_ATTACKS, (0,)),
    "defend": (_defend, P_DEFENSE, (3,)),
    "end_defense": (_end_defense, P_DEFENSE, (0,)),
    "resolve": (_resolve, P_DAMAGE, (1,)),
    "choose": (_choose, P_CHOICE, (1,)),
}

__all__ = ["CONTINUOUS", "MetaXState"]
