"""A hostile corpus: requests for every endpoint of an OpenAPI document, and bundle files for
`metaledger verify`, made of what breaks parsers and databases: deep nesting, huge bodies,
lone surrogates, NaN and infinities, +/-2^63 and beyond, negative and zero numbers, zero-width
and right-to-left-override characters, NUL bytes, wrong types.

The fuzz bench (`metaledger bench fuzz`) sends all of it; the test suite sends a sample.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

#: strings that have broken encoders, collations or renderers
STRINGS: dict[str, str] = {
    "lone-surrogate": "\ud800",
    "low-surrogate": "x\udfffy",
    "nul": "a\x00b",
    "zero-width": "\u200b\u200c\u200d\ufeff",
    "rtl-override": "\u202egpj.exe",
    "control": "\x01\x1b[31m\x7f",
    "empty": "",
    "long": "x" * 20_000,
    "emoji": "\U0001f0cf" * 10,
    "sql": "'; DROP TABLE matches; --",
    "path": "../../../etc/passwd",
    "hex-ish": "0x" + "g" * 64,
}
#: numbers at and past every boundary a 64-bit column or a JSON parser has
NUMBERS: dict[str, Any] = {
    "zero": 0,
    "negative": -1,
    "int64-max": 2**63 - 1,
    "int64-min": -(2**63),
    "int64-max+1": 2**63,
    "int64-min-1": -(2**63) - 1,
    "2^70": 2**70,
    "2^256": 2**256,
    "fraction": 0.5,
    "nan": float("nan"),
    "infinity": float("inf"),
    "-infinity": float("-inf"),
}
#: values of the wrong type for any field
WRONG_TYPES: dict[str, Any] = {
    "true": True,
    "null": None,
    "string-number": "3",
    "array": [1, [2, [3]]],
    "object": {"a": {"b": {}}},
}
#: whole bodies, as bytes
RAW_BODIES: dict[str, bytes] = {
    "deep-array": b"[" * 100_000,
    "deep-object": b'{"a":' * 50_000,
    "deep-closed": b"[" * 5_000 + b"]" * 5_000,
    "nan": b'{"x": NaN}',
    "infinity": b"[Infinity, -Infinity]",
    "huge-exponent": b"[1e99999]",
    "huge-integer": b"[" + b"9" * 5_000 + b"]",
    "invalid-utf8": b'{"x": "\xff\xfe"}',
    "escaped-surrogate": b'{"x": "\\ud800"}',
    "nul-escape": b'{"x": "\\u0000"}',
    "raw-nul": b'{"x": "\x00"}',
    "not-json": b"hello world",
    "truncated": b'{"message": "abc',
    "empty": b"",
    "null": b"null",
    "number": b"9223372036854775808",
    "big-flat-array": b"[" + b"0," * 300_000 + b"0]",
}


@dataclass(frozen=True)
class Request:
    """One hostile HTTP request."""

    name: str
    method: str
    path: str
    body: bytes | None = None
    #: values as str (ASCII) or bytes (sent as they are)
    headers: dict[str, str | bytes] = field(default_factory=dict)
    #: declare this many body bytes (and send none): refused before the body arrives
    declared_length: int | None = None


def dumps(value: Any) -> bytes:
    """JSON as a hostile client writes it: NaN/Infinity literals, lone surrogates escaped."""
    return json.dumps(value, allow_nan=True, ensure_ascii=True).encode("ascii")


def _segment(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, allow_nan=True)
    return quote(text.encode("utf-8", "surrogatepass"), safe="")


def _resolve(schema: dict[str, Any], document: dict[str, Any]) -> dict[str, Any]:
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/"):
        node: Any = document
        for part in ref[2:].split("/"):
            node = node[part]
        return dict(node)
    return schema


def _example(schema: dict[str, Any], document: dict[str, Any]) -> Any:
    """A plausible value for `schema` (the base a mutation starts from)."""
    schema = _resolve(schema, document)
    if "default" in schema:
        return schema["default"]
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return _example(schema[key][0], document)
    kind = schema.get("type")
    if kind == "object":
        props = schema.get("properties", {})
        return {
            k: _example(v, document) for k, v in props.items() if k in schema.get("required", [])
        }
    if kind == "array":
        return [_example(schema.get("items", {}), document)]
    if kind == "integer":
        return 1
    if kind == "boolean":
        return False
    if kind == "string":
        pattern = schema.get("pattern", "")
        if "0-9a-fA-F]{64}" in pattern or "0-9a-f]{64}" in pattern:
            return "0x" + "11" * 32
        if "enum" in schema:
            return schema["enum"][0]
        return "metax"
    return None


def _hostile_values() -> Iterator[tuple[str, Any]]:
    yield from STRINGS.items()
    yield from NUMBERS.items()
    yield from WRONG_TYPES.items()


def _fill(path: str, values: dict[str, Any]) -> str:
    return re.sub(r"\{([^}]+)\}", lambda m: _segment(values.get(m.group(1), "x")), path)


def endpoint_requests(
    openapi: dict[str, Any], known: dict[str, str] | None = None
) -> list[Request]:
    """Every hostile request for every operation of `openapi`: raw bodies, each body field,
    path and query parameter set to each hostile value, oversized and odd headers.
    `known` gives real values for path parameters (a match id, a deck id) so that requests
    also reach the code behind the lookups."""
    known = known or {}
    out: list[Request] = []
    for template, operations in openapi.get("paths", {}).items():
        for method, operation in operations.items():
            method = method.upper()
            params = operation.get("parameters", [])
            path_params = {
                p["name"]: known.get(p["name"], "x") for p in params if p["in"] == "path"
            }
            base = _fill(template, path_params)
            label = f"{method} {template}"
            for name, value in _hostile_values():
                for p in params:
                    if p["in"] == "path":
                        path = _fill(template, {**path_params, p["name"]: value})
                        out.append(Request(f"{label} path {p['name']}={name}", method, path))
                    elif p["in"] == "query":
                        query = f"{p['name']}={_segment(value)}"
                        out.append(
                            Request(f"{label} query {p['name']}={name}", method, f"{base}?{query}")
                        )
            for name in ("lone-surrogate", "nul", "rtl-override", "long"):
                query = f"{_segment(STRINGS[name])}={_segment(STRINGS[name])}"
                out.append(Request(f"{label} query unknown={name}", method, f"{base}?{query}"))
            json_headers: dict[str, str | bytes] = {"Content-Type": "application/json"}
            content = operation.get("requestBody", {}).get("content", {}).get("application/json")
            if content is None and method != "POST":
                out.append(
                    Request(
                        f"{label} body deep-array",
                        method,
                        base,
                        RAW_BODIES["deep-array"],
                        json_headers,
                    )
                )
                continue
            for name, raw in RAW_BODIES.items():
                out.append(Request(f"{label} body {name}", method, base, raw, json_headers))
            out.append(
                Request(
                    f"{label} body declared-10MB",
                    method,
                    base,
                    None,
                    json_headers,
                    10 * 1024 * 1024,
                )
            )
            out.append(
                Request(
                    f"{label} body streamed-2MB",
                    method,
                    base,
                    b"[" + b"0," * (1 << 20) + b"0]",
                    json_headers,
                )
            )
            if content is None:
                continue
            schema = _resolve(content.get("schema", {}), openapi)
            example = _example(schema, openapi)
            for prop in schema.get("properties", {}):
                for name, value in _hostile_values():
                    body = dict(example) if isinstance(example, dict) else {}
                    body[prop] = value
                    out.append(
                        Request(
                            f"{label} field {prop}={name}", method, base, dumps(body), json_headers
                        )
                    )
                body = dict(example) if isinstance(example, dict) else {}
                body[prop] = {s: 1 for s in STRINGS.values() if len(s) < 100}  # hostile keys
                out.append(
                    Request(
                        f"{label} field {prop}=hostile-keys",
                        method,
                        base,
                        dumps(body),
                        json_headers,
                    )
                )
    out.extend(_header_requests())
    return out


def _header_requests() -> list[Request]:
    return [
        Request(
            "authorization 100KB",
            "GET",
            "/auth/me",
            headers={"Authorization": "Bearer " + "x" * 100_000},
        ),
        Request(
            "authorization rtl",
            "GET",
            "/auth/me",
            headers={"Authorization": "Bearer \u202eabc".encode()},
        ),
        Request(
            "authorization not bearer",
            "GET",
            "/decks",
            headers={"Authorization": "Basic Zm9vOmJhcg=="},
        ),
        Request(
            "authorization empty bearer", "GET", "/decks", headers={"Authorization": "Bearer "}
        ),
        Request(
            "content-type odd",
            "POST",
            "/auth/verify",
            b"{}",
            {"Content-Type": "application/json; charset=utf-16"},
        ),
        Request("content-type text", "POST", "/decks", b"{}", {"Content-Type": "text/plain"}),
        Request(
            "many headers", "GET", "/games", headers={f"x-h{i}": "v" * 100 for i in range(300)}
        ),
        Request("long url", "GET", "/games/" + "a" * 50_000),
        Request("nul in path", "GET", "/games/%00"),
        Request("dot segments", "GET", "/games/..%2f..%2fetc"),
    ]


def _leaves(node: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Paths to the leaves of a document (the first item of each list, the first 12 entries of
    each object)."""
    if isinstance(node, dict):
        for key, value in list(node.items())[:12]:
            yield from _leaves(value, (*prefix, key))
    elif isinstance(node, list) and node:
        yield from _leaves(node[0], (*prefix, 0))
    else:
        yield prefix


def _replaced(bundle: Any, where: tuple[Any, ...], value: Any) -> Any:
    copy = json.loads(json.dumps(bundle))
    node = copy
    for part in where[:-1]:
        node = node[part]
    node[where[-1]] = value
    return copy


def bundle_files(bundle: dict[str, Any], per_leaf: int = 3) -> dict[str, bytes]:
    """Hostile variants of a genuine bundle: raw bodies, and each leaf replaced by `per_leaf`
    hostile values (rotating through all of them, so every value meets many leaves)."""
    out = {f"raw {name}": data for name, data in RAW_BODIES.items()}
    values = list(_hostile_values())
    leaves = [w for w in _leaves(bundle) if w and w[-1] != "actions"]
    for i, where in enumerate(leaves):
        label = ".".join(str(p) for p in where)
        for j in range(per_leaf):
            name, value = values[(i * per_leaf + j) % len(values)]
            out[f"{label}={name}"] = dumps(_replaced(bundle, where, value))
    # hostile keys and deep nesting inside an otherwise genuine bundle
    out["decks.0.cards=hostile-keys"] = dumps(
        _replaced(bundle, ("decks", 0, "cards"), {s: 1 for s in STRINGS.values() if len(s) < 100})
    )
    out["transcript.options=deep"] = dumps(bundle).replace(
        b'"options": {}', b'"options": ' + b"[" * 100_000 + b"]" * 100_000, 1
    )
    return out


@dataclass(frozen=True)
class Answer:
    """What the server answered (status None: the connection failed before an answer)."""

    status: int | None
    content_type: str = ""
    body: bytes = b""


def _declared(base_url: str, request: Request, auth: dict[str, str]) -> Answer:
    """Declare a large body, send none, read the answer the server gives before reading it."""
    import socket
    from urllib.parse import urlsplit

    url = urlsplit(base_url)
    head = [f"{request.method} {request.path} HTTP/1.1", f"Host: {url.netloc}"]
    head += [
        f"{k}: {v.decode('latin-1') if isinstance(v, bytes) else v}"
        for k, v in {**auth, **request.headers}.items()
    ]
    head.append(f"Content-Length: {request.declared_length}")
    try:
        with socket.create_connection((url.hostname, url.port or 80), timeout=10) as sock:
            sock.sendall(("\r\n".join(head) + "\r\n\r\n").encode("latin-1"))
            chunks = []
            while chunk := sock.recv(65536):
                chunks.append(chunk)
    except OSError:
        return Answer(None)
    raw_head, _, body = b"".join(chunks).partition(b"\r\n\r\n")
    lines = raw_head.decode("latin-1").split("\r\n")
    if not lines[0].startswith("HTTP/"):
        return Answer(None)
    types = [
        ln.split(":", 1)[1].strip() for ln in lines[1:] if ln.lower().startswith("content-type:")
    ]
    return Answer(int(lines[0].split()[1]), types[0] if types else "", body)


def send(
    client: Any, base_url: str, request: Request, auth: dict[str, str] | None = None
) -> Answer:
    """Send one hostile request with `client` (an httpx.Client), signed in with `auth` headers."""
    import httpx

    auth = auth or {}
    if request.declared_length is not None:
        return _declared(base_url, request, auth)
    try:
        response = client.request(
            request.method,
            base_url + request.path,
            content=request.body,
            headers={**auth, **request.headers},
        )
    except httpx.HTTPError:
        return Answer(None)
    return Answer(response.status_code, response.headers.get("content-type", ""), response.content)
