"""ledger.protocol.untrusted: limits checked before parsing (size, depth), then numbers, Unicode and
string lengths; and the recursion limit py_ecc raises on import, put back."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from ledger.errors import InvalidInput, PayloadTooLarge
from ledger.protocol import untrusted

LIMITS = untrusted.JsonLimits(max_bytes=1 << 20, max_depth=32, max_string_length=100)


def _refusal(data: bytes) -> dict[str, object]:
    with pytest.raises((InvalidInput, PayloadTooLarge)) as refused:
        untrusted.parse(data, LIMITS)
    return {"detail": refused.value.detail, **refused.value.extra}


VALID = [
    (b"[]", []),
    (b'{"a": [1, -2, {"b": "]]]}}"}]}', {"a": [1, -2, {"b": "]]]}}"}]}),
    (b'"\\\\[\\""', '\\["'),
    (b"9223372036854775807", 2**63 - 1),
    (b"-9223372036854775808", -(2**63)),
    (b'"\\ud83d\\ude00"', "\U0001f600"),  # a surrogate pair is one code point
    (b'"\xe2\x80\xae"', "\u202e"),  # right-to-left override: valid Unicode
    (b"1.5", 1.5),
    (b"[" * 32 + b"]" * 32, [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]),
]


@pytest.mark.parametrize(("data", "value"), VALID)
def test_valid_json_within_the_limits_parses(data: bytes, value: object) -> None:
    assert untrusted.parse(data, LIMITS) == value


REFUSED = [
    (b"[" * 100_000, "max_json_depth"),
    (b'{"a":' * 33 + b"1" + b"}" * 33, "max_json_depth"),
    (b"[" * 33 + b"]" * 33, "max_json_depth"),
    (b"9223372036854775808", "int64"),
    (b"-9223372036854775809", "int64"),
    (b"[" + b"9" * 5000 + b"]", "int64"),
    (b"[NaN]", "json-numbers"),
    (b"[-Infinity]", "json-numbers"),
    (b"[1e400]", "json-numbers"),
    (b'{"card": "\\ud800"}', "unicode"),
    (b'{"\\udfff": 1}', "unicode"),
    (b'["a\\u0000b"]', "unicode"),
    (b'"\xff"', "unicode"),
    (b'"' + b"x" * 101 + b'"', "max_string_length"),
    (b"[1,", "json"),
]


@pytest.mark.parametrize(("data", "limit"), REFUSED)
def test_refusals_name_their_limit(data: bytes, limit: str) -> None:
    assert _refusal(data)["limit"] == limit


#: a string just within the limit: a document holding it is longer than any of its strings may
#: be, so its limits are read from the text's outline (quotes, brackets, number runs) first
_PAD = b'"' + b"p" * (LIMITS.max_string_length - 1) + b'"'


@pytest.mark.parametrize(("data", "value"), [(d, v) for d, v in VALID if d.count(b"[") < 32])
def test_valid_json_parses_the_same_when_longer_than_a_string(data: bytes, value: object) -> None:
    padded = b"[" + _PAD + b", " + data + b"]"
    assert len(padded) > LIMITS.max_string_length
    assert untrusted.parse(padded, LIMITS) == [_PAD.decode()[1:-1], value]


@pytest.mark.parametrize(("data", "limit"), REFUSED)
def test_refusals_hold_when_longer_than_a_string(data: bytes, limit: str) -> None:
    padded = b"[" + _PAD + b", " + data + b"]"
    assert _refusal(padded)["limit"] == limit


@pytest.mark.parametrize(
    "data",
    [
        rb'["\\", [[["\"]]]"]]]]',
        rb'{"a": "\\\"[[[", "b": [[[[1]]]]}',
        rb'[["]]]\\"], [[["x"]]]]',
        rb'{"k\"[": [[[[[]]]]], "v": "\\\\"}',
    ],
)
def test_the_outline_depth_is_the_token_scans(data: bytes) -> None:
    json.loads(data)  # escaped quotes and backslashes beside brackets, in valid JSON
    outline = untrusted._outline(data)
    assert outline is not None
    depth, deepest = 0, 0
    for token in untrusted._TOKENS.finditer(data):
        if data[token.start()] in b"[{":
            depth += 1
            deepest = max(deepest, depth)
        elif data[token.start()] in b"]}":
            depth -= 1
    assert outline.depth == deepest


def test_the_size_is_checked_first() -> None:
    small = untrusted.JsonLimits(max_bytes=10, max_depth=32, max_string_length=100)
    with pytest.raises(PayloadTooLarge) as refused:
        untrusted.parse(b"[" * 11, small)
    assert refused.value.extra["setting"] == "METALEDGER_MAX_BODY_BYTES"


def test_refusals_say_where() -> None:
    found = _refusal(b'{"cards": {"ok": 1, "\\ud800": 2}}')
    assert found["field"] == '$.cards["\\ud800"]'
    assert "\ud800" not in str(found["detail"])  # the message itself is valid Unicode
    assert _refusal(b'{"a": [0, "x\\u0000"]}')["field"] == "$.a[1]"


def test_depth_scan_ignores_brackets_inside_strings() -> None:
    text = b'["' + b"[" * 90 + b'", "\\"[[[["]'
    assert untrusted.parse(text, LIMITS) == ["[" * 90, '"[[[[']


_DEEP_AFTER_PY_ECC = """
import json, sys
import py_ecc  # raises the recursion limit to 100,000
{restore}
try:
    json.loads("[" * 200_000 + "]" * 200_000)
except RecursionError:
    print("RecursionError")
"""


def test_py_ecc_raises_the_recursion_limit_and_restoring_it_keeps_deep_json_harmless() -> None:
    # what made `metaledger verify` and the API die with SIGSEGV: the limit py_ecc sets lets
    # the C JSON parser overflow the C stack
    crashed = subprocess.run(
        [sys.executable, "-c", _DEEP_AFTER_PY_ECC.format(restore="")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert crashed.returncode < 0, crashed  # killed by a signal
    restored = subprocess.run(
        [
            sys.executable,
            "-c",
            _DEEP_AFTER_PY_ECC.format(
                restore="from ledger.protocol.untrusted import restore_recursion_limit\n"
                "restore_recursion_limit()\nassert sys.getrecursionlimit() == 1000"
            ),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert restored.returncode == 0 and restored.stdout.strip() == "RecursionError", restored


@pytest.mark.slow
def test_the_api_app_restores_the_recursion_limit() -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, py_ecc; assert sys.getrecursionlimit() == 100000\n"
            "import api.app; print(sys.getrecursionlimit())",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0 and done.stdout.strip() == "1000", done
