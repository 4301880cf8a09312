"""RFC 9457 problem+json for every error: ours, validation (422), routing (404/405), and the
unexpected (500, never with a stack trace)."""

from __future__ import annotations

import json
import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from engine import EngineError
from ledger.errors import MetaLedgerError, RateLimited

PROBLEM_JSON = "application/problem+json"
log = logging.getLogger("api")

_STATUS_SLUGS = {
    400: ("bad-request", "Bad request"),
    401: ("unauthorized", "Unauthorized"),
    403: ("forbidden", "Forbidden"),
    404: ("not-found", "Not found"),
    405: ("method-not-allowed", "Method not allowed"),
    406: ("not-acceptable", "Not acceptable"),
    413: ("payload-too-large", "Payload too large"),
    415: ("unsupported-media-type", "Unsupported media type"),
    429: ("rate-limited", "Too many requests"),
    431: ("headers-too-large", "Request header fields too large"),
}


class ProblemResponse(JSONResponse):
    """JSON escaped to ASCII: a problem may quote input that is not valid Unicode."""

    media_type = PROBLEM_JSON

    def render(self, content: Any) -> bytes:
        """The body as compact ASCII JSON."""
        return json.dumps(content, ensure_ascii=True, separators=(",", ":")).encode("ascii")


def problem_response(body: dict[str, Any], headers: dict[str, str] | None = None) -> JSONResponse:
    """A problem+json response with the body's status."""
    return ProblemResponse(body, status_code=int(body["status"]), headers=headers)


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, str | int | float | bool) or value is None:
        return value
    return str(value)


def ours_body(exc: MetaLedgerError, instance: str) -> dict[str, Any]:
    """The problem of one of our errors."""
    return _jsonable(exc.problem(instance=instance))  # type: ignore[no-any-return]


def engine_body(exc: Exception, instance: str) -> dict[str, Any]:
    """The problem of a move the engine refused."""
    return {
        "type": "https://metaledger.dev/problems/rule-violation",
        "title": "Rule violation",
        "status": 422,
        "detail": str(exc),
        "instance": instance,
    }


def validation_body(exc: RequestValidationError, instance: str) -> dict[str, Any]:
    """The 422 problem of a request that failed validation, every error with its location."""
    errors = [
        {
            "loc": [str(p) for p in e.get("loc", ())],
            "message": str(e.get("msg", "")),
            "type": str(e.get("type", "")),
        }
        for e in exc.errors()
    ]
    return {
        "type": "https://metaledger.dev/problems/invalid-input",
        "title": "Invalid input",
        "status": 422,
        "detail": "; ".join(f"{'.'.join(e['loc'])}: {e['message']}" for e in errors)[:2000]
        or "invalid request",
        "instance": instance,
        "errors": errors,
    }


def unexpected_body(instance: str) -> dict[str, Any]:
    """The 500 problem of an unexpected error (never with a stack trace)."""
    return {
        "type": "https://metaledger.dev/problems/internal-error",
        "title": "Internal error",
        "status": 500,
        "detail": "an unexpected error occurred; it has been logged",
        "instance": instance,
    }


def install(app: FastAPI) -> None:
    """Register the exception handlers on `app`."""

    async def ours(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, MetaLedgerError)
        if exc.status >= 500:
            log.warning("%s %s: %s", request.method, request.url.path, exc.detail)
        headers = {"WWW-Authenticate": "Bearer"} if exc.status == 401 else None
        if isinstance(exc, RateLimited):
            headers = {"Retry-After": str(exc.retry_after)}
        return problem_response(ours_body(exc, request.url.path), headers)

    async def engine(request: Request, exc: Exception) -> JSONResponse:
        return problem_response(engine_body(exc, request.url.path))

    async def validation(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, RequestValidationError)
        return problem_response(validation_body(exc, request.url.path))

    async def http(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, StarletteHTTPException)
        slug, title = _STATUS_SLUGS.get(exc.status_code, ("http-error", "HTTP error"))
        detail = exc.detail if isinstance(exc.detail, str) else title
        if exc.status_code == 404 and detail == "Not Found":
            detail = f"no route {request.url.path}"
        if exc.status_code == 405:
            detail = f"{request.method} is not allowed on {request.url.path}"
        return problem_response(
            {
                "type": f"https://metaledger.dev/problems/{slug}",
                "title": title,
                "status": exc.status_code,
                "detail": detail,
                "instance": request.url.path,
            },
            dict(exc.headers) if exc.headers else None,
        )

    async def unexpected(request: Request, exc: Exception) -> JSONResponse:
        log.exception("unhandled error on %s %s", request.method, request.url.path)
        return problem_response(unexpected_body(request.url.path))

    app.add_exception_handler(MetaLedgerError, ours)
    app.add_exception_handler(EngineError, engine)
    app.add_exception_handler(RequestValidationError, validation)
    app.add_exception_handler(StarletteHTTPException, http)
    app.add_exception_handler(Exception, unexpected)
