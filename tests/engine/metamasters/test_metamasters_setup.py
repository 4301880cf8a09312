"""MetaMasters deck-building rules, Token agreement, owned tokens, and the start of a match."""

from __future__ import annotations

import pytest

from engine.core.errors import DeckRejected
from engine.core.game import get_game, new_match
from engine.metamasters.encoding import MetaMastersState
from engine.metamasters.setup import STARTER_DECKS, check_deck, required_tokens
from engine.metamasters.state import MAIN1, P_MAIN

GAME = get_game("metamasters")


def _deck(main: int, tokens: int = 3) -> dict[str, int]:
    ids = [c["id"] for c in GAME.cards if c["kind"] != "token"]
    deck: dict[str, int] = {}
    for k in range(main):
        cid = ids[k % len(ids)]
        deck[cid] = deck.get(cid, 0) + 1
    if tokens:
        deck["MM-T01"] = tokens
    return deck


def _rules(deck: dict[str, int], **options: object) -> list[str]:
    return sorted(v.rule for v in check_deck(deck, {"tokens": 3, **options}))


def test_starter_decks_are_legal() -> None:
    for deck in STARTER_DECKS:
        assert check_deck(deck, GAME.default_options) == []
        assert 33 <= sum(n for c, n in deck.items() if not c.startswith("MM-T")) <= 55


def test_size_counts_cards_excluding_tokens() -> None:
    assert _rules(_deck(33)) == []
    assert _rules(_deck(55)) == []
    assert _rules(_deck(32)) == ["metamasters.deck.size"]
    assert _rules(_deck(56)) == ["metamasters.deck.size"]


def test_at_most_three_copies_tokens_exempt() -> None:
    deck = _deck(33)
    first = next(iter(deck))
    deck[first] = 4
    assert _rules(deck) == ["metamasters.deck.copies"]
    assert check_deck(deck, {"tokens": 3})[0].card == first
    assert _rules(_deck(40, tokens=5), tokens=5) == []


def test_every_violation_is_listed() -> None:
    deck = {"MM-A01": 5, "MM-A02": 4, "NOPE": 1, "MM-A03": 0}
    assert _rules(deck) == [
        "metamasters.deck.copies",
        "metamasters.deck.copies",
        "metamasters.deck.count",
        "metamasters.deck.size",
        "metamasters.deck.tokens_agreed",
        "metamasters.deck.tokens_min",
        "metamasters.deck.unknown_card",
    ]


def test_token_count_is_the_agreed_one() -> None:
    deck = _deck(40, tokens=4)
    assert _rules(deck) == ["metamasters.deck.tokens_agreed"]
    assert _rules(deck, tokens=4) == []
    assert _rules(deck, tokens=[3, 4], seat=1) == []
    assert _rules(deck, tokens=[3, 4], seat=0) == ["metamasters.deck.tokens_agreed"]
    assert _rules(deck, tokens=0) == ["metamasters.options.tokens"]


def test_required_tokens_include_token_cards() -> None:
    deck = STARTER_DECKS[0]
    req = required_tokens(deck)
    assert req == {c: n for c, n in deck.items()}
    assert any(c.startswith("MM-T") for c in req)
    assert GAME.required_tokens(deck) == req


def test_new_match_rejects_every_violation_of_both_decks() -> None:
    with pytest.raises(DeckRejected) as info:
        new_match("metamasters", ({"MM-A01": 4}, {"MM-A02": 1, "MM-T01": 1}), 1)
    rules = [v.rule for v in info.value.violations]
    assert rules.count("metamasters.deck.size") == 2
    assert "metamasters.deck.copies" in rules
    assert "metamasters.deck.tokens_min" in rules
    assert rules.count("metamasters.deck.tokens_agreed") == 2


def test_unequal_token_agreement() -> None:
    decks = (_deck(40, tokens=2), _deck(40, tokens=4))
    state = new_match("metamasters", decks, 5, {"tokens": [2, 4]})
    assert isinstance(state, MetaMastersState)
    assert [len(t) for t in state.tokens] == [2, 4]


def test_start_of_match() -> None:
    firsts = set()
    for seed in range(20):
        s = new_match("metamasters", STARTER_DECKS, seed)
        assert isinstance(s, MetaMastersState)
        firsts.add(s.first)
        assert [len(h) for h in s.hand] == [5, 5]
        assert [len(t) for t in s.tokens] == [3, 3]
        assert len(s.deck[0]) == 41 - 5 and len(s.deck[1]) == 45 - 5
        assert s.turn == 1 and s.phase == MAIN1 and s.active == s.first
        assert s.prompts[-1][:2] == (P_MAIN, s.first)
    assert firsts == {0, 1}
    assert new_match("metamasters", STARTER_DECKS, 3, {"first": 1}).current_player == 1


def test_same_seed_same_match_different_seed_different_shuffle() -> None:
    a = new_match("metamasters", STARTER_DECKS, 11)
    b = new_match("metamasters", STARTER_DECKS, 11)
    c = new_match("metamasters", STARTER_DECKS, 12)
    assert a.state_hash() == b.state_hash() != c.state_hash()
