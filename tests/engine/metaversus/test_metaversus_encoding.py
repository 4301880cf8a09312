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


def test_setup_choices_stay_secret_until_both_duelists_made_them() -> None:
    s = new_match("metaversus", GAME.starter_decks, 1)
    assert isinstance(s, WishState)
    ban = s.sel[0][0]
    mine, theirs, crowd = s.project_all(Action("ban", (ban,)))
    assert mine == {"label": f"ban {C.names[ban]}", "action": ["ban", ban]}
    secret = {"label": "decide on a ban (shown once both duelists have)", "action": None}
    assert theirs == crowd == secret == s.project(Action("noban"), 1)
    s.apply(Action("ban", (ban,)))
    assert s.observation(1)["bans"] is None and s.observation(None)["bans"] is None
    s.apply(Action("noban"))
    assert s.observation(1)["bans"] == [C.ids[ban], None]
    pack = s.sel[0][0]
    for reader in (1, None):
        entry = s.project(Action("choose", (pack,)), reader)
        assert entry["action"] == ["choose", None] and C.names[pack] not in entry["label"]
    s.apply(Action("choose", (pack,)))
    s.apply(Action("choose", (s.sel[1][0],)))
    pick = next(a for a in s.legal_actions() if a.kind == "pick")
    entry = s.project(pick, 1)
    assert entry["action"] == ["pick", None] and C.names[pick.args[0]] not in entry["label"]


def test_a_spectator_sees_neither_hand() -> None:
    s = new_match("metaversus", GAME.starter_decks, 1)
    crowd = s.observation(None)
    assert crowd["player"] is None and crowd["selection_hand"] is None
    assert crowd["hand"] is None and crowd["my_picks"] is None
    assert crowd["selection_hand_sizes"] == [5, 5]
    assert s.legal_moves(None) == []
