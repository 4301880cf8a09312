"""Deck accounting: a card is short when the deck's copies plus those committed to the owner's
other live matches exceed what the owner holds at the pinned block."""

from __future__ import annotations

import pytest

from engine import get_game
from ledger.decks.service import check_rules, shortfalls
from ledger.errors import DeckRejected
from ledger.protocol.hexcodec import uint256_hex


def test_shortfalls_count_copies_committed_elsewhere() -> None:
    ids = {"A": 1, "B": 2}
    short = shortfalls({"A": 2, "B": 1}, held={"A": 3, "B": 1}, committed={"A": 2}, ids=ids)
    assert short == [
        {"card": "A", "token_id": uint256_hex(1), "needed": 2, "held": 3, "committed_elsewhere": 2}
    ]
    assert shortfalls({"A": 1}, held={"A": 1}, committed={}, ids=ids) == []
    assert shortfalls({"Z": 1}, held={}, committed={}, ids=ids)[0]["token_id"] is None


def test_the_deck_rules_list_every_violation() -> None:
    game = get_game("metax")
    check_rules(game, dict(game.starter_decks[0]))
    with pytest.raises(DeckRejected) as refused:
        check_rules(game, {"no-such-card": 1})
    assert refused.value.extra["violations"]
    assert all({"rule", "message", "card"} <= set(v) for v in refused.value.extra["violations"])
