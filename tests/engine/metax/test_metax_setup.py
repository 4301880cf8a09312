"""MetaX deck-building rules: a rejected deck lists every broken rule."""

from __future__ import annotations

import pytest

from engine.core.errors import DeckRejected
from engine.core.game import get_game, new_match
from engine.metax.setup import STARTER_DECKS, check_deck, required_tokens


def test_starter_decks_are_legal_40_card_decks() -> None:
    for deck in STARTER_DECKS:
        assert sum(deck.values()) == 40
        assert check_deck(deck) == []
    g = get_game("metax")
    assert g.starter_decks == STARTER_DECKS


def test_exact_size() -> None:
    deck = dict(STARTER_DECKS[0])
    deck["B-STR-6"] = 1
    assert [v.rule for v in check_deck(deck)] == ["metax.deck.size"]
    deck = dict(STARTER_DECKS[0])
    deck["JL-004"] -= 1
    assert "has 39" in check_deck(deck)[0].message


def test_unique_character_is_title_and_subtitle() -> None:
    base = {
        "JL-002": 3,
        "JL-003": 3,
    }  # Superman – Man of Steel and Superman – Kal-El: 3 each is fine
    rules = [v.rule for v in check_deck(base)]
    assert rules == ["metax.deck.size"]
    over = check_deck({"JL-002": 4})
    assert [(v.rule, v.card) for v in over if v.rule != "metax.deck.size"] == [
        ("metax.deck.character-copies", "JL-002")
    ]


def test_event_copies() -> None:
    v = [x for x in check_deck({"EV-001": 4}) if x.rule != "metax.deck.size"]
    assert [(x.rule, x.card) for x in v] == [("metax.deck.event-copies", "EV-001")]
    assert "Evil Parade" in v[0].message


def test_single_stat_battle_cards_per_stat_and_rank_mixing_effects() -> None:
    # B-STR-3, Sucker Punch and Counterstrike are all single-stat 3 Strength
    ok = {"B-STR-3": 1, "BC-101": 1, "BC-104": 1, "B-INT-3": 3, "B-SPE-3": 3}
    assert [v.rule for v in check_deck(ok)] == ["metax.deck.size"]
    bad = {"B-STR-3": 2, "BC-101": 1, "BC-104": 1}
    assert "metax.deck.battle-single-stat" in [v.rule for v in check_deck(bad)]


def test_multi_stat_battle_cards_per_rank() -> None:
    # rulebook: 3 x U92-JL leaves no room for U82-AT (both rank 1 multi-stat)
    bad = {"U92-JL": 3, "U82-AT": 1}
    assert "metax.deck.battle-multi-stat" in [v.rule for v in check_deck(bad)]
    ok = {"U92-JL": 3, "U94-JL": 3, "U99-AT": 3, "B-STR-1": 3}
    assert "metax.deck.battle-multi-stat" not in [v.rule for v in check_deck(ok)]


def test_every_violation_is_listed() -> None:
    deck = {
        "JL-001": 4,
        "EV-002": 5,
        "B-SPE-2": 4,
        "C40-BM": 2,
        "U92-JL": 2,
        "NOPE-1": 1,
        "B-INT-1": -1,
    }
    rules = sorted(v.rule for v in check_deck(deck))
    assert rules == sorted(
        [
            "metax.deck.unknown-card",
            "metax.deck.copies",
            "metax.deck.size",
            "metax.deck.character-copies",
            "metax.deck.event-copies",
            "metax.deck.battle-single-stat",
            "metax.deck.battle-multi-stat",
        ]
    )


def test_new_match_rejects_illegal_decks_with_every_violation() -> None:
    with pytest.raises(DeckRejected) as err:
        new_match("metax", ({"JL-001": 4}, STARTER_DECKS[1]), 1)
    rules = {v.rule for v in err.value.violations}
    assert rules == {"metax.deck.size", "metax.deck.character-copies"}
    assert all(v.message.startswith("player 0") for v in err.value.violations)


def test_required_tokens_are_every_card_of_the_deck() -> None:
    assert required_tokens(STARTER_DECKS[0]) == dict(sorted(STARTER_DECKS[0].items()))
    assert sum(required_tokens(STARTER_DECKS[1]).values()) == 40
