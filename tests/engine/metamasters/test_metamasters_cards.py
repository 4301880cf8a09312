"""The MetaMasters catalogue: coverage of the rulebook's card types, schema and effect checks."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from engine.core.catalogue import validate_catalogue
from engine.core.errors import CatalogueError
from engine.core.game import get_game
from engine.metamasters.cards import CARDS, CATALOGUE, SCHEMA, card_def, card_table, ops_in_use

GAME = get_game("metamasters")


def test_catalogue_covers_the_rulebook() -> None:
    cards = GAME.cards
    assert len(cards) >= 40
    kinds = {c["kind"] for c in cards}
    assert kinds == {"token", "actor", "link", "special"}
    assert {c["type"] for c in cards if c["kind"] == "actor"} == {"delta", "omega", "sigma"}
    assert {c["type"] for c in cards if c["kind"] == "special"} == {"normal", "continuous", "quick"}
    assert sum(1 for c in cards if c["kind"] == "token") >= 3
    assert sum(1 for c in cards if c["kind"] == "link") >= 3
    assert len(ops_in_use()) >= 12
    assert GAME.catalogue_hash == CATALOGUE.hash and len(GAME.catalogue_hash) == 64


def test_marks_and_compiled_parts() -> None:
    by = {c.id: c for c in CARDS}
    assert by["MM-A01"].mark == "∆" and by["MM-A20"].mark == "Ω" and by["MM-A30"].mark == "∑"
    assert by["MM-S10"].mark == "∞" and by["MM-S20"].mark == "»" and by["MM-S01"].mark == ""
    assert (by["MM-L05"].link_ego, by["MM-L05"].link_int) == (4, -2)
    assert by["MM-S12"].aura == (0, -1, 1)
    assert by["MM-A30"].condition == (("trash_at_least", 5),)


def _raw() -> dict[str, Any]:
    return {
        "format": "metaledger.catalogue/1",
        "game": "metamasters",
        "version": "1.0.0",
        "cards": copy.deepcopy([dict(c) for c in CATALOGUE.cards]),
    }


@pytest.mark.parametrize(
    ("patch", "message"),
    [
        ({"kind": "monster"}, "kind"),
        ({"ego": -1}, "ego"),
        ({"type": "gamma"}, "type"),
        ({"effect": [{"op": "teleport"}]}, "unknown operation"),
        ({"effect": [{"op": "draw", "n": 0}]}, "must be >="),
        ({"effect": [{"op": "destroy", "to": "everyone"}]}, "expected one of"),
        ({"colour": "red"}, "unknown field"),
    ],
)
def test_schema_rejects_bad_cards(patch: dict[str, Any], message: str) -> None:
    data = _raw()
    data["cards"][4].update(patch)
    with pytest.raises(CatalogueError, match=message):
        card_table(validate_catalogue(data, SCHEMA))


@pytest.mark.parametrize(
    ("card", "patch", "message"),
    [
        ("MM-A30", {"condition": None}, "condition"),
        ("MM-A01", {"condition": {"trash_at_least": 1}}, "only ∑"),
        ("MM-A01", {"effect": [{"op": "destroy", "to": "target"}]}, "needs a 'target'"),
        ("MM-A01", {"effect": [{"op": "aura", "stat": "ego", "n": 1, "side": "own"}]}, "∞"),
        ("MM-S01", {"effect": [{"op": "link_stat", "ego": 1}]}, "Links"),
    ],
)
def test_semantic_checks(card: str, patch: dict[str, Any], message: str) -> None:
    raw = dict(next(c for c in CATALOGUE.cards if c["id"] == card))
    raw.update(patch)
    raw = {k: v for k, v in raw.items() if v is not None}
    with pytest.raises(CatalogueError, match=message):
        card_def(0, raw)
