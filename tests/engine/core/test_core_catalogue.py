"""Catalogue loading and schema validation."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from engine.core.catalogue import (
    CardSchema,
    Field,
    catalogue_hash,
    load_catalogue,
    validate_catalogue,
)
from engine.core.errors import CatalogueError

SCHEMA = CardSchema(
    common={"id": Field("str"), "kind": Field("str"), "name": Field("str", min=1)},
    kinds={
        "unit": {
            "power": Field("int", min=0, max=9),
            "tags": Field("list", items=Field("str"), required=False),
        },
        "spell": {
            "cost": Field("int", min=0),
            "stats": Field("dict", keys=("a", "b"), values=Field("int", min=1)),
        },
    },
)
GOOD: dict[str, Any] = {
    "format": "metaledger.catalogue/1",
    "game": "toy",
    "version": "1",
    "cards": [
        {"id": "U1", "kind": "unit", "name": "One", "power": 3, "tags": ["x"]},
        {"id": "S1", "kind": "spell", "name": "Zap", "cost": 1, "stats": {"a": 2}},
    ],
}


def test_valid_catalogue_and_hash() -> None:
    cat = validate_catalogue(copy.deepcopy(GOOD), SCHEMA)
    assert cat.index_of() == {"U1": 0, "S1": 1}
    assert cat.by_id["S1"]["cost"] == 1
    assert cat.hash == catalogue_hash(GOOD) and len(cat.hash) == 64
    changed = copy.deepcopy(GOOD)
    changed["cards"][0]["power"] = 4
    assert catalogue_hash(changed) != cat.hash


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda d: d["cards"][0].pop("power"), "card 'U1': missing field 'power'"),
        (lambda d: d["cards"][0].update(power=12), "card 'U1': field 'power': expected <= 9"),
        (lambda d: d["cards"][0].update(power="3"), "card 'U1': field 'power': expected int"),
        (
            lambda d: d["cards"][0].update(power=True),
            "card 'U1': field 'power': expected int, got bool",
        ),
        (lambda d: d["cards"][0].update(wings=2), "card 'U1': unknown field 'wings'"),
        (lambda d: d["cards"][0].update(tags=[1]), "field 'tags': expected str at [0]"),
        (
            lambda d: d["cards"][1].update(stats={"c": 1}),
            "card 'S1': field 'stats': unexpected key 'c'",
        ),
        (lambda d: d["cards"][1].update(kind="trap"), "card 'S1': field 'kind'"),
        (lambda d: d["cards"].append(dict(d["cards"][0])), "card 'U1': duplicate id"),
        (lambda d: d.update(format="x"), "format must be"),
        (lambda d: d.pop("cards"), "missing top-level field 'cards'"),
        (lambda d: d["cards"][0].pop("id"), "field 'id'"),
    ],
)
def test_invalid_catalogues_name_card_and_field(mutate: Any, message: str) -> None:
    data = copy.deepcopy(GOOD)
    mutate(data)
    with pytest.raises(CatalogueError) as err:
        validate_catalogue(data, SCHEMA)
    assert message in str(err.value)


def test_load_from_package_and_missing_file() -> None:
    from engine.metax.cards import SCHEMA as MX

    cat = load_catalogue("engine.metax", "catalogue.json", MX)
    assert cat.game == "metax" and len(cat.cards) >= 45
    with pytest.raises(CatalogueError, match="not found"):
        load_catalogue("engine.metax", "nope.json", MX)
