"""MetaVersus WISH: catalogue contents, what a player brings, setup, observation, odd inputs."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from engine.core import Action, DeckRejected, GameState, IllegalAction, Prng, get_game, new_match
from engine.core.bots import Bot, GreedyBot, RandomBot, play_match
from engine.core.catalogue import validate_catalogue
from engine.core.errors import CatalogueError
from engine.metaversus import cards
from engine.metaversus.cards import CARDS as C
from engine.metaversus.cards import CATALOGUE, KIND_NAMES, PACK, SCHEMA, ops_in_use
from engine.metaversus.effects import COMPILER
from engine.metaversus.encoding import WishState
from engine.metaversus.position import from_position

GAME = get_game("metaversus")
ALL = dict(GAME.starter_decks[0])


def test_catalogue_contents() -> None:
    required = {
        C.ids[c]: (KIND_NAMES[C.kind[c]], C.count[c], C.pricier[c]) for c in C.required_cards
    }
    assert required == {
        "stone": ("currency", 10, 0),
        "iron": ("currency", 20, 0),
        "gold": ("currency", 20, 0),
        "dagger": ("weapon", 10, 3),
        "long-sword": ("weapon", 15, 3),
        "warhammer": ("weapon", 20, 3),
    }
    assert sorted(C.ids[c] for c in C.basic_deck) == ["dagger"] * 3 + ["stone"] * 7
    assert len(C.neutral) >= 8
    assert len(C.packs) >= 4
    assert {C.difficulty[p] for p in C.packs} == {"easy", "normal", "hard"}
    for p in C.packs:
        assert len(C.pack_market[p]) == 8
        assert C.hp[p] > 0 and CATALOGUE.cards[p]["skill"]["effect"]
    for c in range(C.n):
        if C.kind[c] != PACK and not C.required[c]:
            assert C.stars[c] >= 1 and "plus" in CATALOGUE.cards[c], C.ids[c]
        if C.required[c]:
            assert C.stars[c] == 0
    assert len(ops_in_use()) >= 12
    assert {"draw", "ap", "gems", "buys", "gain", "remove_hand", "heal", "damage"} <= ops_in_use()
    assert GAME.catalogue_hash == CATALOGUE.hash and len(GAME.catalogue_hash) == 64
    assert all({"id", "name", "kind"} <= set(c) for c in GAME.cards)


def test_packs_are_the_tokens() -> None:
    assert GAME.required_tokens(ALL) == {cid: 1 for cid in sorted(ALL)}
    assert all(cid.startswith("pack-") for cid in GAME.required_tokens(ALL))


def test_starter_decks_are_legal() -> None:
    for deck in GAME.starter_decks:
        assert GAME.check_deck(deck, GAME.default_options) == []


def _rules(deck: dict[str, int], **options: object) -> list[str]:
    return [v.rule for v in GAME.check_deck(deck, {**GAME.default_options, **options})]


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


def _finish_setup(state: GameState) -> WishState:
    assert isinstance(state, WishState)
    while state.phase == 0:
        state.apply(state.legal_actions()[-1])
    return state


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


def test_observation_hides_hands_and_deck_order() -> None:
    s = from_position(
        {
            "characters": ["pack-knight", "pack-witch"],
            "players": [
                {"hand": ["gold"], "deck": ["n-bazaar", "n-shrine"]},
                {"hand": ["n-firebomb"], "deck": ["n-spear"]},
            ],
        }
    )
    obs = s.observation(0)
    text = json.dumps(obs)
    assert obs["hand"] == ["gold"]
    assert obs["hand_sizes"] == [1, 1] and obs["deck_sizes"] == [2, 1]
    for hidden in ("n-firebomb", "n-spear", "n-bazaar", "n-shrine", "k-lance", "w-wand"):
        assert hidden not in text, hidden
    for key in obs:
        assert key not in ("deck", "decks", "pile", "neutral_pile")
    assert s.observation(1)["hand"] == ["n-firebomb"]


def test_observation_hides_setup_secrets() -> None:
    s = new_match("metaversus", GAME.starter_decks, 1)
    assert isinstance(s, WishState)
    obs = s.observation(1)
    assert obs["selection_hand"] == sorted(C.ids[k] for k in s.sel[1])
    assert obs["opponent_selection_hand_size"] == 5 and "bans" in obs and obs["bans"] is None
    s.apply(Action("noban"))
    assert s.observation(1)["bans"] is None
    s.apply(Action("noban"))
    assert s.observation(1)["bans"] == [None, None]
    s.apply(Action("choose", (s.sel[0][0],)))
    assert s.observation(1)["characters"] == [None, None]
    assert s.observation(0)["characters"][0] is not None


@pytest.mark.parametrize(
    ("action", "rule"),
    [
        (Action("play", (0,)), "metaversus.action.malformed"),
        (Action("play", (0, 2)), "metaversus.action.malformed"),
        (Action("buy", ()), "metaversus.action.malformed"),
        (Action("buy", (99,)), "metaversus.buy.no-slot"),
        (Action("buy", (-1,)), "metaversus.buy.no-slot"),
    ],
)
def test_malformed_actions_name_a_rule(action: Action, rule: str) -> None:
    s = from_position({"characters": ["pack-knight", "pack-witch"], "phase": "buy"})
    before = s.state_hash()
    with pytest.raises(IllegalAction) as exc:
        s.apply(action)
    assert exc.value.rule == rule
    assert s.state_hash() == before


def test_labels_are_readable() -> None:
    s = from_position(
        {
            "characters": ["pack-knight", "pack-witch"],
            "phase": "buy",
            "gems": 3,
            "players": [{"hand": ["stone"]}, {}],
        }
    )
    labels = {s.label(a) for a in s.legal_actions()}
    assert (
        "play Stone" in labels
        and "buy Iron (slot 1, 3 Gems)" in labels
        and "end the buy phase" in labels
    )


def test_shuffle_is_a_uniform_deterministic_permutation() -> None:
    rng = Prng(11)
    counts: Counter[tuple[int, ...]] = Counter()
    for _ in range(24_000):
        items = [0, 1, 2, 3]
        rng.shuffle(items)
        counts[tuple(items)] += 1
    assert len(counts) == 24
    # each of the 24 orders expects 1000; 6 standard deviations is ~190
    assert all(800 < n < 1200 for n in counts.values())
    a, b = list(range(40)), list(range(40))
    Prng(3).shuffle(a)
    Prng(3).shuffle(b)
    assert a == b and sorted(a) == list(range(40)) and a != list(range(40))


def test_greedy_bot_beats_random_and_games_end_by_hp() -> None:
    wins = 0
    for seed in range(6):
        greedy: Bot = GreedyBot(GAME)
        rand: Bot = RandomBot(seed)
        bots = [greedy, rand] if seed % 2 == 0 else [rand, greedy]
        state, _ = play_match("metaversus", GAME.starter_decks, seed, bots)
        assert isinstance(state, WishState)
        wins += state.winner == seed % 2
        assert state.zero and state.turn < 100
    assert wins == 6


def test_catalogue_schema_and_effects_are_checked() -> None:
    data = json.loads((Path(cards.__file__).parent / "catalogue.json").read_text(encoding="utf-8"))
    validate_catalogue(data, SCHEMA)
    broken = json.loads(json.dumps(data))
    del broken["cards"][0]["cost"]
    with pytest.raises(CatalogueError, match="cost"):
        validate_catalogue(broken, SCHEMA)
    broken = json.loads(json.dumps(data))
    broken["cards"][6]["plus"]["colour"] = "red"
    with pytest.raises(CatalogueError, match="plus"):
        validate_catalogue(broken, SCHEMA)
    with pytest.raises(CatalogueError, match="unknown operation"):
        COMPILER.compile([{"op": "fly"}], "x")
    with pytest.raises(CatalogueError, match="must be >= 1"):
        COMPILER.compile([{"op": "draw", "n": 0}], "x")
    with pytest.raises(CatalogueError, match="expected one of"):
        COMPILER.compile([{"op": "gain", "card": "stone", "to": "moon"}], "x")
