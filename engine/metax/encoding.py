"""What a MetaX match looks like from outside: its JSON, its hash, what each player sees, labels."""

from __future__ import annotations

from typing import Any, Self

from engine.core.actions import Action
from engine.core.effects import EffectFrame
from engine.core.prng import Prng
from engine.core.projection import Place, place, resolve_move
from engine.core.state import Viewer, pack_ints, pack_prng
from engine.metax.cards import STAT_NAMES
from engine.metax.effects import DECK, MoveChoice
from engine.metax.moves import MetaXRules
from engine.metax.state import (
    A_CARD,
    A_DCARD,
    A_DEF,
    A_DONE,
    A_LEAD,
    A_LINK1,
    A_LINK2,
    A_STAT,
    MP,
    P_CHOICE,
    P_EFFECT,
    PROMPT_NAMES,
)

#: for each action kind, the positions of its arguments that name a card
_CARD_ARGS: dict[str, tuple[int, ...]] = {
    "bottom": (0,),
    "play_character": (0,),
    "play_event": (0,),
    "push_effect": (0,),
    "attack": (0, 1),
    "team_attack": (0, 1, 3, 4),
    "defend": (0, 1, 2),
    "resolve": (0,),
    "choose": (0,),
}

#: static string -> the start of `hash_bytes` (its length, then its bytes), built once per match
_STATIC_PREFIX: dict[str, bytes] = {}


class MetaXState(MetaXRules):
    """A MetaX match: the rules of state.py and moves.py, with their encodings."""

    __slots__ = ()

    def to_json(self) -> dict[str, Any]:
        """The whole state (card numbers by instance, zones, prompt stack, PRNG); `rev`, the
        ruleset revision, only when it is not 1 (so ruleset 1 states encode as they did)."""
        data = {
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
        if self.rev != 1:
            data["rev"] = self.rev
        return data

    def hash_bytes(self) -> bytes:
        """The compact encoding `state_hash` digests (the same information as `to_json`).

        Layout: the length of the static string, then its ASCII bytes; the PRNG words; then as
        int64s: turn, active, first, played_char, over, win, mp[2], chars, pushed, entered (3
        per player each), mods (9 per player); the decks, hands, discards, VP piles, limbo
        (player 0 then 1) and the six damage piles, each as its length then its ids; the
        number of attacks, each as its length then its fields; the stack size, each entry as
        its length then its ints (an effect frame as P_EFFECT then its six fields); last, the
        ruleset revision when it is not 1.
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
        if self.rev != 1:
            flat.append(self.rev)
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
        s.rev = int(data.get("rev", 1))
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

    # --- what a reader sees (docs/engine.md, "What a reader sees") -------------------------

    def place(self, iid: int) -> str | None:
        """Where every reader sees a card: `q.character.s`, `q.character.s.damage.k`,
        `q.in-play.k` or `q.discard.k` (q the side of the table); None in a hand, a deck or
        a VP pile."""
        for q in (0, 1):
            chars = self.chars[q]
            if iid in chars:
                return place(q, "character", chars.index(iid))
            for s, dmg in enumerate(self.dmg[q]):
                if iid in dmg:
                    return place(q, "character", s, "damage", dmg.index(iid))
            if iid in self.limbo[q]:
                return place(q, "in-play", self.limbo[q].index(iid))
            if iid in self.discards[q]:
                return place(q, "discard", self.discards[q].index(iid))
        return None

    def card_at(self, where: Place) -> int:
        """The instance at a place (see `place`), or -1 if no card is seen there."""
        match where:
            case (int(q), "character", int(s)) if s < 3:
                return self.chars[q][s]
            case (int(q), "character", int(s), "damage", int(k)) if s < 3:
                return _at(self.dmg[q][s], k)
            case (int(q), "in-play", int(k)):
                return _at(self.limbo[q], k)
            case (int(q), "discard", int(k)):
                return _at(self.discards[q], k)
        return -1

    def public_id(self, iid: int, viewer: Viewer) -> int | str | None:
        """The id `viewer` knows a card by: its own cards' instance ids, any other card's place,
        None for a card hidden from the viewer (an int that is not a card stays as it is)."""
        if not 0 <= iid < len(self.cards) or self.owner[iid] == viewer:
            return iid
        return self.place(iid)

    def observation(self, viewer: Viewer) -> dict[str, Any]:
        """What `viewer` sees (None: a spectator): public zones and its own hand, cards by
        public id; never a hand but its own, a VP pile or a deck order."""
        cid = self.cards
        owner = self.owner

        def seen(zone: list[int], q: int, *path: str | int) -> list[list[Any]]:
            return [
                [i if owner[i] == viewer else place(q, *path, k), cid[i]]
                for k, i in enumerate(zone)
            ]

        def side(p: int) -> dict[str, Any]:
            return {
                "mp": self.mp[p],
                "deck_count": len(self.decks[p]),
                "hand_count": len(self.hands[p]),
                "hand": [[i, cid[i]] for i in self.hands[p]] if p == viewer else None,
                "discard": seen(self.discards[p], p, "discard"),
                "vp_count": len(self.vps[p]),
                "in_play": seen(self.limbo[p], p, "in-play"),
                "characters": [
                    None
                    if c < 0
                    else {
                        "id": c if owner[c] == viewer else place(p, "character", s),
                        "card": cid[c],
                        "pushed": bool(self.pushed[p][s]),
                        "entered_this_turn": self.entered[p][s] == self.turn,
                        "damage": seen(self.dmg[p][s], p, "character", s, "damage"),
                        "stats": list(self.stats(c)),
                    }
                    for s, c in enumerate(self.chars[p])
                ],
            }

        ref = self.public_id
        top = self.stack[-1] if self.stack and not self.over else None
        obs: dict[str, Any] = {
            "game": "metax",
            "player": viewer,
            "turn": self.turn,
            "active": self.active,
            "first": self.first,
            "current_player": self.current_player,
            "prompt": PROMPT_NAMES[top[0]] if top is not None else None,
            "over": self.over,
            "winner": self.winner,
            "players": [side(0), side(1)],
            "attacks": [
                {
                    "lead": ref(a[A_LEAD], viewer),
                    "card": ref(a[A_CARD], viewer),
                    "stat": STAT_NAMES[a[A_STAT]] if a[A_STAT] >= 0 else None,
                    "links": [ref(x, viewer) for x in (a[A_LINK1], a[A_LINK2]) if x >= 0],
                    "defender": ref(a[A_DEF], viewer) if a[A_DEF] >= 0 else None,
                    "defense_card": ref(a[A_DCARD], viewer) if a[A_DCARD] >= 0 else None,
                    "resolved": bool(a[A_DONE]),
                }
                for a in self.attacks
            ],
        }
        if top is not None and self.current_player == viewer:
            obs["legal_actions"] = [m["action"] for m in self.legal_moves(viewer)]
        return obs

    def project(self, action: Action, viewer: Viewer) -> dict[str, Any]:
        """The log entry of `action` for `viewer`: card arguments as the viewer's ids (null for a
        card it could not see); the acting player reads `label`, everyone else a label that
        names no hidden card (a card put on the bottom, a card found in a deck)."""
        kind, args = action.kind, action.args
        cards = _CARD_ARGS.get(kind, ())
        ref = self.public_id
        shown = [ref(a, viewer) if i in cards else a for i, a in enumerate(args)]
        try:  # (never `label`'s fallback, which prints instance ids)
            label = (
                self._label(action) if viewer == self.current_player else self._public_label(action)
            )
        except (IndexError, KeyError, AssertionError):
            label = kind
        return {"label": label, "action": [kind, *shown]}

    def resolve(self, move: Any, viewer: int) -> Action:
        """The action `viewer` means by a move in its ids (see `project`)."""
        return resolve_move("metax", move, viewer, _CARD_ARGS, self.owner, self.card_at)

    def _public_label(self, action: Action) -> str:
        """The label of the acting player's action for anyone else: as `label`, but a card that
        stays hidden is "a card"."""
        k, a = action.kind, action.args
        if k == "bottom":
            if len(self.hands[self.current_player]) == 2:
                return "puts the last two cards on the bottom of the deck"
            return "puts a card on the bottom of the deck"
        if k == "choose":
            if not (self.stack and self.stack[-1][0] == P_CHOICE):
                return "chooses"
            step = self.pending_choice()[2]
            if a[0] < 0:
                pick = "nothing"
            elif isinstance(step, MoveChoice) and step.source == DECK:
                pick = "a card"  # found in the chooser's deck: it goes to their hand unseen
            else:
                pick = self.name(a[0])
            return f'chooses {pick} for "{step.prompt().rstrip(":")}"'
        return self._label(action)

    def label(self, action: Action) -> str:
        """The referee's description of an action in this state (for transcripts and the CLI)."""
        try:
            return self._label(action)
        except (IndexError, KeyError, AssertionError):
            return f"{action.kind} {list(action.args)}"

    def _label(self, action: Action) -> str:
        k, a = action.kind, action.args
        fixed = _FIXED_LABELS.get(k)
        if fixed is not None:
            return fixed
        n = self.name
        if k == "first_player":
            return f"player {a[0]} takes the first turn"
        if k == "bottom":
            return f"puts {n(a[0])} on the bottom of the deck"
        if k == "play_character":
            return f"plays {n(a[0])} (+{MP[self.cards[a[0]]]} MP)"
        if k == "play_event":
            return f"plays {n(a[0])} (pays {MP[self.cards[a[0]]]} MP)"
        if k == "push_effect":
            return f"pushes {n(a[0])} for its effect"
        if k == "attack":
            return f"attacks with {n(a[0])} playing {n(a[1])}"
        if k == "team_attack":
            links = " and ".join(n(x) for x in a[3:])
            return f"team attacks: {n(a[0])} leads with {n(a[1])} ({STAT_NAMES[a[2]]}), linking {links}"
        if k == "defend":
            return f"defends {n(a[1])}'s attack with {n(a[0])} playing {n(a[2])}"
        if k == "resolve":
            return f"resolves the battle of {n(a[0])}"
        if k == "choose":
            if self.stack and self.stack[-1][0] == P_CHOICE:
                what = self.pending_choice()[2].prompt()
                return f"{what} {n(a[0]) if a[0] >= 0 else 'nothing'}"
            return f"chooses {a[0]}"
        return f"{k} {list(a)}"


#: the label of each action that names no card
_FIXED_LABELS = {
    "keep": "keeps the opening hand",
    "mulligan": "mulligans (five cards to the bottom, draws five)",
    "end_planning": "ends the planning step",
    "end_attacks": "ends attack declarations",
    "end_defense": "assigns no more defenders",
}


def _at(zone: list[int], k: int) -> int:
    """The card at index k of a zone, or -1."""
    return zone[k] if k < len(zone) else -1


def static_string(cards: list[int], owner: list[int]) -> str:
    """The per-match static tables (`MetaXBoard.static`): `cards` and `owner` as "cid.owner"
    pairs joined by commas (-1 for an unused id)."""
    pair = _PAIRS
    return ",".join([pair[c][o] for c, o in zip(cards, owner, strict=True)])


#: card number (-1: an unused id, the last row) -> owner -> "cid.owner", built once
_PAIRS = [[f"{c}.0", f"{c}.1"] for c in (*range(len(MP)), -1)]


def _parse_static(text: str) -> tuple[list[int], list[int]]:
    cards: list[int] = []
    owner: list[int] = []
    if text:
        for pair in text.split(","):
            c, o = pair.split(".")
            cards.append(int(c))
            owner.append(int(o))
    return cards, owner
