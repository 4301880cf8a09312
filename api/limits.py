"""Input limits every request passes before routing (pure ASGI middleware).

- headers: request line + headers within METALEDGER_MAX_HEADER_BYTES (431; the server's own
  protocol enforces the same limit before a request reaches the app, see api.server);
- the URL: no NUL characters in the path or query (422);
- the body: a declared Content-Length over METALEDGER_MAX_BODY_BYTES is refused before any of
  the body is read, and a streamed body as soon as it passes the limit (413);
- a JSON body (or one without a content type, which FastAPI parses as JSON): nesting depth
  (checked before parsing), numbers, Unicode and string lengths (`ledger.protocol.untrusted`, 422).

Every refusal is problem+json naming the limit and its setting.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qsl

from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from api.problems import problem_response
from ledger.errors import InvalidInput, MetaLedgerError
from ledger.protocol import untrusted
from ledger.settings import Settings

_NO_BODY = frozenset({"GET", "HEAD", "OPTIONS", "DELETE"})
#: the scope key of the JSON document parsed here, as a 1-tuple (hot routes reuse it)
PARSED_BODY = "metaledger.parsed_body"


def header_problem(limit: int, instance: str = "") -> dict[str, Any]:
    """The problem+json body of a request whose headers exceed `limit` bytes (431)."""
    body: dict[str, Any] = {
        "type": "https://metaledger.dev/problems/headers-too-large",
        "title": "Request header fields too large",
        "status": 431,
        "detail": f"the request line and headers exceed {limit} bytes",
        "limit": "max_header_bytes",
        "setting": "METALEDGER_MAX_HEADER_BYTES",
        "max": limit,
    }
    if instance:
        body["instance"] = instance
    return body


def _is_json(headers: list[tuple[bytes, bytes]]) -> bool:
    for name, value in headers:
        if name == b"content-type":
            media = value.split(b";", 1)[0].strip().lower()
            return media.endswith(b"/json") or media.endswith(b"+json")
    return True  # FastAPI parses a body without a content type as JSON


def _content_length(headers: list[tuple[bytes, bytes]]) -> int | None:
    for name, value in headers:
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


def _check_url(scope: Scope) -> None:
    if "\x00" in scope.get("path", ""):
        raise InvalidInput("the URL path may not contain NUL characters", limit="unicode")
    query = scope.get("query_string", b"")
    if query and b"%00" in query.lower():
        for key, value in parse_qsl(query.decode("latin-1"), keep_blank_values=True):
            if "\x00" in key or "\x00" in value:
                raise InvalidInput(
                    f"query parameter {key[:40]!r} may not contain NUL characters",
                    field=key[:40],
                    limit="unicode",
                )


class InputLimitsMiddleware:
    """Refuse oversized, over-deep or malformed input before the app sees it."""

    def __init__(self, app: ASGIApp, settings: Settings) -> None:
        self.app = app
        self.max_header_bytes = settings.max_header_bytes
        self.limits = untrusted.JsonLimits.for_requests(settings)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        refusal, body = await self.admit(scope, receive)
        if refusal is not None:
            await refusal(scope, receive, send)
        elif body is None:
            await self.app(scope, receive, send)
        else:
            await self.app(scope, _replay(body, receive), send)

    async def admit(self, scope: Scope, receive: Receive) -> tuple[Response | None, bytes | None]:
        """The request's whole body read within the limits (None when the method carries
        none; a JSON document is parsed into the scope, PARSED_BODY), or the refusal to send."""
        headers: list[tuple[bytes, bytes]] = scope.get("headers", [])
        path = scope.get("path", "")
        head = len(scope.get("raw_path", b"")) + len(scope.get("query_string", b"")) + 16
        head += sum(len(k) + len(v) + 4 for k, v in headers)
        if head > self.max_header_bytes:
            return problem_response(header_problem(self.max_header_bytes, path)), None
        try:
            _check_url(scope)
            return None, await self._read_body(scope, receive, headers)
        except MetaLedgerError as exc:
            return problem_response(exc.problem(instance=path), {"Connection": "close"}), None

    async def _read_body(
        self, scope: Scope, receive: Receive, headers: list[tuple[bytes, bytes]]
    ) -> bytes | None:
        """The whole body within the limits (None when the method carries none)."""
        if scope.get("method", "GET") in _NO_BODY and _content_length(headers) in (None, 0):
            return None
        untrusted.too_large(_content_length(headers), self.limits)
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                break
            chunk = message.get("body", b"")
            size += len(chunk)
            untrusted.too_large(size, self.limits)
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        if body and _is_json(headers):
            scope[PARSED_BODY] = (untrusted.parse(body, self.limits),)
        return body


def _replay(body: bytes, receive: Receive) -> Receive:
    """A receive channel that yields `body` once, then defers to the real one."""
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay
