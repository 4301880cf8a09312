"""Match options checked against the game's option schema (`Game.option_schema`).

The schemas are JSON Schema objects using a small subset of keywords, all implemented here:
`type`, `enum`, `minimum`, `maximum`, `oneOf`, `items`, `minItems`, `maxItems`, `properties`,
`additionalProperties: false` (and the annotations `description`, `title`, `default`). A
schema using any other keyword is refused, so that no constraint is silently ignored.
Types are strict: `true` is not an integer, `"3"` is not a number.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ledger.errors import ConfigurationError, InvalidInput

SUPPORTED = frozenset(
    {
        "type",
        "enum",
        "minimum",
        "maximum",
        "oneOf",
        "items",
        "minItems",
        "maxItems",
        "properties",
        "additionalProperties",
        "description",
        "title",
        "default",
    }
)
_TYPES: dict[str, tuple[type, ...]] = {
    "integer": (int,),
    "number": (int, float),
    "string": (str,),
    "boolean": (bool,),
    "array": (list,),
    "object": (dict,),
}


def _type_ok(value: Any, name: str) -> bool:
    if name == "null":
        return value is None
    if isinstance(value, bool) and name != "boolean":
        return False
    return isinstance(value, _TYPES[name])


def _same(a: Any, b: Any) -> bool:
    """Equal and of the same type (so that True is not 1, 1.0 is not 1)."""
    return type(a) is type(b) and a == b


def problem(value: Any, schema: Mapping[str, Any]) -> str | None:
    """What is wrong with `value` under `schema` (None: nothing)."""
    unknown = set(schema) - SUPPORTED
    if unknown:
        raise ConfigurationError(f"option schema keyword(s) not supported: {sorted(unknown)}")
    if "type" in schema:
        names = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(_type_ok(value, n) for n in names):
            return f"must be of type {' or '.join(names)}, got {_describe(value)}"
    if "enum" in schema and not any(_same(value, choice) for choice in schema["enum"]):
        return f"must be one of {schema['enum']}, got {_describe(value)}"
    if "minimum" in schema and isinstance(value, int | float) and value < schema["minimum"]:
        return f"must be at least {schema['minimum']}, got {value}"
    if "maximum" in schema and isinstance(value, int | float) and value > schema["maximum"]:
        return f"must be at most {schema['maximum']}, got {_describe(value)}"
    if "oneOf" in schema:
        fits = [s for s in schema["oneOf"] if problem(value, s) is None]
        if len(fits) != 1:
            reasons = "; or ".join(p for s in schema["oneOf"] if (p := problem(value, s)))
            return reasons if not fits else "matches more than one of the allowed forms"
    if isinstance(value, list):
        if "minItems" in schema and len(value) < schema["minItems"]:
            return f"needs at least {schema['minItems']} items"
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            return f"takes at most {schema['maxItems']} items"
        if "items" in schema:
            for i, item in enumerate(value):
                found = problem(item, schema["items"])
                if found:
                    return f"item {i} {found}"
    if isinstance(value, dict):
        properties: Mapping[str, Any] = schema.get("properties", {})
        for key, item in value.items():
            if key not in properties:
                if schema.get("additionalProperties", True) is False:
                    return f"has no option {key!r} (known: {', '.join(properties) or 'none'})"
                continue
            found = problem(item, properties[key])
            if found:
                return f"{key} {found}"
    return None


def _describe(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def check_options(game_name: str, schema: Mapping[str, Any], options: Any) -> None:
    """InvalidInput naming the option (`field`: options.<name>) that breaks `schema`."""
    if not isinstance(options, dict):
        raise InvalidInput("options must be an object", field="options")
    properties: Mapping[str, Any] = schema.get("properties", {})
    for key in sorted(options):
        if key not in properties:
            known = ", ".join(properties) or "none"
            raise InvalidInput(
                f"options: {game_name} has no option {key!r} (known: {known})",
                field=f"options.{key}",
            )
        found = problem(options[key], properties[key])
        if found:
            raise InvalidInput(f"options.{key} {found}", field=f"options.{key}")
