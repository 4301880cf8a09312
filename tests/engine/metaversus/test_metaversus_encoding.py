"""MetaVersus WISH: what each player sees, and labels."""

from __future__ import annotations

import json

from engine import Action, get_game, new_match
from engine.metaversus.cards import CARDS as C
from engine.metaversus.encoding import WishState
from engine.metaversus.position import from_position

GAME = get_game("metaversus")
ALL = dict(GAME.starter_decks[0])


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
    assert obs["selection_hand_sizes"][0] == 5 and "bans" in obs and obs["bans"] is None
    s.apply(Action("noban"))
    assert s.observation(1)["bans"] is None
    s.apply(Action("noban"))
    assert s.observation(1)["bans"] == [None, None]
    s.apply(Action("choose", (s.sel[0][0],)))
    assert s.observation(1)["characters"] == [None, None]
    assert s.observation(0)["characters"][0] is not None


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
