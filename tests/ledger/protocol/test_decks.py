"""Deck lists: the canonical form and the deck hash, against the documented formula."""

from __future__ import annotations

import json

import pytest
from eth_hash.auto import keccak

from ledger.errors import InvalidInput
from ledger.protocol.decks import MAX_COPIES, canonical_cards, deck_hash


def test_the_deck_hash_is_keccak_of_the_sorted_compact_json() -> None:
    cards = {"U92-JL": 3, "A01": 1, "Ω-7": 2}
    text = json.dumps(
        {"cards": dict(sorted(cards.items())), "game": "metax"},
        sort_keys=True, separators=(",", ":"), ensure_ascii=False,
    )  # fmt: skip
    assert deck_hash("metax", cards) == "0x" + keccak(text.encode()).hex()
    assert deck_hash("metax", dict(reversed(list(cards.items())))) == deck_hash("metax", cards)
    assert deck_hash("metamasters", cards) != deck_hash("metax", cards)


def test_canonical_cards_sorts_and_refuses_by_field() -> None:
    assert list(canonical_cards({"b": 1, "a": 2})) == ["a", "b"]
    for bad in ({}, {"": 1}, {"a" * 65: 1}, {"a": 0}, {"a": True}, {"a": MAX_COPIES + 1}, []):
        with pytest.raises(InvalidInput) as refused:
            canonical_cards(bad)  # type: ignore[arg-type]
        assert refused.value.extra == {"field": "cards"}
