"""What a MetaX match looks like from outside: its JSON, its hash, what each player sees, labels."""

from __future__ import annotations

from typing import Any, Self

from engine.core.actions import Action
from engine.core.effects import EffectFrame
from engine.core.prng import Prng
from engine.core.state import pack_ints, pack_prng
from engine.metax.cards import STAT_NAMES
from engine.metax.moves import MetaXRules
from engine.metax.state import MP, P_CHOICE, P_EFFECT, PROMPT_NAMES

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
                what = self.pending_choice()[2].prompt()
                return f"{what} {n(a[0]) if a[0] >= 0 else 'nothing'}"
            return f"chooses {a[0]}"
        return f"{k} {list(a)}"


def static_string(cards: list[int], owner: list[int]) -> str:
    """The per-match static tables (`MetaXBoard.static`): `cards` and `owner` as "cid.owner"
    pairs joined by commas (-1 for an unused id)."""
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
