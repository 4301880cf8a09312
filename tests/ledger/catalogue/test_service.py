"""The catalogue service names what it cannot serve: an unknown game is NotFound, a hosted game
that does not load is a ConfigurationError naming it (never dropped from the list)."""

from __future__ import annotations

import pytest

import ledger.catalogue.service as catalogue
from engine import game_names
from ledger.errors import ConfigurationError, NotFound


def test_every_hosted_game_loads() -> None:
    assert [g.name for g in catalogue.available_games()] == game_names()


def test_an_unknown_game_is_not_found() -> None:
    with pytest.raises(NotFound, match="no game 'chess'; known: "):
        catalogue.load_game("chess")


def test_a_game_that_does_not_load_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    broken = game_names()[-1]

    def get_game(name: str) -> object:
        if name == broken:
            raise ImportError(f"No module named 'engine.{name}.cards'")
        return real(name)

    real = catalogue.get_game
    monkeypatch.setattr(catalogue, "get_game", get_game)
    with pytest.raises(ConfigurationError, match=f"game '{broken}' does not load: ImportError"):
        catalogue.available_games()
    with pytest.raises(ConfigurationError, match=f"game '{broken}' does not load"):
        catalogue.load_game(broken)
