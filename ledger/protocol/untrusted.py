"""Reading JSON nobody vouches for (request bodies, audit bundles) without recursing on it.

Checked before any parser recurses: the size, then the nesting depth (an iterative scan of the
bytes). Then the bytes are parsed and checked: strict UTF-8, no NaN/Infinity, integers within
64 bits, finite floats, strings without lone surrogates or NUL and within a length. Every
refusal names the limit (and its setting) and where in the document it was hit.

`restore_recursion_limit` undoes what py_ecc does on import (it raises Python's recursion limit
to 100,000, so a deeply nested document overflows the C stack and kills the process instead of
raising RecursionError).
"""

from __future__ import annotations

import json
import operator
import re
import sys
from dataclasses import dataclass
from itertools import accumulate, count
from typing import TYPE_CHECKING, Any

from ledger.errors import InvalidInput, PayloadTooLarge

if TYPE_CHECKING:
    from ledger.settings import Settings

#: CPython's own default; py_ecc raises it to 100,000 when it is imported
DEFAULT_RECURSION_LIMIT = 1000
INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1

# a JSON string (escapes included), or one bracket: the only tokens that change the depth
_TOKENS = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]', re.DOTALL)
_NOT_BRACKETS = bytes(sorted(set(range(256)) - set(b"[]{}")))
# each bracket as one step of 2 * openers so far: an opener 2, a closer 0
_BRACKET_STEPS = bytes.maketrans(b"[{]}", b"\x02\x02\x00\x00")
_OPENERS = frozenset(b"[{")
# digits and minus signs kept, every other byte a space: what is left splits into number runs
_NUMBER_RUNS = bytes(c if c in b"0123456789-" else 0x20 for c in range(256))
_SURROGATE = re.compile("[\ud800-\udfff]")


def restore_recursion_limit() -> None:
    """Import py_ecc now (its import raises the recursion limit) and put the limit back."""
    import py_ecc  # noqa: F401  (imported for its side effect, which is then undone)

    if sys.getrecursionlimit() > DEFAULT_RECURSION_LIMIT:
        sys.setrecursionlimit(DEFAULT_RECURSION_LIMIT)


@dataclass(frozen=True)
class JsonLimits:
    """The limits a JSON document must keep, with the setting that sets each."""

    max_bytes: int
    max_depth: int
    max_string_length: int
    #: the setting behind max_bytes (request bodies and bundles have different ones)
    bytes_setting: str = "max_body_bytes"

    @classmethod
    def for_requests(cls, settings: Settings) -> JsonLimits:
        """The limits of API request bodies."""
        return cls(settings.max_body_bytes, settings.max_json_depth, settings.max_string_length)

    @classmethod
    def for_bundles(cls, settings: Settings) -> JsonLimits:
        """The limits of bundle files (`metaledger verify`): larger, otherwise the same."""
        return cls(
            settings.max_bundle_bytes,
            settings.max_json_depth,
            settings.max_string_length,
            bytes_setting="max_bundle_bytes",
        )


def _limit(name: str, value: int) -> dict[str, Any]:
    return {"limit": name, "setting": f"METALEDGER_{name.upper()}", "max": value}


def too_large(size: int | None, limits: JsonLimits, what: str = "the request body") -> None:
    """PayloadTooLarge if `size` bytes exceed the size limit (None: unknown, no check)."""
    if size is not None and size > limits.max_bytes:
        raise PayloadTooLarge(
            f"{what} is larger than {limits.max_bytes} bytes",
            **_limit(limits.bytes_setting, limits.max_bytes),
        )


@dataclass(frozen=True, slots=True)
class _Outline:
    """What the limits ask of a JSON text, read from its quotes at C speed (no token loop)."""

    #: the deepest nesting of brackets outside strings
    depth: int
    #: the longest string (or key) in characters of the text (at least its decoded length)
    longest: int
    #: whether a `\\u` escape occurs (the only way to write a NUL or a lone surrogate: the
    #: parser refuses raw control characters and the UTF-8 decoder raw surrogates)
    unicode_escapes: bool
    #: whether every run of 19 digits or more outside strings (with its sign) is within 64 bits
    #: (every shorter integer is): then no integer needs checking
    ints_in_range: bool


def _within_int64(run: bytes) -> bool:
    """Whether a run of digits and minus signs is an integer within 64 bits (20 characters hold
    every one: int() is not asked to read a longer run)."""
    if len(run) > 20 or not run.lstrip(b"-").isdigit() or run.count(b"-") > (run[:1] == b"-"):
        return False
    return INT64_MIN <= int(run) <= INT64_MAX


def _outline(data: bytes) -> _Outline | None:
    """The outline of JSON text `data`; None when its quotes do not pair up (no JSON: the token
    scans decide). Escaped backslashes, then escaped quotes, are blanked (each escape is
    two characters read left to right), so every quote left opens or closes a string."""
    plain = data.replace(b"\\\\", b"__").replace(b'\\"', b"__")
    parts = plain.split(b'"')
    if len(parts) % 2 == 0:
        return None
    outside = b"".join(parts[::2])
    steps = outside.translate(None, _NOT_BRACKETS).translate(_BRACKET_STEPS)
    # after i + 1 brackets the depth is 2 * openers - (i + 1)
    depth = max(map(operator.sub, accumulate(steps), count(1)), default=0)
    longest = max(map(len, parts[1::2]), default=0)
    runs = outside.translate(_NUMBER_RUNS).split()
    ints_in_range = max(map(len, runs), default=0) < 19 or all(
        _within_int64(run) for run in runs if len(run) >= 19
    )
    return _Outline(max(depth, 0), longest, b"\\u" in plain, ints_in_range)


def check_depth(data: bytes, max_depth: int, outline: _Outline | None = None) -> None:
    """InvalidInput if brackets outside strings nest deeper than `max_depth` (no recursion;
    `outline`: the text's, when the caller has it)."""
    if data.count(b"[") + data.count(b"{") <= max_depth:
        return  # too few brackets to nest that deep (most bodies: no scan needed)
    outline = outline or _outline(data)
    if outline is not None and outline.depth <= max_depth:
        return
    depth = 0  # too deep: the token scan finds where
    for token in _TOKENS.finditer(data):
        first = data[token.start()]
        if first in _OPENERS:
            depth += 1
            if depth > max_depth:
                raise InvalidInput(
                    f"JSON nests deeper than {max_depth} levels (at byte {token.start()})",
                    **_limit("max_json_depth", max_depth),
                )
        elif first != 0x22:  # a closing bracket ('"' starts a string token)
            depth -= 1


@dataclass(frozen=True)
class _Refused:
    """A number the parser met that the document may not hold; reported with its location."""

    text: str
    reason: str
    limit: str


def _constant(name: str) -> _Refused:
    return _Refused(name, "is not a JSON number", "json-numbers")


def _bounded_int(text: str) -> int | _Refused:
    # 20 characters hold every 64-bit integer; longer ones are refused before int() reads them
    if len(text) > 20 or not INT64_MIN <= int(text) <= INT64_MAX:
        return _Refused(text, "is outside the 64-bit integer range", "int64")
    return int(text)


def _finite_float(text: str) -> float | _Refused:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        return _Refused(text, "is too large for a number", "json-numbers")
    return value


def _refuse_number(value: _Refused, where: tuple[str | int, ...]) -> InvalidInput:
    shown = value.text if len(value.text) <= 24 else value.text[:24] + "…"
    extra: dict[str, Any] = {"field": _path(where), "limit": value.limit}
    if value.limit == "int64":
        extra.update(min=INT64_MIN, max=INT64_MAX)
    return InvalidInput(f"{_path(where)}: the number {shown} {value.reason}", **extra)


def _path(parts: tuple[str | int, ...]) -> str:
    """A JSONPath-like location; keys escaped as JSON (ASCII), so that any key can be shown."""
    out = "$"
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            key = json.dumps(part[:40])[1:-1]
            out += f".{key}" if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", key) else f'["{key}"]'
    return out


def _check_string(value: str, where: tuple[str | int, ...], max_length: int) -> None:
    if len(value) > max_length:
        raise InvalidInput(
            f"{_path(where)}: a string longer than {max_length} characters",
            field=_path(where),
            **_limit("max_string_length", max_length),
        )
    if _SURROGATE.search(value):
        raise InvalidInput(
            f"{_path(where)}: a lone UTF-16 surrogate is not valid Unicode",
            field=_path(where),
            limit="unicode",
        )
    if "\x00" in value:
        raise InvalidInput(
            f"{_path(where)}: strings may not contain NUL characters",
            field=_path(where),
            limit="unicode",
        )


def _suspect(value: str, max_length: int) -> bool:
    return len(value) > max_length or "\x00" in value or _SURROGATE.search(value) is not None


def _text_is_clean(data: bytes, max_string_length: int, outline: _Outline | None) -> bool:
    """Whether the JSON text `data` (valid UTF-8) can hold no string or key that breaks a
    limit (see `_Outline`); False means: walk the document to find the one that does."""
    if len(data) <= max_string_length:
        return b"\\u" not in data
    return (
        outline is not None and outline.longest <= max_string_length and not outline.unicode_escapes
    )


def _all_clean(document: Any, max_string_length: int) -> bool:
    """Whether no string, key or number of `document` breaks a limit (no paths kept: fast)."""
    stack = [document]
    while stack:
        value = stack.pop()
        if isinstance(value, str):
            if _suspect(value, max_string_length):
                return False
        elif isinstance(value, dict):
            for key in value:
                if _suspect(key, max_string_length):
                    return False
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
        elif isinstance(value, _Refused):
            return False
    return True


def check_values(document: Any, max_string_length: int) -> None:
    """InvalidInput naming the first string (or key) that is too long or not valid Unicode, or
    number out of range."""
    if _all_clean(document, max_string_length):
        return
    stack: list[tuple[Any, tuple[str | int, ...]]] = [(document, ())]
    while stack:
        value, where = stack.pop()
        if isinstance(value, str):
            _check_string(value, where, max_string_length)
        elif isinstance(value, _Refused):
            raise _refuse_number(value, where)
        elif isinstance(value, dict):
            for key, item in value.items():
                _check_string(key, (*where, key), max_string_length)
                stack.append((item, (*where, key)))
        elif isinstance(value, list):
            stack.extend((item, (*where, i)) for i, item in enumerate(value))


def parse(data: bytes, limits: JsonLimits, what: str = "the request body") -> Any:
    """Parse untrusted JSON bytes within `limits`; InvalidInput / PayloadTooLarge naming the limit."""
    too_large(len(data), limits, what)
    outline = _outline(data) if len(data) > limits.max_string_length else None
    check_depth(data, limits.max_depth, outline)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidInput(
            f"{what} is not valid UTF-8 (at byte {exc.start})", limit="unicode"
        ) from None
    refused: list[_Refused] = []

    def noted(value: Any) -> Any:
        if isinstance(value, _Refused):
            refused.append(value)
        return value

    try:
        document = json.loads(
            text,
            parse_constant=lambda name: noted(_constant(name)),
            # the C scanner's own int() when the outline shows every integer within 64 bits
            parse_int=(
                None
                if outline is not None and outline.ints_in_range
                else lambda digits: noted(_bounded_int(digits))
            ),
            parse_float=lambda digits: noted(_finite_float(digits)),
        )
    except RecursionError:  # unreachable after check_depth; kept so a parser never kills us
        raise InvalidInput(f"{what} nests too deeply", limit="max_json_depth") from None
    except ValueError as exc:
        raise InvalidInput(f"{what} is not JSON: {str(exc)[:200]}", limit="json") from None
    if refused or not _text_is_clean(data, limits.max_string_length, outline):
        check_values(document, limits.max_string_length)  # names the first value refused
    return document
