"""Public ids and moves: places parse strictly, and a move resolves only to what its viewer sees."""

from __future__ import annotations

from typing import Any

import pytest

from engine.core.actions import Action
from engine.core.errors import IllegalAction
from engine.core.projection import parse_place, place, resolve_move

OWNER = [1, 1, 1, 0, 0, 1, 1, 1]  # the viewer (0) owns instances 3 and 4
SEEN = {(1, "actor", 2): 17, (0, "trash", 0): 5}
CARD_ARGS = {"attack": (0, 1), "team": (0, 2)}


def _resolve(move: Any) -> Action:
    return resolve_move("g", move, 0, CARD_ARGS, OWNER, lambda w: SEEN.get(w, -1))


def test_places_round_trip_and_anything_else_is_refused() -> None:
    assert place(1, "actor", 2) == "1.actor.2"
    assert parse_place("1.actor.2") == (1, "actor", 2)
    assert parse_place("0.character.1.damage.3") == (0, "character", 1, "damage", 3)
    assert parse_place("0.in-play.0") == (0, "in-play", 0)
    for bad in ("", "1", "1.actor", "2.actor.0", "-1.actor.0", "1.Actor.0", "1.actor.-1", "1.actor.²",
                "1.actor.1000", "1..0", "1.act or.0", "1.actor.0" + ".x" * 20):  # fmt: skip
        assert parse_place(bad) is None, bad


def test_a_move_resolves_own_ids_and_places_to_instances() -> None:
    assert _resolve(["attack", 3, "1.actor.2"]) == Action("attack", (3, 17))
    assert _resolve(["team", "0.trash.0", 7, 4]) == Action("team", (5, 7, 4))  # 7: not a card
    assert _resolve(["attack", -1]) == Action("attack", (-1,))  # a literal (decline)
    assert _resolve(["pass"]) == Action("pass")


@pytest.mark.parametrize(
    ("move", "rule"),
    [
        (["attack", 9], "g.move.unknown-card"),  # not the viewer's: the same answer for any card
        (["attack", "1.actor.1"], "g.move.unknown-card"),  # nothing seen there
        (["attack", "1.hand.0"], "g.move.unknown-card"),  # a hand is no place
        (["team", 3, "1.actor.2"], "g.move.malformed"),  # a place where no card is named
        (["attack", True], "g.move.malformed"),
        (["attack", 1.0], "g.move.malformed"),
        (["attack", None], "g.move.malformed"),
        (["attack", [3]], "g.move.malformed"),
        ([], "g.move.malformed"),
        ("attack", "g.move.malformed"),
        ({"attack": 3}, "g.move.malformed"),
        ([3, 4], "g.move.malformed"),
        (["a" * 33], "g.move.malformed"),
        (["attack", *range(9)], "g.move.malformed"),
    ],
)
def test_a_move_naming_nothing_the_viewer_sees_is_refused(move: Any, rule: str) -> None:
    with pytest.raises(IllegalAction) as exc:
        _resolve(move)
    assert exc.value.rule == rule
    assert len(exc.value.message) < 120


def test_a_long_place_is_not_echoed_whole() -> None:
    with pytest.raises(IllegalAction) as exc:
        _resolve(["attack", "1.actor." + "9" * 5000])
    assert len(exc.value.message) < 120


def test_a_game_without_instances_takes_integers_only() -> None:
    assert resolve_move("w", ["buy", 3], 1) == Action("buy", (3,))
    with pytest.raises(IllegalAction, match="is an integer"):
        resolve_move("w", ["buy", "0.market.3"], 1)
