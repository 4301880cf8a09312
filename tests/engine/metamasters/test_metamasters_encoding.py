"""What each player may see of a MetaMasters state."""

from __future__ import annotations

import json

import pytest

from engine.core.actions import Action
from engine.core.errors import IllegalAction
from engine.core.game import get_game
from engine.metamasters.cards import BY_ID
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


LINKING = {
    "turn": 3,
    "active": 0,
    "phase": "main1",
    "players": [
        {
            "hand": ["MM-L02", "MM-A01"],
            "actors": [{"card": "MM-A21", "face": "down"}],
            "tokens": ["MM-T01"],
            "deck": ["MM-A02", "MM-A04"],
        },
        {
            "hand": ["MM-A11"],
            "actors": [{"card": "MM-A04"}],
            "tokens": ["MM-T02"],
            "deck": ["MM-A20"],
        },
    ],
}


def _linking() -> MetaMastersState:
    s = GAME.from_position(LINKING)
    assert isinstance(s, MetaMastersState) and s.current_player == 0
    return s


def test_a_card_set_face_down_is_named_only_for_its_owner() -> None:
    s = _linking()
    actor = next(i for i in s.hand[0] if s.card(i) == "MM-A01")
    mine, theirs, crowd = s.project_all(Action("set", (actor,)))
    assert mine == {
        "label": "set Keyboard Warrior ∆ face-down (0.actor.1)",
        "action": ["set", actor],
    }
    for entry in (theirs, crowd):
        assert entry == {"label": "set a card face-down (0.actor.1)", "action": ["set", None]}


def test_a_link_does_not_name_the_face_down_actor_it_attaches_to() -> None:
    s = _linking()
    link = next(i for i in s.hand[0] if s.card(i) == "MM-L02")
    host = s.actors[0][0]
    mine, theirs, crowd = s.project_all(Action("link", (link, host)))
    link_name = BY_ID["MM-L02"].name
    assert BY_ID["MM-A21"].name in mine["label"] and mine["action"] == ["link", link, host]
    for entry in (theirs, crowd):
        assert entry == {
            "label": f"attach {link_name} to a face-down card (0.actor.0)",
            "action": ["link", None, "0.actor.0"],
        }
        assert BY_ID["MM-A21"].name not in json.dumps(entry)


def test_a_face_down_card_is_a_place_whatever_its_instance_id() -> None:
    s = _linking()
    seen = s.observation(1)["players"][0]["actors"][0]
    assert seen == {"id": "0.actor.0", "face_up": False, "position": "defense", "links": []}
    assert s.observation(0)["players"][0]["actors"][0]["id"] == s.actors[0][0]
    # the opponent names it by its place, and by nothing else
    assert s.resolve(["attack", "1.actor.0", "0.actor.0"], 1) == Action(
        "attack", (s.actors[1][0], s.actors[0][0])
    )
    with pytest.raises(IllegalAction, match="you have no card"):
        s.resolve(["attack", s.actors[1][0], s.actors[0][0]], 1)
    with pytest.raises(IllegalAction, match="no card you can see"):
        s.resolve(["target", "0.actor.2"], 1)
