"""What a WISH match looks like from outside: its JSON, its hash, what each player sees, labels."""

from __future__ import annotations

from typing import Any, Self

from engine.core.actions import Action
from engine.core.effects import EffectFrame
from engine.core.prng import Prng
from engine.core.projection import resolve_move
from engine.core.state import Viewer, pack_ints, pack_prng
from engine.metaversus.cards import CARDS
from engine.metaversus.moves import WishRules
from engine.metaversus.state import PHASE_NAMES, PROMPT_NAMES, SETUP, SOURCE_NAMES


def _hex(cards: list[int]) -> str:
    """A zone as a hex string, one byte per card number (compact and fast to hash)."""
    return bytes(cards).hex()


def _unhex(text: str) -> list[int]:
    return list(bytes.fromhex(text))


#: the label of each action that names nothing
_FIXED_LABELS = {
    "wish": "take a Wishing Star (skip to the Discard Phase)",
    "skill": "cast the character's skill",
}


class WishState(WishRules):
    """A WISH match: the rules of state.py and moves.py, with their encodings."""

    __slots__ = ()

    def to_json(self) -> dict[str, Any]:
        """The whole state: card numbers (zones as hex strings, a byte per card), PRNG, prompt stack;
        `rev`, the ruleset revision, only when it is not 1 (ruleset 1 states encode as they did)."""
        data = {
            "rng": self.rng.get_state(),
            "t": [
                self.phase,
                self.active,
                self.first,
                self.turn,
                self.max_rounds,
                self.ap,
                self.gems,
                self.buys,
                self.bought,
                self.pool,
                self.wbonus,
                self.discount,
                self.played,
                self.wplayed,
                self.skill_turn,
                int(self.zero),
                int(self.over),
                self.win,
                *self.hp,
                *self.maxhp,
                *self.stars,
                *self.uses,
                *self.char,
            ],
            "zones": [
                _hex(zone[q])
                for zone in (self.hand, self.deck, self.disc, self.play, self.removed, self.pile)
                for q in (0, 1)
            ],
            "neutral": _hex(self.neutral),
            "market": bytes([c + 1 for c in self.m_card] + self.m_stock + self.m_src).hex(),
            "stack": [[-1, *e.to_json()] if isinstance(e, EffectFrame) else e for e in self.stack],
            "setup": [
                _hex(self.sel[0]),
                _hex(self.sel[1]),
                self.bans,
                self.chosen,
                _hex(self.picks[0]),
                _hex(self.picks[1]),
            ],
        }
        if self.rev != 1:
            data["rev"] = self.rev
        return data

    def hash_bytes(self) -> bytes:
        """The compact encoding `state_hash` digests (the same information as `to_json`).

        Layout: the PRNG words; then as int64s: the 28 values of `to_json()["t"]` in that
        order, the lengths of the hand, deck, discard, play, removed and character-pile lists
        (player 0 then 1 for each), of the neutral pile and of the two selection hands and
        pick lists, the Market's cards, stock and sources (each list as its length then its
        values), the bans and chosen packs, the stack size and each stack entry as its length
        then its ints (an effect frame as -1 then its six fields); then the card numbers of
        those zones, in that order, one byte each (card numbers are below 256); last, the ruleset
        revision as an int64 when it is not 1.
        """
        hand, deck, disc, play, rem, pile = (
            self.hand,
            self.deck,
            self.disc,
            self.play,
            self.removed,
            self.pile,
        )
        h0, h1 = hand
        d0, d1 = deck
        x0, x1 = disc
        p0, p1 = play
        r0, r1 = rem
        q0, q1 = pile
        s0, s1 = self.sel
        k0, k1 = self.picks
        nt, mc, ms, mr = self.neutral, self.m_card, self.m_stock, self.m_src
        flat = [
            self.phase, self.active, self.first, self.turn, self.max_rounds, self.ap, self.gems,
            self.buys, self.bought, self.pool, self.wbonus, self.discount, self.played,
            self.wplayed, self.skill_turn, self.zero, self.over, self.win,
            *self.hp, *self.maxhp, *self.stars, *self.uses, *self.char,
            len(h0), len(h1), len(d0), len(d1), len(x0), len(x1), len(p0), len(p1), len(r0),
            len(r1), len(q0), len(q1), len(nt), len(s0), len(s1), len(k0), len(k1),
            len(mc), *mc, len(ms), *ms, len(mr), *mr, *self.bans, *self.chosen,
            len(self.stack),
        ]  # fmt: skip
        for e in self.stack:
            if isinstance(e, EffectFrame):
                flat += (7, -1, *e.to_json())
            else:
                flat.append(len(e))
                flat += e
        cards = bytes(
            [*h0, *h1, *d0, *d1, *x0, *x1, *p0, *p1, *r0, *r1, *q0, *q1, *nt, *s0, *s1, *k0, *k1]
        )
        out = pack_prng(self.rng.get_state()) + pack_ints(flat) + cards
        return out if self.rev == 1 else out + pack_ints((self.rev,))

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Self:
        """Rebuild a state from `to_json()` output."""
        s = cls.__new__(cls)
        s.rev = int(data.get("rev", 1))
        s.rng = Prng.from_state(data["rng"])
        t = [int(x) for x in data["t"]]
        (
            s.phase,
            s.active,
            s.first,
            s.turn,
            s.max_rounds,
            s.ap,
            s.gems,
            s.buys,
            s.bought,
            s.pool,
            s.wbonus,
            s.discount,
            s.played,
            s.wplayed,
            s.skill_turn,
        ) = t[:15]
        s.zero = bool(t[15])
        s.over = bool(t[16])
        s.win = t[17]

        s.hp, s.maxhp, s.stars, s.uses, s.char = t[18:20], t[20:22], t[22:24], t[24:26], t[26:28]
        z = [_unhex(x) for x in data["zones"]]
        s.hand, s.deck, s.disc = [z[0], z[1]], [z[2], z[3]], [z[4], z[5]]
        s.play, s.removed, s.pile = [z[6], z[7]], [z[8], z[9]], [z[10], z[11]]
        s.neutral = _unhex(data["neutral"])
        m = _unhex(data["market"])
        k = len(m) // 3
        s.m_card = [c - 1 for c in m[:k]]
        s.m_stock = m[k : 2 * k]
        s.m_src = m[2 * k :]
        s.stack = [
            EffectFrame.from_json([int(x) for x in e[1:]]) if e[0] == -1 else [int(x) for x in e]
            for e in data["stack"]
        ]
        sel0, sel1, bans, chosen, picks0, picks1 = data["setup"]
        s.sel = [_unhex(sel0), _unhex(sel1)]
        s.bans = [int(x) for x in bans]
        s.chosen = [int(x) for x in chosen]
        s.picks = [_unhex(picks0), _unhex(picks1)]
        return s

    def label(self, action: Action) -> str:
        """The referee's description of an action (for transcripts and the CLI)."""
        k, a = action.kind, action.args
        if k == "play" and len(a) == 2 and 0 <= a[0] < CARDS.n:
            return f"play {CARDS.names[a[0]]}{'+' if a[1] else ''}"
        if k in ("buy", "gain") and a and 0 <= a[0] < len(self.m_card) and self.m_card[a[0]] >= 0:
            return f"{k} {CARDS.names[self.m_card[a[0]]]} (slot {a[0]}, {self.price(a[0])} Gems)"
        if k in ("select", "ban", "choose", "pick") and a and 0 <= a[0] < CARDS.n:
            return f"{k} {CARDS.names[a[0]]}"
        if k == "next":
            return f"end the {PHASE_NAMES[self.phase]} phase"
        return _FIXED_LABELS.get(k) or " ".join([k, *map(str, a)])

    # ------------------------------------------------------------------ views

    def market_view(self) -> list[dict[str, Any]]:
        """The Market as public data: slot, card id, stock, price and source pile."""
        return [
            {
                "slot": s,
                "card": CARDS.ids[c] if c >= 0 else None,
                "stock": self.m_stock[s],
                "price": self.price(s) if c >= 0 else None,
                "source": SOURCE_NAMES[self.m_src[s]],
            }
            for s, c in enumerate(self.m_card)
        ]

    def observation(self, viewer: Viewer) -> dict[str, Any]:
        """What `viewer` sees (None: a spectator): its own hand; counts only for the other hand
        and every deck; a setup choice once both duelists have made it."""
        ids = CARDS.ids
        setup_done = self.phase != SETUP
        top = self.stack[-1] if self.stack else None
        prompt: dict[str, Any] | None = None
        if isinstance(top, list):
            prompt = {"kind": PROMPT_NAMES[top[0]], "player": top[1]}
            if top[1] == viewer:
                prompt["args"] = top[2:]
        both_banned = self.bans[0] != -2 and self.bans[1] != -2
        me = -1 if viewer is None else viewer
        return {
            "game": self.game,
            "player": viewer,
            "phase": PHASE_NAMES[self.phase],
            "turn": self.turn,
            "active": self.active,
            "first": self.first if setup_done else None,
            "current_player": self.current_player,
            "over": self.over,
            "winner": self.winner,
            "characters": (
                [ids[k] for k in self.char]
                if self.char[0] >= 0
                else [ids[k] if k >= 0 and p == viewer else None for p, k in enumerate(self.chosen)]
            ),
            "hp": self.hp,
            "max_hp": self.maxhp,
            "stars": self.stars,
            "skill_uses_left": self.uses,
            "ap": self.ap,
            "gems": self.gems,
            "buys": self.buys,
            "bought": bool(self.bought),
            "combat_damage": self.pool,
            "hand": sorted(ids[c] for c in self.hand[me]) if me >= 0 else None,
            "hand_sizes": [len(self.hand[0]), len(self.hand[1])],
            "deck_sizes": [len(self.deck[0]), len(self.deck[1])],
            "discards": [[ids[c] for c in self.disc[p]] for p in (0, 1)],
            "play_areas": [[ids[c] for c in self.play[p]] for p in (0, 1)],
            "removed": [[ids[c] for c in self.removed[p]] for p in (0, 1)],
            "character_pile_sizes": [len(self.pile[0]), len(self.pile[1])],
            "neutral_pile_size": len(self.neutral),
            "market": self.market_view(),
            "prompt": prompt,
            "selection_hand": sorted(ids[k] for k in self.sel[me]) if me >= 0 else None,
            "selection_hand_sizes": [len(self.sel[0]), len(self.sel[1])],
            "bans": [ids[b] if b >= 0 else None for b in self.bans] if both_banned else None,
            "my_picks": [ids[c] for c in self.picks[me]] if me >= 0 else None,
        }

    def project(self, action: Action, viewer: Viewer) -> dict[str, Any]:
        """The log entry of `action` for `viewer`. Every card a duelist plays, buys, gains,
        removes or discards is shown to all; a ban, a character choice or a Market pick is
        secret from everyone but its maker until both duelists have made theirs (the
        observation shows them then), so the others read only that one was made."""
        if viewer == self.current_player:
            return {"label": self.label(action), "action": action.to_json()}
        secret = _SECRET_CHOICES.get(action.kind)
        if secret is not None:
            label, shown = secret
            return {"label": label, "action": shown}
        return {"label": self.label(action), "action": action.to_json()}

    def resolve(self, move: Any, viewer: int) -> Action:
        """The action `viewer` means by a move: WISH names cards by catalogue number and the
        Market by slot, the same for every reader, so this only checks the move's shape."""
        return resolve_move("metaversus", move, viewer)


#: the setup choices each duelist makes unseen: kind -> (label, action) for everyone else
_SECRET_CHOICES: dict[str, tuple[str, list[Any] | None]] = {
    "ban": ("decide on a ban (shown once both duelists have)", None),
    "noban": ("decide on a ban (shown once both duelists have)", None),
    "choose": ("choose a character (shown once both duelists have)", ["choose", None]),
    "pick": ("pick a Market card (shown once both duelists have)", ["pick", None]),
}
