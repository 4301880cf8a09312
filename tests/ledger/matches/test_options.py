"""Match options against each game's option schema (`Game.option_schema`, checked by
ledger.matches.options): defaults fit, types are strict, bounds and choices hold, unknown
options and unsupported schema keywords are refused."""

from __future__ import annotations

from typing import Any

import pytest

from engine import game_names, get_game
from ledger.errors import ConfigurationError, InvalidInput
from ledger.matches.options import SUPPORTED, check_options, problem


def _keywords(schema: Any) -> set[str]:
    if isinstance(schema, dict):
        found = set(schema) if "type" in schema or "enum" in schema or "oneOf" in schema else set()
        for key, value in schema.items():
            if key == "properties":
                for sub in value.values():
                    found |= _keywords(sub)
            elif key in ("items",):
                found |= _keywords(value)
            elif key == "oneOf":
                for sub in value:
                    found |= _keywords(sub)
        return found
    return set()


@pytest.mark.parametrize("name", game_names())
def test_every_game_publishes_a_schema_its_defaults_fit(name: str) -> None:
    game = get_game(name)
    schema = game.option_schema
    assert schema["type"] == "object" and schema["additionalProperties"] is False
    assert _keywords(schema) <= SUPPORTED
    assert set(game.default_options) <= set(schema["properties"])
    check_options(name, schema, dict(game.default_options))
    check_options(name, schema, {})


@pytest.mark.parametrize(
    ("game", "options", "field"),
    [
        ("metamasters", {"tokens": 2**70}, "options.tokens"),
        ("metamasters", {"tokens": -1}, "options.tokens"),
        ("metamasters", {"tokens": "x"}, "options.tokens"),
        ("metamasters", {"tokens": True}, "options.tokens"),
        ("metamasters", {"tokens": 3.0}, "options.tokens"),
        ("metamasters", {"tokens": []}, "options.tokens"),
        ("metamasters", {"tokens": [1, "2"]}, "options.tokens"),
        ("metamasters", {"first": True}, "options.first"),
        ("metaversus", {"selection": "chaos"}, "options.selection"),
        ("metaversus", {"max_rounds": 0}, "options.max_rounds"),
        ("metaversus", {"max_rounds": 1001}, "options.max_rounds"),
        ("metaversus", {"first_match": False}, "options.first_match"),
        ("metaversus", {"difficulty": "\u202eeasy"}, "options.difficulty"),
        ("metax", {"tokens": 3}, "options.tokens"),
    ],
)
def test_bad_options_are_refused_naming_the_option(
    game: str, options: dict[str, Any], field: str
) -> None:
    with pytest.raises(InvalidInput) as refused:
        check_options(game, get_game(game).option_schema, options)
    assert refused.value.extra["field"] == field


@pytest.mark.parametrize(
    ("game", "options"),
    [
        ("metamasters", {"tokens": 1}),
        ("metamasters", {"tokens": [3, 5], "first": 1}),
        ("metaversus", {"selection": "difficulty", "difficulty": "hard", "max_rounds": 1000}),
        ("metaversus", {"first_match": None}),
    ],
)
def test_good_options_pass(game: str, options: dict[str, Any]) -> None:
    check_options(game, get_game(game).option_schema, options)


def test_a_schema_keyword_that_is_not_implemented_is_refused() -> None:
    with pytest.raises(ConfigurationError):
        problem(3, {"type": "integer", "multipleOf": 2})
