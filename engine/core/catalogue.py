"""Card catalogues: a game's card designs as a JSON data file, validated against a schema.

A catalogue file (package data of the game, read with importlib.resources) looks like::

    {"format": "metaledger.catalogue/1", "game": "metax", "version": "1.0.0",
     "cards": [{"id": "U92-JL", "kind": "battle", "name": "...", ...}, ...]}

The schema is a small hand-written one (`Field`, `CardSchema`): common fields for every card
plus the fields of each kind. Unknown fields, missing required fields, wrong types, values out
of range and duplicate ids are rejected with a `CatalogueError` naming the card and the field.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from engine.core.errors import CatalogueError
from engine.core.state import canonical_json

CATALOGUE_FORMAT = "metaledger.catalogue/1"

_TYPES: dict[str, tuple[type, ...]] = {
    "str": (str,),
    "int": (int,),
    "bool": (bool,),
    "list": (list,),
    "dict": (dict,),
    "any": (object,),
}


@dataclass(frozen=True, slots=True)
class Field:
    """One field of a card: its JSON type and constraints.

    `type` is one of "str", "int", "bool", "list", "dict", "any". For lists, `items` describes
    each element; for dicts, `keys` (allowed keys, all optional unless listed in `required_keys`)
    and `values` describe the entries.
    """

    type: str
    required: bool = True
    choices: tuple[Any, ...] | None = None
    min: int | None = None
    max: int | None = None
    items: Field | None = None
    keys: tuple[str, ...] | None = None
    values: Field | None = None
    min_items: int | None = None
    max_items: int | None = None


@dataclass(frozen=True, slots=True)
class CardSchema:
    """The schema of a catalogue: fields every card has, and extra fields per card kind."""

    common: Mapping[str, Field]
    kinds: Mapping[str, Mapping[str, Field]]


@dataclass(frozen=True)
class Catalogue:
    """A validated catalogue: the raw data, the cards in file order, an index and a hash."""

    game: str
    version: str
    cards: tuple[Mapping[str, Any], ...]
    by_id: Mapping[str, Mapping[str, Any]] = field(repr=False)
    hash: str
    #: the whole file as parsed and validated (what `hash` covers)
    data: Mapping[str, Any] = field(repr=False)

    def index_of(self) -> dict[str, int]:
        """Card id -> integer index in file order (the engine's card numbers)."""
        return {c["id"]: i for i, c in enumerate(self.cards)}


def catalogue_hash(data: Any) -> str:
    """SHA-256 (hex) of the canonical JSON of the catalogue data."""
    return hashlib.sha256(canonical_json(data)).hexdigest()


def catalogue_hash_as_of(
    data: Mapping[str, Any], version: str, without_card_fields: tuple[str, ...]
) -> str:
    """The hash of the catalogue as an earlier version of it was: `data` with its top-level
    `version` set back to `version` and the card fields added since (`without_card_fields`)
    left out. An older ruleset pins this hash, recomputed from today's data, never copied."""
    cards = [
        {k: v for k, v in card.items() if k not in without_card_fields} for card in data["cards"]
    ]
    return catalogue_hash({**data, "version": version, "cards": cards})


def load_catalogue(package: str, resource: str, schema: CardSchema) -> Catalogue:
    """Read `resource` from `package` (importlib.resources), parse JSON and validate it."""
    try:
        text = resources.files(package).joinpath(resource).read_text(encoding="utf-8")
    except (FileNotFoundError, ModuleNotFoundError) as exc:
        raise CatalogueError(f"catalogue {package}/{resource} not found") from exc
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CatalogueError(f"catalogue {package}/{resource}: invalid JSON: {exc}") from exc
    return validate_catalogue(data, schema)


def validate_catalogue(data: Any, schema: CardSchema) -> Catalogue:
    """Validate parsed catalogue data against `schema`; raise CatalogueError on the first fault."""
    if not isinstance(data, dict):
        raise CatalogueError("catalogue: top level must be an object")
    for key in ("format", "game", "version", "cards"):
        if key not in data:
            raise CatalogueError(f"catalogue: missing top-level field {key!r}")
    extra = set(data) - {"format", "game", "version", "cards", "description"}
    if extra:
        raise CatalogueError(f"catalogue: unknown top-level field(s) {sorted(extra)}")
    if data["format"] != CATALOGUE_FORMAT:
        raise CatalogueError(
            f"catalogue: format must be {CATALOGUE_FORMAT!r}, got {data['format']!r}"
        )
    game = data["game"]
    if not isinstance(game, str) or not isinstance(data["version"], str):
        raise CatalogueError("catalogue: 'game' and 'version' must be strings")
    cards = data["cards"]
    if not isinstance(cards, list) or not cards:
        raise CatalogueError(f"catalogue {game}: 'cards' must be a non-empty list")
    by_id: dict[str, Mapping[str, Any]] = {}
    for n, card in enumerate(cards):
        if not isinstance(card, dict):
            raise CatalogueError(f"catalogue {game}: card #{n} is not an object")
        cid = card.get("id")
        if not isinstance(cid, str) or not cid:
            raise CatalogueError(
                f"catalogue {game}: card #{n}: field 'id': required non-empty string"
            )
        if cid in by_id:
            raise CatalogueError(f"catalogue {game}: card {cid!r}: duplicate id")
        _validate_card(game, card, schema)
        by_id[cid] = card
    return Catalogue(
        game=game,
        version=data["version"],
        cards=tuple(cards),
        by_id=by_id,
        hash=catalogue_hash(data),
        data=data,
    )


def _validate_card(game: str, card: Mapping[str, Any], schema: CardSchema) -> None:
    cid = card["id"]
    kind = card.get("kind")
    if not isinstance(kind, str) or kind not in schema.kinds:
        raise CatalogueError(
            f"catalogue {game}: card {cid!r}: field 'kind': expected one of "
            f"{sorted(schema.kinds)}, got {kind!r}"
        )
    fields = {**schema.common, **schema.kinds[kind]}
    for name in card:
        if name not in fields:
            raise CatalogueError(
                f"catalogue {game}: card {cid!r}: unknown field {name!r} for a {kind}"
            )
    for name, spec in fields.items():
        if name not in card:
            if spec.required:
                raise CatalogueError(f"catalogue {game}: card {cid!r}: missing field {name!r}")
            continue
        problem = check_value(card[name], spec)
        if problem:
            raise CatalogueError(f"catalogue {game}: card {cid!r}: field {name!r}: {problem}")


def check_value(value: Any, spec: Field, path: str = "") -> str | None:
    """Return a description of why `value` does not match `spec`, or None if it does."""
    where = f" at {path}" if path else ""
    types = _TYPES.get(spec.type)
    if types is None:
        return f"schema error: unknown type {spec.type!r}"
    if spec.type == "int" and isinstance(value, bool):
        return f"expected int{where}, got bool"
    if not isinstance(value, types):
        return f"expected {spec.type}{where}, got {type(value).__name__} {value!r}"
    if spec.choices is not None and value not in spec.choices:
        return f"expected one of {list(spec.choices)}{where}, got {value!r}"
    if isinstance(value, int):
        if spec.min is not None and value < spec.min:
            return f"expected >= {spec.min}{where}, got {value}"
        if spec.max is not None and value > spec.max:
            return f"expected <= {spec.max}{where}, got {value}"
    if isinstance(value, str) and spec.min is not None and len(value) < spec.min:
        return f"expected a string of at least {spec.min} characters{where}"
    if isinstance(value, list):
        if spec.min_items is not None and len(value) < spec.min_items:
            return f"expected at least {spec.min_items} item(s){where}, got {len(value)}"
        if spec.max_items is not None and len(value) > spec.max_items:
            return f"expected at most {spec.max_items} item(s){where}, got {len(value)}"
        if spec.items is not None:
            for i, item in enumerate(value):
                problem = check_value(item, spec.items, f"{path}[{i}]")
                if problem:
                    return problem
    if isinstance(value, dict):
        if spec.min_items is not None and len(value) < spec.min_items:
            return f"expected at least {spec.min_items} entr(ies){where}, got {len(value)}"
        for k, v in value.items():
            if spec.keys is not None and k not in spec.keys:
                return f"unexpected key {k!r}{where}; allowed: {list(spec.keys)}"
            if spec.values is not None:
                problem = check_value(v, spec.values, f"{path}.{k}" if path else k)
                if problem:
                    return problem
    return None
