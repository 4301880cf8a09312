"""MetaX deck-building rules, match setup, scenario positions and views, bot heuristic."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from engine.core.errors import DeckRejected, Violation
from engine.core.game import Deck, plain_deck, same_deck
from engine.core.prng import Prng
from engine.core.state import GameState
from engine.metax.cards import BATTLE, BSTATS, CARDS, CHARACTER, CID, EVENT, KIND, RANK, STAT_NAMES
from engine.metax.ops import STATS
from engine.metax.state import (
    HAND_SIZE,
    P_ATTACKS,
    P_FIRST,
    P_PLANNING,
    PROMPT_NAMES,
    MetaXState,
    static_string,
)

DECK_SIZE = 40
MAX_COPIES = 3


def check_deck(deck: Deck, options: Mapping[str, Any] | None = None) -> list[Violation]:
    """Every broken MetaX deck-building rule of `deck` (empty list: the deck is legal)."""
    out: list[Violation] = []
    total = 0
    characters: Counter[tuple[str, str]] = Counter()
    events: Counter[str] = Counter()
    singles: Counter[tuple[int, int]] = Counter()
    multis: Counter[int] = Counter()
    first_id: dict[Any, str] = {}
    for card_id, copies in sorted(deck.items()):
        if card_id not in CID:
            out.append(
                Violation("metax.deck.unknown-card", f"{card_id!r} is not a MetaX card", card_id)
            )
            continue
        if not isinstance(copies, int) or isinstance(copies, bool) or copies < 0:
            out.append(
                Violation(
                    "metax.deck.copies",
                    f"{card_id}: copies must be a non-negative integer",
                    card_id,
                )
            )
            continue
        total += copies
        cid = CID[card_id]
        card = CARDS[cid]
        if KIND[cid] == CHARACTER:
            characters[(card["name"], card["subtitle"])] += copies
            first_id.setdefault((card["name"], card["subtitle"]), card_id)
        elif KIND[cid] == EVENT:
            events[card["name"]] += copies
            first_id.setdefault(card["name"], card_id)
        elif len(BSTATS[cid]) == 1:
            singles[(BSTATS[cid][0], RANK[cid])] += copies
        else:
            multis[RANK[cid]] += copies
    if total != DECK_SIZE:
        out.append(
            Violation(
                "metax.deck.size", f"a deck has exactly {DECK_SIZE} cards, this one has {total}"
            )
        )
    for (title, subtitle), n in sorted(characters.items()):
        if n > MAX_COPIES:
            out.append(
                Violation(
                    "metax.deck.character-copies",
                    f"{n} copies of {title} – {subtitle}; at most {MAX_COPIES} of each unique Character",
                    first_id[(title, subtitle)],
                )
            )
    for name, n in sorted(events.items()):
        if n > MAX_COPIES:
            out.append(
                Violation(
                    "metax.deck.event-copies",
                    f"{n} copies of the Event {name}; at most {MAX_COPIES}",
                    first_id[name],
                )
            )
    for (stat, rank), n in sorted(singles.items()):
        if n > MAX_COPIES:
            out.append(
                Violation(
                    "metax.deck.battle-single-stat",
                    f"{n} single-stat {rank} {STAT_NAMES[stat]} Battle Cards; at most {MAX_COPIES} per stat and rank",
                )
            )
    for rank, n in sorted(multis.items()):
        if n > MAX_COPIES:
            out.append(
                Violation(
                    "metax.deck.battle-multi-stat",
                    f"{n} multi-stat rank {rank} Battle Cards; at most {MAX_COPIES} per rank",
                )
            )
    return out


_LEGAL: dict[frozenset[tuple[str, int]], list[Violation]] = {}


def _checked(deck: Deck) -> list[Violation]:
    """check_deck with a small memo (replays and benchmarks start many matches with one deck)."""
    if not plain_deck(deck):  # True == 1 and hash(True) == hash(1): keep such decks out of the memo
        return check_deck(deck)
    key = frozenset(deck.items())
    hit = _LEGAL.get(key)
    if hit is None:
        hit = check_deck(deck)
        if len(_LEGAL) > 256:
            _LEGAL.clear()
        _LEGAL[key] = hit
    return hit


def required_tokens(deck: Deck) -> dict[str, int]:
    """In MetaX every card of the deck is a token the player must own."""
    return {k: int(v) for k, v in sorted(deck.items()) if v > 0}


_Template = tuple[list[int], list[int], list[list[int]], str]
_TEMPLATES: dict[tuple[frozenset[tuple[str, int]], ...], _Template] = {}


def _instances(decks: tuple[Deck, Deck]) -> _Template:
    """Instance ids in canonical order (sorted card ids); memoised per pair of decks.

    The card and owner lists are shared (they never change during a match)."""
    key = (frozenset(decks[0].items()), frozenset(decks[1].items()))
    hit = _TEMPLATES.get(key)
    if hit is None:
        cards, owner, piles = _build_instances(decks)
        hit = (cards, owner, piles, static_string(cards, owner))
        if len(_TEMPLATES) > 256:
            _TEMPLATES.clear()
        _TEMPLATES[key] = hit
    cards, owner, piles, static = hit
    return cards, owner, [piles[0][:], piles[1][:]], static


def _build_instances(decks: tuple[Deck, Deck]) -> tuple[list[int], list[int], list[list[int]]]:
    cards: list[int] = []
    owner: list[int] = []
    piles: list[list[int]] = [[], []]
    for p in (0, 1):
        for card_id in sorted(decks[p]):
            for _ in range(decks[p][card_id]):
                piles[p].append(len(cards))
                cards.append(CID[card_id])
                owner.append(p)
    return cards, owner, piles


#: [copy of deck 0, copy of deck 1, their template]: the last pair of legal decks started
#: (replays and benchmarks start many matches with the same decks; compared by value)
_LAST_PAIR: list[Any] = []


def new_match(decks: tuple[Deck, Deck], seed: int, options: Mapping[str, Any]) -> MetaXState:
    """Check both decks, shuffle, draw five each, toss a coin; the toss winner picks who starts."""
    last = _LAST_PAIR
    if last and same_deck(decks[0], last[0]) and same_deck(decks[1], last[1]):
        cards, owner, piles, static = last[2]  # the same two (legal) decks as last time
        piles = [piles[0][:], piles[1][:]]
    else:
        for p in (0, 1):
            violations = _checked(decks[p])
            if violations:
                raise DeckRejected(
                    [Violation(v.rule, f"player {p}: {v.message}", v.card) for v in violations]
                )
        cards, owner, piles, static = _instances(decks)
        if plain_deck(decks[0]) and plain_deck(decks[1]):
            _LAST_PAIR[:] = [
                dict(decks[0]),
                dict(decks[1]),
                (cards, owner, [piles[0][:], piles[1][:]], static),
            ]
    prng = Prng(seed)
    st = MetaXState.empty(cards, owner, prng, static)
    for p in (0, 1):
        deck = piles[p]
        prng.shuffle(deck)
        st.decks[p] = deck
    for p in (0, 1):
        st.draw(p, HAND_SIZE)
    toss = prng.below(2)
    st.stack.append((P_FIRST, toss))
    return st


# --- scenarios --------------------------------------------------------------------------------


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
        if card_id not in CID:
            raise ValueError(f"unknown card {card_id!r}")
        if iid is None:
            while self.next in self.explicit:
                self.next += 1
            iid = self.next
            self.next += 1
        return iid, CID[card_id], owner


def from_position(position: Mapping[str, Any]) -> MetaXState:
    """Build a state from a scenario position (see docs/scenarios.md, MetaX)."""
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
    st = MetaXState.empty(cards, owner, Prng(int(position.get("seed", 0))))
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
            if KIND[cards[iid]] != CHARACTER:
                raise ValueError(f"{iid} in a character slot is not a Character")
            st.chars[p][s] = iid
            st.pushed[p][s] = int(bool(attrs.get("pushed", False)))
            st.entered[p][s] = st.turn if attrs.get("entered_this_turn", False) else 0
            st.dmg[p][s] = damage
            for d in damage:
                if KIND[cards[d]] != BATTLE:
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
    return [CARDS[st.cards[i]]["id"] for i in iids]


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
                    "card": CARDS[st.cards[c]]["id"],
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
                "card": CARDS[st.cards[a[1]]]["id"],
                "links": [x for x in (a[3], a[4]) if x >= 0],
                "defender": a[5] if a[5] >= 0 else None,
                "defender_card": CARDS[st.cards[a[6]]]["id"] if a[6] >= 0 else None,
            }
            for a in st.attacks
        ],
        "legal_actions": [a.to_json() for a in st.legal_actions()],
    }


#: the value of a card in the opponent's (hidden) hand: a battle card (1.5) or another card
#: (0.8), weighted by the starter decks' half-and-half mix
_HIDDEN_CARD = 1.15


def heuristic(state: GameState, player: int) -> float:
    """Greedy-bot evaluation from `player`'s side: VP, board, prepped defenders, cards, MP.

    Reads only what `player` may see: its own hand, the public zones (characters, their damage
    and state, attacks, MP) and counts (VP piles, deck and opponent hand sizes); never the
    opponent's hand or any deck order. Weights were tuned against the random bot on mirrored
    starter decks.
    """
    assert isinstance(state, MetaXState)
    st = state
    cards = st.cards
    score = 0.0
    for p, sign in ((player, 1.0), (1 - player, -1.0)):
        s = 10.0 * len(st.vps[p])
        for slot, c in enumerate(st.chars[p]):
            if c >= 0:
                s += 3.0 + 0.5 * st.max_rank(c) - 1.0 * len(st.dmg[p][slot])
                if not st.pushed[p][slot]:
                    s += 1.5  # can defend (or attack next turn)
        hand = st.hands[p]
        if p == player:
            battle_cards = sum(1 for i in hand if KIND[cards[i]] == BATTLE)
            s += 0.8 * (len(hand) - battle_cards) + 1.5 * battle_cards
        else:  # the opponent's hand is hidden: only its size counts
            s += _HIDDEN_CARD * len(hand)
        s += 0.3 * st.mp[p]
        s += 0.1 * min(len(st.decks[p]), 10)
        if p == st.active:
            # a declared attack that is not (yet) defended is a VP in waiting
            s += sum(6.0 for a in st.attacks if a[5] < 0 and not a[7])
        score += sign * s
    return score


def _deck(*entries: tuple[str, int]) -> dict[str, int]:
    return dict(entries)


#: two legal 40-card starter decks (14 Characters, 6 Events, 20 Battle Cards)
STARTER_DECKS: tuple[dict[str, int], dict[str, int]] = (
    _deck(  # Justice League & Lanterns
        ("JL-001", 1),
        ("JL-002", 1),
        ("JL-003", 1),
        ("JL-004", 2),
        ("JL-005", 1),
        ("JL-006", 1),
        ("JL-007", 1),
        ("GL-001", 1),
        ("GL-002", 1),
        ("GL-003", 1),
        ("GL-004", 1),
        ("BM-001", 1),
        ("BM-002", 1),
        ("EV-001", 1),
        ("EV-002", 2),
        ("EV-004", 1),
        ("EV-005", 1),
        ("EV-008", 1),
        ("U92-JL", 2),
        ("U94-JL", 1),
        ("U99-AT", 1),
        ("BC-101", 1),
        ("BC-104", 1),
        ("BC-106", 1),
        ("B-STR-2", 1),
        ("B-STR-3", 1),
        ("B-STR-4", 2),
        ("B-STR-5", 1),
        ("B-INT-2", 1),
        ("B-INT-3", 1),
        ("B-INT-4", 1),
        ("B-SPE-2", 1),
        ("B-SPE-3", 2),
        ("B-SPE-4", 1),
        ("B-SPE-5", 1),
    ),
    _deck(  # Scout Regiment & Titans
        ("AT-001", 2),
        ("AT-002", 2),
        ("AT-003", 1),
        ("AT-004", 1),
        ("AT-005", 1),
        ("AT-006", 2),
        ("AT-007", 1),
        ("AT-008", 1),
        ("AT-009", 1),
        ("GL-007", 1),
        ("BM-005", 1),
        ("EV-003", 2),
        ("EV-006", 1),
        ("EV-007", 1),
        ("EV-009", 1),
        ("EV-010", 1),
        ("U82-AT", 2),
        ("C40-BM", 1),
        ("U94-JL", 1),
        ("BC-102", 1),
        ("BC-103", 1),
        ("BC-105", 1),
        ("B-STR-2", 1),
        ("B-STR-3", 2),
        ("B-STR-4", 1),
        ("B-STR-5", 1),
        ("B-STR-6", 1),
        ("B-INT-3", 2),
        ("B-INT-4", 1),
        ("B-INT-5", 1),
        ("B-SPE-2", 1),
        ("B-SPE-3", 1),
        ("B-SPE-4", 1),
    ),
)


def _assert_starters() -> None:
    for deck in STARTER_DECKS:
        problems = check_deck(deck)
        if problems:  # pragma: no cover - caught by the test suite at import
            raise DeckRejected(problems)


_assert_starters()
