"""MetaX deck-building rules, the starter decks, and the start of a match."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from typing import Any

from engine.core.errors import DeckRejected, Violation
from engine.core.game import Deck
from engine.core.legal_decks import LastLegalDecks
from engine.core.prng import Prng
from engine.metax.cards import CARDS, CATALOGUE, CHARACTER, EVENT, STAT_NAMES
from engine.metax.encoding import MetaXState, static_string
from engine.metax.state import HAND_SIZE, P_FIRST

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
        if card_id not in CARDS.cid:
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
        cid = CARDS.cid[card_id]
        card = CATALOGUE.cards[cid]
        if CARDS.kind[cid] == CHARACTER:
            characters[(card["name"], card["subtitle"])] += copies
            first_id.setdefault((card["name"], card["subtitle"]), card_id)
        elif CARDS.kind[cid] == EVENT:
            events[card["name"]] += copies
            first_id.setdefault(card["name"], card_id)
        elif len(CARDS.bstats[cid]) == 1:
            singles[(CARDS.bstats[cid][0], CARDS.rank[cid])] += copies
        else:
            multis[CARDS.rank[cid]] += copies
    if total != DECK_SIZE:
        out.append(
            Violation(
                "metax.deck.size", f"a deck has exactly {DECK_SIZE} cards, this one has {total}"
            )
        )
    out += _over_copies(
        "metax.deck.character-copies",
        characters,
        lambda k, n: (
            f"{n} copies of {k[0]} – {k[1]}; at most {MAX_COPIES} of each unique Character"
        ),
        first_id,
    )
    out += _over_copies(
        "metax.deck.event-copies",
        events,
        lambda k, n: f"{n} copies of the Event {k}; at most {MAX_COPIES}",
        first_id,
    )
    out += _over_copies(
        "metax.deck.battle-single-stat",
        singles,
        lambda k, n: (
            f"{n} single-stat {k[1]} {STAT_NAMES[k[0]]} Battle Cards; at most {MAX_COPIES} per stat and rank"
        ),
    )
    out += _over_copies(
        "metax.deck.battle-multi-stat",
        multis,
        lambda k, n: f"{n} multi-stat rank {k} Battle Cards; at most {MAX_COPIES} per rank",
    )
    return out


def _over_copies(
    rule: str,
    counts: Mapping[Any, int],
    message: Callable[[Any, int], str],
    card_of: Mapping[Any, str] | None = None,
) -> list[Violation]:
    """A `rule` violation for each group of `counts` (in sorted order) over MAX_COPIES copies."""
    return [
        Violation(rule, message(key, n), card_of[key] if card_of is not None else None)
        for key, n in sorted(counts.items())
        if n > MAX_COPIES
    ]


def required_tokens(deck: Deck) -> dict[str, int]:
    """In MetaX every card of the deck is a token the player must own."""
    return {k: int(v) for k, v in sorted(deck.items()) if v > 0}


def _build_instances(decks: tuple[Deck, Deck]) -> tuple[list[int], list[int], list[list[int]]]:
    cards: list[int] = []
    owner: list[int] = []
    piles: list[list[int]] = [[], []]
    for p in (0, 1):
        for card_id in sorted(decks[p]):
            for _ in range(decks[p][card_id]):
                piles[p].append(len(cards))
                cards.append(CARDS.cid[card_id])
                owner.append(p)
    return cards, owner, piles


#: instance ids in canonical order (sorted card ids): cards, owners, the two piles, static string
_Template = tuple[list[int], list[int], list[list[int]], str]
_LAST_LEGAL: LastLegalDecks[_Template] = LastLegalDecks()


#: the ruleset revision new matches use (engine/metax/__init__.py lists the rulesets)
REVISION = 2


def new_match(
    decks: tuple[Deck, Deck], seed: int, options: Mapping[str, Any], revision: int = REVISION
) -> MetaXState:
    """Check both decks, shuffle, draw five each, toss a coin; the toss winner picks who starts
    (under ruleset `revision`)."""
    template = _LAST_LEGAL.get(decks, options)
    if template is None:
        for p in (0, 1):
            violations = check_deck(decks[p])
            if violations:
                raise DeckRejected(
                    [Violation(v.rule, f"player {p}: {v.message}", v.card) for v in violations]
                )
        cards, owner, piles = _build_instances(decks)
        template = (cards, owner, piles, static_string(cards, owner))
        _LAST_LEGAL.put(decks, options, template)
    # the card and owner lists are shared (they never change during a match)
    cards, owner, piles, static = template
    prng = Prng(seed)
    st = MetaXState.empty(cards, owner, prng, static, revision)
    for p in (0, 1):
        deck = piles[p][:]
        prng.shuffle(deck)
        st.decks[p] = deck
    for p in (0, 1):
        st.draw(p, HAND_SIZE)
    toss = prng.below(2)
    st.stack.append((P_FIRST, toss))
    return st


def _deck(*entries: tuple[str, int]) -> dict[str, int]:
    return dict(entries)


#: the starter decks of ruleset 1: two legal 40-card decks (14 Characters, 6 Events, 20 Battle
#: Cards); the seat with the first won 70 % of random matches
STARTER_DECKS_REV1: tuple[dict[str, int], dict[str, int]] = (
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


def _traded(deck: dict[str, int], out: tuple[str, ...], into: tuple[str, ...]) -> dict[str, int]:
    """`deck` with a copy of each card of `out` taken out and one of each of `into` put in."""
    new = dict(deck)
    for card_id in out:
        new[card_id] -= 1
        if not new[card_id]:
            del new[card_id]
    for card_id in into:
        new[card_id] = new.get(card_id, 0) + 1
    return new


_JL, _AT = STARTER_DECKS_REV1
#: the starter decks of ruleset 2: ruleset 1's with cards traded between them (and a few
#: replaced) until they won 45-55 % against each other (docs/benchmarks.md, "Starter deck balance")
STARTER_DECKS: tuple[dict[str, int], dict[str, int]] = (
    _traded(  # Justice League & Lanterns: 15 Characters, 5 Events, 20 Battle Cards
        _JL,
        out=("JL-001", "JL-004", "BM-001", "EV-004", "B-SPE-2", "B-SPE-5"),
        into=("GL-006", "AT-004", "AT-008", "AT-009", "BC-103", "B-STR-5"),
    ),
    _traded(  # Attack on Titan & Gotham: 14 Characters, 7 Events, 19 Battle Cards
        _AT,
        out=("AT-004", "AT-008", "AT-009", "B-STR-4", "B-STR-5", "B-STR-6", "B-INT-5"),
        into=("JL-001", "JL-004", "BM-001", "EV-004", "BC-103", "B-STR-2", "B-INT-2"),
    ),
)


def _assert_starters() -> None:
    for deck in (*STARTER_DECKS_REV1, *STARTER_DECKS):
        problems = check_deck(deck)
        if problems:  # pragma: no cover - caught by the test suite at import
            raise DeckRejected(problems)


_assert_starters()
