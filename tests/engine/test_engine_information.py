"""What a player may see decides everything shown or scored for them: changing hidden information
(the opponent's hand, deck order, an opposing face-down card) never changes that player's
observation, nor the greedy bot's score for them."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator

import pytest

from engine.core.actions import Action
from engine.core.bots import RandomBot, play_match
from engine.core.game import get_game, new_match
from engine.core.prng import Prng
from engine.core.state import GameState
from engine.metamasters.cards import CARDS as MM_CARDS
from engine.metamasters.cards import K_ACTOR
from engine.metamasters.encoding import MetaMastersState
from engine.metaversus.encoding import WishState
from engine.metax.encoding import MetaXState


def _states(game: str, seeds: range) -> Iterator[GameState]:
    """Every 3rd state of a few random matches."""
    g = get_game(game)
    for seed in seeds:
        _, t = play_match(g, g.starter_decks, seed, (RandomBot(seed), RandomBot(seed + 50)))
        state = new_match(game, g.starter_decks, seed)
        for n, raw in enumerate(t.actions):
            state.apply(Action(raw[0], tuple(raw[1:])))
            if n % 3 == 0 and not state.is_over:
                yield state


def _swap_hidden(hand: list[int], deck: list[int], rng: Prng) -> None:
    """Exchange some of a hidden hand's cards with deck cards, then shuffle the deck."""
    for k in range(min(len(hand), len(deck))):
        if rng.below(2):
            j = rng.below(len(deck))
            hand[k], deck[j] = deck[j], hand[k]
    rng.shuffle(deck)


def _hide_metax(s: GameState, me: int, rng: Prng) -> None:
    assert isinstance(s, MetaXState)
    _swap_hidden(s.hands[1 - me], s.decks[1 - me], rng)
    rng.shuffle(s.decks[me])


def _hide_metaversus(s: GameState, me: int, rng: Prng) -> None:
    assert isinstance(s, WishState)
    _swap_hidden(s.hand[1 - me], s.deck[1 - me], rng)
    rng.shuffle(s.deck[me])
    rng.shuffle(s.neutral)


def _hide_metamasters(s: GameState, me: int, rng: Prng) -> None:
    assert isinstance(s, MetaMastersState)
    opp = 1 - me
    _swap_hidden(s.hand[opp], s.deck[opp], rng)
    rng.shuffle(s.deck[me])
    actors = [i for i, c in enumerate(MM_CARDS) if c.kind == K_ACTOR]
    cid = list(s.cid)
    for i in s.actors[opp]:
        if i >= 0 and not s.faceup[i]:  # a face-down Actor becomes another Actor
            cid[i] = actors[rng.below(len(actors))]
    s.cid = tuple(cid)


HIDE: dict[str, Callable[[GameState, int, Prng], None]] = {
    "metax": _hide_metax,
    "metaversus": _hide_metaversus,
    "metamasters": _hide_metamasters,
}


@pytest.mark.parametrize("game", sorted(HIDE))
def test_heuristic_ignores_hidden_information(game: str) -> None:
    g = get_game(game)
    rng = Prng(7)
    checked = 0
    for state in _states(game, range(1, 4)):
        for me in (0, 1):
            before = g.heuristic(state, me)
            other = state.clone()
            HIDE[game](other, me, rng)
            assert g.heuristic(other, me) == pytest.approx(before), (game, me)
            checked += 1
    assert checked > 50


@pytest.mark.parametrize("game", [g for g in sorted(HIDE) if get_game(g).bot_preferences])
def test_bot_preferences_ignore_hidden_information(game: str) -> None:
    g = get_game(game)
    prefer = g.bot_preferences
    assert prefer is not None
    rng = Prng(5)
    checked = narrowed = 0
    for state in _states(game, range(1, 6)):
        me = state.current_player
        legal = state.legal_actions()
        kept = prefer(state, legal)
        assert set(kept) <= set(legal)
        other = state.clone()
        HIDE[game](other, me, rng)
        assert prefer(other, legal) == kept, game
        checked += 1
        narrowed += len(kept) < len(legal)
    assert checked > 50 and narrowed > 0


@pytest.mark.parametrize("game", sorted(HIDE))
def test_observation_ignores_hidden_information(game: str) -> None:
    rng = Prng(11)
    checked = changed = 0
    for state in _states(game, range(1, 4)):
        for me in (0, 1):
            before = json.dumps(state.observation(me), sort_keys=True)
            other = state.clone()
            HIDE[game](other, me, rng)
            changed += other.state_hash() != state.state_hash()
            assert json.dumps(other.observation(me), sort_keys=True) == before, (game, me)
            checked += 1
    assert checked > 50 and changed > checked // 2


def test_metax_heuristic_still_reads_its_own_hand() -> None:
    g = get_game("metax")
    for state in _states("metax", range(1, 2)):
        assert isinstance(state, MetaXState)
        me = state.current_player
        mine = state.hands[me]
        deck = state.decks[me]
        kinds = {g.cards[state.cards[i]]["kind"] for i in mine}
        if "battle" in kinds and any(g.cards[state.cards[i]]["kind"] != "battle" for i in deck):
            other = state.clone()
            b = next(
                k
                for k, i in enumerate(other.hands[me])
                if g.cards[other.cards[i]]["kind"] == "battle"
            )
            j = next(
                k
                for k, i in enumerate(other.decks[me])
                if g.cards[other.cards[i]]["kind"] != "battle"
            )
            other.hands[me][b], other.decks[me][j] = other.decks[me][j], other.hands[me][b]
            assert g.heuristic(other, me) < g.heuristic(state, me)
            return
    pytest.fail("no state with a battle card in hand and another card in the deck")
