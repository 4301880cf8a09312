"""MetaVersus WISH: what a player brings, and the start of a match."""

from __future__ import annotations

from collections import Counter

import pytest

from engine import DeckRejected, GameState, get_game, new_match
from engine.metaversus.cards import CARDS as C
from engine.metaversus.encoding import WishState

GAME = get_game("metaversus")
ALL = dict(GAME.starter_decks[0])


def _rules(deck: dict[str, int], **options: object) -> list[str]:
    return [v.rule for v in GAME.check_deck(deck, {**GAME.default_options, **options})]


def _finish_setup(state: GameState) -> WishState:
    assert isinstance(state, WishState)
    while state.phase == 0:
        state.apply(state.legal_actions()[-1])
    return state


def test_packs_are_the_tokens() -> None:
    assert GAME.required_tokens(ALL) == {cid: 1 for cid in sorted(ALL)}
    assert all(cid.startswith("pack-") for cid in GAME.required_tokens(ALL))


def test_starter_decks_are_legal() -> None:
    for deck in GAME.starter_decks:
        assert GAME.check_deck(deck, GAME.default_options) == []


def test_deck_violations_are_all_listed() -> None:
    deck = {"pack-knight": 2, "stone": 1, "pack-nope": 1}
    assert _rules(deck) == [
        "metaversus.deck.copies",
        "metaversus.deck.unknown-pack",
        "metaversus.deck.unknown-pack",
        "metaversus.deck.pack-count",
    ]
    assert _rules({"pack-knight": 1}) == ["metaversus.deck.pack-count"]
    assert _rules({"pack-knight": 1, "pack-witch": 1}, selection="free") == [
        "metaversus.deck.pack-count"
    ]
    assert _rules({"pack-knight": 1}, selection="free") == []
    assert _rules({"pack-knight": 1, "pack-witch": 1}, selection="random") == []
    assert _rules(
        {"pack-knight": 1, "pack-witch": 1}, selection="difficulty", difficulty="easy"
    ) == ["metaversus.deck.difficulty"]
    assert _rules({"pack-knight": 1}, selection="difficulty") == ["metaversus.options.difficulty"]
    assert _rules(ALL, selection="draft") == ["metaversus.options.selection"]
    assert _rules(ALL, first_match=2) == ["metaversus.options.first-match"]
    assert _rules(ALL, max_rounds=0) == ["metaversus.options.max-rounds"]
    assert _rules(ALL, colour="red") == ["metaversus.options.unknown"]


def test_new_match_rejects_a_bad_deck() -> None:
    with pytest.raises(DeckRejected) as exc:
        new_match("metaversus", (ALL, {"pack-knight": 3}), 1)
    assert {v.rule for v in exc.value.violations} == {
        "metaversus.deck.copies",
        "metaversus.deck.pack-count",
    }


@pytest.mark.parametrize("seed", range(12))
def test_setup_deals_the_basic_deck_and_stocks_the_market(seed: int) -> None:
    s = _finish_setup(new_match("metaversus", GAME.starter_decks, seed))
    assert isinstance(s, WishState)
    for p in (0, 1):
        owned = Counter(C.ids[c] for c in s.hand[p] + s.deck[p])
        assert owned == {"stone": 7, "dagger": 3}
        assert len(s.hand[p]) == 5
        assert len(s.pile[p]) == 4
        assert s.maxhp[p] == C.max_hp[s.char[p]]
    assert [C.ids[c] for c in s.m_card[:6]] == [
        "stone",
        "iron",
        "gold",
        "dagger",
        "long-sword",
        "warhammer",
    ]
    assert s.m_stock[6:] == [6] * 10
    assert s.m_src[6:] == [1, 1, 2, 2, 2, 2, 3, 3, 3, 3]
    assert len(s.neutral) == len(C.neutral) - 2
    assert s.first in (0, 1) and s.active == s.first and s.turn == 1


def test_first_player_die_gives_both_players() -> None:
    firsts = {
        _finish_setup(new_match("metaversus", GAME.starter_decks, seed)).first for seed in range(20)
    }
    assert firsts == {0, 1}
    for newbie in (0, 1):
        s = _finish_setup(new_match("metaversus", GAME.starter_decks, 4, {"first_match": newbie}))
        assert s.first == 1 - newbie
