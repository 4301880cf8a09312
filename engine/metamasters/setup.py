"""MetaMasters deck-building rules, owned tokens, match options, the starter decks, and the
start of a match."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.core.errors import DeckRejected, Violation
from engine.core.game import Deck
from engine.core.legal_decks import LastLegalDecks
from engine.core.prng import Prng
from engine.metamasters.cards import BY_ID, K_TOKEN
from engine.metamasters.encoding import MetaMastersState
from engine.metamasters.state import DRAW, Z_TOKEN

MIN_CARDS = 33
MAX_CARDS = 55
MAX_COPIES = 3
DEFAULT_TOKENS = 3

DEFAULT_OPTIONS: dict[str, Any] = {"tokens": DEFAULT_TOKENS}


def agreed_tokens(
    options: Mapping[str, Any], seat: int | None
) -> tuple[list[Violation], set[int] | None]:
    """The Token counts the players agreed on for `seat` (None: any seat), or option violations.

    Option `tokens` is one number (both players, the default) or `[player0, player1]`.
    """
    raw = options.get("tokens", DEFAULT_TOKENS)
    values = raw if isinstance(raw, list) else [raw]
    if not (1 <= len(values) <= 2) or not all(
        isinstance(v, int) and not isinstance(v, bool) and v >= 1 for v in values
    ):
        return [
            Violation(
                "metamasters.options.tokens",
                f"option tokens must be a number >= 1 or two of them, got {raw!r}",
            )
        ], None
    if isinstance(raw, list) and len(values) == 2 and seat in (0, 1):
        return [], {values[seat]}
    return [], set(values)


def check_deck(deck: Deck, options: Mapping[str, Any]) -> list[Violation]:
    """Every deck-building rule this deck breaks (empty list: legal).

    Option `seat` (0 or 1) picks the player's agreed Token count when `tokens` is a pair.
    """
    out: list[Violation] = []
    main = 0
    tokens = 0
    for card_id in sorted(deck):
        n = deck[card_id]
        card = BY_ID.get(card_id)
        if card is None:
            out.append(
                Violation(
                    "metamasters.deck.unknown_card",
                    f"{card_id!r} is not a MetaMasters card",
                    card_id,
                )
            )
            continue
        if not isinstance(n, int) or isinstance(n, bool) or n < 1:
            out.append(
                Violation(
                    "metamasters.deck.count",
                    f"{card_id}: copies must be a positive integer, got {n!r}",
                    card_id,
                )
            )
            continue
        if card.kind == K_TOKEN:
            tokens += n
            continue
        main += n
        if n > MAX_COPIES:
            out.append(
                Violation(
                    "metamasters.deck.copies",
                    f"{card.name}: {n} copies, at most {MAX_COPIES}",
                    card_id,
                )
            )
    if not MIN_CARDS <= main <= MAX_CARDS:
        out.append(
            Violation(
                "metamasters.deck.size",
                f"{main} cards excluding Tokens; a deck holds {MIN_CARDS} to {MAX_CARDS}",
            )
        )
    if tokens < 1:
        out.append(Violation("metamasters.deck.tokens_min", "a deck needs at least one Token card"))
    seat = options.get("seat")
    problems, agreed = agreed_tokens(options, seat if isinstance(seat, int) else None)
    out.extend(problems)
    if agreed is not None and tokens not in agreed:
        want = " or ".join(str(v) for v in sorted(agreed))
        out.append(
            Violation(
                "metamasters.deck.tokens_agreed",
                f"{tokens} Token cards; the players agreed on {want}",
            )
        )
    return out


def required_tokens(deck: Deck) -> dict[str, int]:
    """Every card of the deck, Token cards included: all are owned ERC-1155 tokens."""
    return {card_id: n for card_id, n in sorted(deck.items()) if n > 0}


STARTER_BULLS: dict[str, int] = {
    "MM-T01": 2, "MM-T02": 1,
    "MM-A01": 3, "MM-A03": 3, "MM-A05": 2, "MM-A07": 3, "MM-A11": 3, "MM-A12": 2, "MM-A13": 2,
    "MM-A20": 2, "MM-A22": 2, "MM-A30": 1, "MM-A32": 1,
    "MM-L01": 3, "MM-L04": 2, "MM-L05": 2,
    "MM-S01": 2, "MM-S03": 2, "MM-S10": 2, "MM-S20": 2, "MM-S21": 1, "MM-S23": 1,
}  # fmt: skip
STARTER_MEMES: dict[str, int] = {
    "MM-T03": 2, "MM-T04": 1,
    "MM-A02": 3, "MM-A04": 3, "MM-A06": 3, "MM-A08": 2, "MM-A09": 2, "MM-A10": 2,
    "MM-A21": 2, "MM-A23": 1, "MM-A24": 2, "MM-A31": 2, "MM-A33": 1,
    "MM-L02": 3, "MM-L03": 2, "MM-L06": 2,
    "MM-S02": 2, "MM-S04": 2, "MM-S05": 2, "MM-S06": 1, "MM-S11": 1, "MM-S12": 2,
    "MM-S22": 2, "MM-S24": 1, "MM-S25": 2,
}  # fmt: skip
#: the starter decks of ruleset 1 (the Bulls won 89 % of random matches, whichever seat)
STARTER_DECKS_REV1: tuple[Deck, Deck] = (STARTER_BULLS, STARTER_MEMES)
#: ruleset 2's Bulls: the Bulls of ruleset 1 with cards traded with the Memes (and a few
#: replaced) until the two decks won 45-55 % against each other (docs/benchmarks.md)
STARTER_BULLS_2: dict[str, int] = {
    "MM-T01": 2, "MM-T02": 1,
    "MM-A01": 3, "MM-A03": 2, "MM-A04": 1, "MM-A05": 1, "MM-A06": 1, "MM-A07": 3, "MM-A11": 1,
    "MM-A12": 2, "MM-A13": 2, "MM-A20": 2, "MM-A22": 1, "MM-A30": 1, "MM-A31": 2, "MM-A32": 1,
    "MM-L01": 1, "MM-L03": 1, "MM-L04": 2, "MM-L05": 3,
    "MM-S01": 2, "MM-S03": 2, "MM-S04": 1, "MM-S05": 1, "MM-S10": 1, "MM-S20": 2, "MM-S22": 1,
    "MM-S23": 1,
}  # fmt: skip
#: ruleset 2's Memes (see STARTER_BULLS_2)
STARTER_MEMES_2: dict[str, int] = {
    "MM-T03": 2, "MM-T04": 1,
    "MM-A02": 3, "MM-A03": 1, "MM-A04": 3, "MM-A05": 1, "MM-A06": 2, "MM-A08": 2, "MM-A09": 2,
    "MM-A10": 3, "MM-A11": 2, "MM-A20": 1, "MM-A21": 2, "MM-A22": 1, "MM-A23": 1, "MM-A24": 2,
    "MM-A33": 1,
    "MM-L01": 2, "MM-L02": 3, "MM-L03": 1, "MM-L06": 1,
    "MM-S02": 2, "MM-S04": 1, "MM-S06": 1, "MM-S11": 1, "MM-S12": 2, "MM-S21": 1, "MM-S22": 1,
    "MM-S23": 1, "MM-S25": 1,
}  # fmt: skip
#: the starter decks of ruleset 2, balanced (docs/benchmarks.md, "Starter deck balance")
STARTER_DECKS: tuple[Deck, Deck] = (STARTER_BULLS_2, STARTER_MEMES_2)
#: the ruleset revision new matches use (engine/metamasters/__init__.py lists the rulesets)
REVISION = 2


HAND_SIZE = 5


def _expand(deck: Deck, tokens: bool) -> list[int]:
    out: list[int] = []
    for card_id in sorted(deck):
        c = BY_ID[card_id]
        if (c.kind == K_TOKEN) == tokens:
            out.extend([c.index] * deck[card_id])
    return out


_LAST_LEGAL: LastLegalDecks[bool] = LastLegalDecks()


def new_match(
    decks: tuple[Deck, Deck], seed: int, options: Mapping[str, Any], revision: int = REVISION
) -> MetaMastersState:
    """Check both decks, decide the first player, shuffle, draw 5 each, start turn 1 (under
    ruleset `revision`)."""
    first = options.get("first")
    if _LAST_LEGAL.get(decks, options) is None:
        violations: list[Violation] = []
        for seat in (0, 1):
            for v in check_deck(decks[seat], {**options, "seat": seat}):
                violations.append(Violation(v.rule, f"player {seat}: {v.message}", v.card))
        if first is not None and first not in (0, 1):
            violations.append(
                Violation(
                    "metamasters.options.first", f"option first must be 0 or 1, got {first!r}"
                )
            )
        if violations:
            raise DeckRejected(violations)
        _LAST_LEGAL.put(decks, options, True)
    prng = Prng(seed)
    if first is None:
        first = prng.below(2)
    cid: list[int] = []
    owner: list[int] = []
    spans: list[tuple[int, int, int]] = []
    for seat in (0, 1):
        main = _expand(decks[seat], False)
        # instance ids follow the shuffled order, so an id says nothing about a hidden card
        prng.shuffle(main)
        start = len(cid)
        cid.extend(main)
        cid.extend(_expand(decks[seat], True))
        owner.extend([seat] * (len(cid) - start))
        spans.append((start, start + len(main), len(cid)))
    s = MetaMastersState(tuple(cid), tuple(owner), prng, revision)
    for seat, (start, mid, end) in enumerate(spans):
        s.deck[seat] = list(range(start, mid))
        s.tokens[seat] = list(range(mid, end))
        for i in range(mid, end):
            s.zone[i] = Z_TOKEN
    for seat in (first, 1 - first):
        for _ in range(HAND_SIZE):
            s.draw_card(seat)
    s.first = first
    s.active = first
    s.turn = 1
    s.enter_phase(DRAW)
    s.settle()
    return s
