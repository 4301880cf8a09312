"""MetaVersus WISH: the catalogue's contents and the checks it goes through."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine import get_game
from engine.core.catalogue import validate_catalogue
from engine.core.errors import CatalogueError
from engine.metaversus import cards
from engine.metaversus.cards import CARDS as C
from engine.metaversus.cards import CATALOGUE, KIND_NAMES, PACK, SCHEMA, ops_in_use
from engine.metaversus.effects import COMPILER

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
