"""MetaX scenario positions (see docs/scenarios.md) and the flat view scenarios expect."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.core.prng import Prng
from engine.core.state import GameState
from engine.metax.cards import BATTLE, CARDS, CHARACTER
from engine.metax.effects import STATS
from engine.metax.encoding import MetaXState, static_string
from engine.metax.setup import REVISION
from engine.metax.state import P_ATTACKS, P_FIRST, P_PLANNING, PROMPT_NAMES


class _Builder:
    """Assigns instance ids to the cards of a scenario position."""

    def __init__(self, position: Mapping[str, Any]) -> None:
        self.explicit: set[int] = set()
        self._scan(position)
        self.next = 0
        self.slots: dict[int, tuple[int, int]] = {}

    def _scan(self, node: Any) -> None:
        if isinstance(node, dict):
            if "card" in node and "id" in node:
                iid = node["id"]
                if not isinstance(iid, int) or iid < 0 or iid in self.explicit:
                    raise ValueError(f"instance id {iid!r} must be a unique non-negative integer")
                self.explicit.add(iid)
            for v in node.values():
                self._scan(v)
        elif isinstance(node, list):
            for v in node:
                self._scan(v)

    def entry(self, raw: Any, default_owner: int) -> tuple[int, int, int]:
        """(iid, cid, owner) of a card entry: "CARD-ID" or {"card": ..., "id"?: n, "owner"?: p}."""
        if isinstance(raw, str):
            card_id, iid, owner = raw, None, default_owner
        elif isinstance(raw, dict) and isinstance(raw.get("card"), str):
            card_id, iid, owner = raw["card"], raw.get("id"), raw.get("owner", default_owner)
        else:
            raise ValueError(f"a card entry is a card id or {{'card': id, 'id': n}}, got {raw!r}")
        if card_id not in CARDS.cid:
            raise ValueError(f"unknown card {card_id!r}")
        if iid is None:
            while self.next in self.explicit:
                self.next += 1
            iid = self.next
            self.next += 1
        return iid, CARDS.cid[card_id], owner


def from_position(position: Mapping[str, Any], revision: int = REVISION) -> MetaXState:
    """Build a state from a scenario position (see docs/scenarios.md, MetaX) under ruleset
    `revision`."""
    b = _Builder(position)
    players = position.get("players")
    if not isinstance(players, list) or len(players) != 2:
        raise ValueError("position.players must be a list of two objects")
    placed: dict[int, tuple[int, int]] = {}

    def put(raw: Any, owner: int) -> int:
        iid, cid, own = b.entry(raw, owner)
        if iid in placed:
            raise ValueError(f"instance id {iid} used twice")
        placed[iid] = (cid, own)
        return iid

    zones: list[dict[str, Any]] = []
    for p, side in enumerate(players):
        z: dict[str, Any] = {}
        for key in ("deck", "hand", "discard", "vp"):
            z[key] = [put(x, p) for x in side.get(key, [])]
        chars: list[tuple[int, dict[str, Any], list[int]] | None] = []
        for c in side.get("characters", []):
            if c is None:
                chars.append(None)
                continue
            iid = put(c, p)
            damage = [put(d, 1 - p) for d in (c.get("damage", []) if isinstance(c, dict) else [])]
            chars.append((iid, c if isinstance(c, dict) else {}, damage))
        if len(chars) > 3:
            raise ValueError(f"player {p} has more than 3 characters")
        z["chars"] = chars
        zones.append(z)
    size = max(placed) + 1 if placed else 0
    cards = [-1] * size
    owner = [-1] * size
    for iid, (cid, own) in placed.items():
        cards[iid] = cid
        owner[iid] = own
    prng = Prng(int(position.get("seed", 0)))
    st = MetaXState.empty(cards, owner, prng, static_string(cards, owner), revision)
    st.turn = int(position.get("turn", 1))
    st.active = int(position.get("active", 0))
    st.first = int(position.get("first_player", st.active))
    st.played_char = bool(position.get("played_character", False))
    for p, z in enumerate(zones):
        st.decks[p] = list(reversed(z["deck"]))  # listed top first, stored bottom first
        st.hands[p] = z["hand"]
        st.discards[p] = z["discard"]
        st.vps[p] = z["vp"]
        st.mp[p] = int(players[p].get("mp", 0))
        if not 0 <= st.mp[p] <= 10:
            raise ValueError("mp must be in 0..10")
        for s, entry in enumerate(z["chars"]):
            if entry is None:
                continue
            iid, attrs, damage = entry
            if CARDS.kind[cards[iid]] != CHARACTER:
                raise ValueError(f"{iid} in a character slot is not a Character")
            st.chars[p][s] = iid
            st.pushed[p][s] = int(bool(attrs.get("pushed", False)))
            st.entered[p][s] = st.turn if attrs.get("entered_this_turn", False) else 0
            st.dmg[p][s] = damage
            for d in damage:
                if CARDS.kind[cards[d]] != BATTLE:
                    raise ValueError(f"damage {d} is not a Battle Card")
    step = position.get("step", "planning")
    if step == "turn-start":
        st.start_turn()
    elif step == "planning":
        st.stack.append((P_PLANNING, st.active))
    elif step == "attacks":
        st.stack.append((P_ATTACKS, st.active))
    elif step == "setup":
        st.stack.append((P_FIRST, st.active))
    else:
        raise ValueError(f"unknown step {step!r}; one of setup, turn-start, planning, attacks")
    return st


def _ids(st: MetaXState, iids: list[int]) -> list[str]:
    return [CARDS.ids[st.cards[i]] for i in iids]


def scenario_view(state: GameState) -> dict[str, Any]:
    """A flat view for scenario expectations (card ids, counts, flags)."""
    assert isinstance(state, MetaXState)
    st = state

    def side(p: int) -> dict[str, Any]:
        return {
            "mp": st.mp[p],
            "vp": len(st.vps[p]),
            "vp_cards": _ids(st, st.vps[p]),
            "deck_count": len(st.decks[p]),
            "deck": _ids(st, st.decks[p][::-1]),
            "hand": _ids(st, st.hands[p]),
            "hand_count": len(st.hands[p]),
            "discard": _ids(st, st.discards[p]),
            "in_play": _ids(st, st.limbo[p]),
            "characters": [
                None
                if c < 0
                else {
                    "card": CARDS.ids[st.cards[c]],
                    "id": c,
                    "pushed": bool(st.pushed[p][s]),
                    "damage": _ids(st, st.dmg[p][s]),
                    "stats": dict(zip(STATS, st.stats(c), strict=True)),
                }
                for s, c in enumerate(st.chars[p])
            ],
            "character_count": sum(1 for c in st.chars[p] if c >= 0),
        }

    top = st.stack[-1] if st.stack and not st.over else None
    return {
        "turn": st.turn,
        "active": st.active,
        "first_player": st.first,
        "step": "over" if st.over else PROMPT_NAMES[top[0]] if top is not None else None,
        "current_player": st.current_player,
        "over": st.over,
        "winner": st.winner,
        "players": [side(0), side(1)],
        "attacks": [
            {
                "lead": a[0],
                "card": CARDS.ids[st.cards[a[1]]],
                "links": [x for x in (a[3], a[4]) if x >= 0],
                "defender": a[5] if a[5] >= 0 else None,
                "defender_card": CARDS.ids[st.cards[a[6]]] if a[6] >= 0 else None,
            }
            for a in st.attacks
        ],
        "legal_actions": [a.to_json() for a in st.legal_actions()],
    }
