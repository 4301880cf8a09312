"""What each player may see of a MetaMasters state."""

from __future__ import annotations

import json

from engine.core.actions import Action
from engine.core.game import get_game
from engine.metamasters.encoding import MetaMastersState

GAME = get_game("metamasters")

POSITION = {
    "turn": 3,
    "active": 0,
    "phase": "main1",
    "players": [
        {"hand": ["MM-A01"], "tokens": ["MM-T01"], "deck": ["MM-A02", "MM-A04"]},
        {
            "hand": ["MM-A11", "MM-S03"],
            "actors": [{"card": "MM-A21", "face": "down"}, {"card": "MM-A04", "links": ["MM-L02"]}],
            "specials": [{"card": "MM-S23", "face": "down"}, {"card": "MM-S10"}],
            "tokens": ["MM-T02", "MM-T03"],
            "trash": ["MM-A05"],
            "deck": ["MM-A20", "MM-S25"],
        },
    ],
}


def _state() -> MetaMastersState:
    s = GAME.from_position(POSITION)
    assert isinstance(s, MetaMastersState)
    return s


def test_opponent_sees_no_hidden_card() -> None:
    s = _state()
    obs = s.observation(0)
    text = json.dumps(obs)
    for hidden in ("MM-A21", "MM-S23", "MM-A11", "MM-S03", "MM-A20", "MM-S25"):
        assert hidden not in text, hidden
    opp = obs["players"][1]
    assert opp["hand_count"] == 2 and opp["deck"] == 2 and "hand" not in opp
    assert opp["actors"][0] == {
        "id": "1.actor.0",  # a place, never the instance id
        "face_up": False,
        "position": "defense",
        "links": [],
    }
    assert opp["actors"][1]["card"] == "MM-A04"
    assert (opp["actors"][1]["ego"], opp["actors"][1]["int"]) == (
        2 + 1,
        6 + 3,
    )  # Bull Market, Firewall
    assert opp["specials"][0] == {"id": "1.special.0", "face_up": False}
    assert opp["specials"][1]["card"] == "MM-S10"
    assert opp["tokens"] == ["MM-T02", "MM-T03"] and opp["trash"] == ["MM-A05"]


def test_owner_sees_own_hand_and_face_down_cards_but_not_deck_order() -> None:
    s = _state()
    obs = s.observation(1)
    me = obs["players"][1]
    assert [c["card"] for c in me["hand"]] == ["MM-A11", "MM-S03"]
    assert me["actors"][0]["card"] == "MM-A21" and me["specials"][0]["card"] == "MM-S23"
    assert me["deck"] == 2
    assert "MM-A20" not in json.dumps(obs) and "MM-S25" not in json.dumps(obs)


def test_labels_hide_face_down_cards_from_the_other_player() -> None:
    s = _state()
    assert s.current_player == 1  # player 1's response window: it holds a face-down Special
    face_down_actor = s.actors[1][0]
    s.apply(Action("pass"))
    assert s.current_player == 0
    assert "face-down" in s.label(Action("attack", (0, face_down_actor)))
