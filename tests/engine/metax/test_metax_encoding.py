"""What each reader may read of a MetaX match: the leaks the issue found stay closed."""

from __future__ import annotations

import pytest

from engine.core.actions import Action
from engine.core.errors import IllegalAction
from engine.core.game import get_game, new_match
from engine.metax.cards import CARDS
from engine.metax.encoding import MetaXState

GAME = get_game("metax")

SEARCH = {
    "turn": 5,
    "active": 0,
    "first_player": 0,
    "step": "planning",
    "played_character": False,
    "players": [
        {
            "deck": [{"card": "JL-001", "id": 40}, {"card": "AT-001", "id": 41}],
            "hand": [{"card": "AT-002", "id": 10}],
        },
        {"deck": ["B-INT-1", "B-INT-2"], "hand": ["EV-001"], "characters": [{"card": "JL-004"}]},
    ],
}


def _mulligan() -> MetaXState:
    s = new_match("metax", GAME.starter_decks, 1)
    assert isinstance(s, MetaXState)
    s.apply(Action("first_player", (s.current_player,)))
    s.apply(Action("mulligan"))
    return s


def test_a_mulliganed_card_is_named_only_for_its_owner() -> None:
    s = _mulligan()
    me = s.current_player
    card = s.hands[me][0]
    name = CARDS.name[s.cards[card]]
    entries = s.project_all(Action("bottom", (card,)))
    assert entries[me] == {
        "label": f"puts {name} on the bottom of the deck",
        "action": ["bottom", card],
    }
    for reader in (1 - me, 2):
        assert entries[reader] == {
            "label": "puts a card on the bottom of the deck",
            "action": ["bottom", None],
        }
    for _ in range(3):
        s.apply(Action("bottom", (s.hands[me][0],)))
    last = s.project(Action("bottom", (s.hands[me][0],)), 1 - me)
    assert last["label"] == "puts the last two cards on the bottom of the deck"


def test_a_card_found_in_a_deck_is_named_only_for_its_finder() -> None:
    s = GAME.from_position(SEARCH)
    assert isinstance(s, MetaXState)
    s.apply(Action("play_character", (10,)))  # Mikasa: search the deck for a Scout Regiment
    assert [m["action"] for m in s.legal_moves(0)] == [["choose", 41], ["choose", -1]]
    mine, theirs, crowd = s.project_all(Action("choose", (41,)))
    assert mine["action"] == ["choose", 41] and CARDS.name[s.cards[41]] in mine["label"]
    for entry in (theirs, crowd):
        assert entry["action"] == ["choose", None]
        assert entry["label"].startswith('chooses a card for "search your deck')
        assert CARDS.name[s.cards[41]] not in entry["label"]
    assert s.project(Action("choose", (-1,)), 1)["label"].startswith("chooses nothing for")


def test_opposing_cards_are_named_by_place_and_own_cards_by_instance() -> None:
    s = GAME.from_position(SEARCH)
    s.apply(Action("play_character", (10,)))
    obs = s.observation(1)
    mikasa = obs["players"][0]["characters"][0]
    assert mikasa["id"] == "0.character.0" and mikasa["card"] == CARDS.cid["AT-002"]
    mine = obs["players"][1]["characters"][0]
    assert isinstance(mine["id"], int) and s.owner[mine["id"]] == 1
    assert s.observation(None)["players"][1]["characters"][0]["id"] == "1.character.0"
    assert s.observation(None)["players"][0]["hand"] is None


def test_moves_resolve_from_the_readers_ids_and_refusals_reveal_nothing() -> None:
    s = GAME.from_position(SEARCH)
    assert s.resolve(["play_character", 10], 0) == Action("play_character", (10,))
    theirs = s.chars[1][0]
    # the opponent's card, a card of no one and a hidden place are refused alike
    for move in (["play_character", theirs], ["play_character", 999]):
        with pytest.raises(IllegalAction, match="you have no card") as exc:
            s.resolve(move, 0)
        assert exc.value.rule == "metax.move.unknown-card"
    for move in (["push_effect", "1.hand.0"], ["push_effect", "1.character.2"]):
        with pytest.raises(IllegalAction, match="no card you can see"):
            s.resolve(move, 0)
    assert s.resolve(["push_effect", "1.character.0"], 0) == Action("push_effect", (theirs,))
    for junk in ([], "end_planning", [1], ["x" * 99], ["attack", 1.5, 2], ["attack", True, 2]):
        with pytest.raises(IllegalAction) as exc:
            s.resolve(junk, 0)
        assert exc.value.rule == "metax.move.malformed"
    # the rules refuse the opponent's visible card without naming its instance
    with pytest.raises(IllegalAction) as exc:
        s.apply_move(["push_effect", "1.character.0"], 0)
    assert str(theirs) not in exc.value.message
    with pytest.raises(IllegalAction, match="not-your-turn"):
        s.apply_move(["end_planning"], 1)


def test_apply_move_records_the_real_action_and_one_entry_per_reader() -> None:
    s = GAME.from_position(SEARCH)
    action, entries = s.apply_move(["play_character", 10], 0)
    assert action == Action("play_character", (10,)) and len(entries) == 3
    assert entries[0]["action"] == ["play_character", 10]
    assert entries[1]["action"] == entries[2]["action"] == ["play_character", None]
    assert "Mikasa" in entries[1]["label"] and s.chars[0][0] == 10
