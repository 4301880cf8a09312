"""Hot routes: documented by FastAPI like every route (OpenAPI from the endpoint's signature),
but called by a lean handler instead of FastAPI's per-request dependency solver.

Per request FastAPI resolves the dependency graph, builds the body's model field by field and
re-validates the answer: on the signed-move path that machinery costs more than the move. A
`HotRoute` works out once, from the endpoint's signature, how to get each argument (the process
context, the bearer token, a path parameter checked against its declared pattern, the JSON body
validated by its pydantic model in the same strict mode) and calls the endpoint with them. What
a client sees is unchanged: a missing token is the same 401, a bad path or body the same 422
problem+json listing every error with its location (`RequestValidationError`, rendered by
`api.problems`), and the input limits of `api.limits` are applied before (the document it
parsed is reused, not parsed again). The endpoint returns its `Response` itself.

`HotPath` is the app's ASGI entry in front of FastAPI's middleware stack: a hot route's request
goes through the app's own middleware and exception handlers straight to that lean handler.
"""

from __future__ import annotations

import inspect
import time
import typing
from collections.abc import Callable, Coroutine, Sequence
from typing import Any

from fastapi import FastAPI
from fastapi.exceptions import RequestValidationError
from fastapi.routing import APIRoute
from pydantic import BaseModel, TypeAdapter, ValidationError
from starlette._utils import get_route_path
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.types import ASGIApp, Receive, Scope, Send

from api.deps import Ctx, Token, context_of, request_token
from api.limits import PARSED_BODY, InputLimitsMiddleware
from api.metrics import MetricsMiddleware
from ledger.protocol import untrusted

Handler = Callable[[Request], Coroutine[Any, Any, Response]]
_JSON_SUBTYPE = "json"


def validation_errors(exc: ValidationError, where: tuple[str, ...]) -> list[dict[str, Any]]:
    """A pydantic error's items as `RequestValidationError` lists them, located under `where`."""
    return [
        {"type": e["type"], "loc": (*where, *e["loc"]), "msg": e["msg"], "input": e.get("input")}
        for e in exc.errors(include_url=False)
    ]


def _is_json(content_type: str | None) -> bool:
    if not content_type:
        return False  # FastAPI's strict content type: a body without one is not parsed
    media = content_type.split(";", 1)[0].strip().lower()
    main, _, sub = media.partition("/")
    return main == "application" and (sub == _JSON_SUBTYPE or sub.endswith("+json"))


async def _body(request: Request) -> Any:
    """The request body as FastAPI hands it to validation: the JSON document (already parsed
    within the limits by `api.limits`), the raw bytes of a body that is not JSON, or None."""
    raw = request.scope.get(_RAW_BODY)
    if raw is None:
        raw = await request.body()
    if not raw:
        return None
    if not _is_json(request.headers.get("content-type")):
        return raw
    parsed = request.scope.get(PARSED_BODY)
    if parsed is not None:
        return parsed[0]
    return untrusted.parse(raw, untrusted.JsonLimits.for_requests(context_of(request).settings))


class HotRoute(APIRoute):
    """An APIRoute whose endpoint takes only the process context (`Ctx`), the bearer token
    (`Token`), path parameters and at most one pydantic body, and returns a Response."""

    def get_route_handler(self) -> Handler:
        """The lean handler: each argument got as its annotation says, then the endpoint."""
        endpoint = self.endpoint
        hints = typing.get_type_hints(endpoint, include_extras=True)
        contexts: list[str] = []
        tokens: list[str] = []
        paths: list[tuple[str, TypeAdapter[Any]]] = []
        body: tuple[str, type[BaseModel], bool] | None = None
        for name, parameter in inspect.signature(endpoint).parameters.items():
            hint = hints[name]
            if hint == Ctx:
                contexts.append(name)
            elif hint == Token:
                tokens.append(name)
            elif name in self.param_convertors:
                paths.append((name, TypeAdapter(hint)))
            elif isinstance(hint, type) and issubclass(hint, BaseModel) and body is None:
                body = (name, hint, parameter.default is inspect.Parameter.empty)
            else:
                raise TypeError(f"HotRoute {self.path}: cannot supply parameter {name!r}")

        async def handle(request: Request) -> Response:
            values: dict[str, Any] = {}
            if contexts:
                ctx = context_of(request)
                for name in contexts:
                    values[name] = ctx
            if tokens:
                token = request_token(request)
                for name in tokens:
                    values[name] = token
            errors: list[dict[str, Any]] = []
            for name, adapter in paths:
                try:
                    values[name] = adapter.validate_python(request.path_params[name])
                except ValidationError as exc:
                    errors += validation_errors(exc, ("path", name))
            if body is not None:
                name, model, required = body
                document = await _body(request)
                if document is None:
                    if required:
                        errors.append(
                            {"type": "missing", "loc": ("body",), "msg": "Field required"}
                        )
                    else:
                        values[name] = None
                else:
                    try:
                        values[name] = model.model_validate(document)
                    except ValidationError as exc:
                        errors += validation_errors(exc, ("body",))
            if errors:
                raise RequestValidationError(errors)
            response = await endpoint(**values)
            assert isinstance(response, Response)
            return response

        return handle


_HANDLER = "metaledger.hot_handler"
#: the body `InputLimitsMiddleware.admit` read, for the hot handler (no second receive)
_RAW_BODY = "metaledger.raw_body"


class HotPath:
    """The app's ASGI entry: a request for a hot route goes to its lean handler through the
    app's own middleware (metrics, input limits) and its exception handlers; every other request
    goes to the full stack. What is skipped is per-request machinery a hot route does not use:
    FastAPI's exception telemetry (only when telemetry is off) and body-limit layers, the
    exception middleware's and FastAPI's request wrappers and exit stacks, and the router's walk
    over the included routers. Answers, problem+json bodies, headers, metrics and the 500 for an
    unexpected error (sent, then re-raised for the server to log) are those of the full stack;
    a method or path no hot route takes exactly (HEAD, a trailing slash) goes the full way.

    With the app's own middleware exactly metrics then input limits (as `api.app` adds them),
    their steps are called in line (`MetricsMiddleware.observe`, `InputLimitsMiddleware.admit`:
    the same code as the middleware's) instead of through their ASGI wrappers, whose per-message
    closures and second read of the body cost a hot request more than its routing."""

    def __init__(self, app: FastAPI, stack: ASGIApp, routes: Sequence[APIRoute]) -> None:
        self.stack = stack
        telemetry = getattr(app, "_native_telemetry", None)
        self.enabled = not (telemetry is not None and telemetry.enabled())
        self.routes = [
            (route, route.path_regex, frozenset(route.methods or ()), route.get_route_handler())
            for route in routes
        ]
        handlers = dict(app.exception_handlers)
        self.unexpected = handlers.pop(500, None) or handlers.pop(Exception, None)
        handlers.pop(Exception, None)
        self.by_status = {k: v for k, v in handlers.items() if isinstance(k, int)}
        self.by_class = {k: v for k, v in handlers.items() if isinstance(k, type)}
        lean: ASGIApp = self._endpoint
        for cls, args, kwargs in reversed(app.user_middleware):
            lean = cls(lean, *args, **kwargs)
        self.lean = lean
        self.metrics: MetricsMiddleware | None = None
        self.limits: InputLimitsMiddleware | None = None
        inner = getattr(lean, "app", None)
        if (
            isinstance(lean, MetricsMiddleware)
            and isinstance(inner, InputLimitsMiddleware)
            and inner.app == self._endpoint
        ):
            self.metrics, self.limits = lean, inner

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and self.enabled:
            path, method = get_route_path(scope), scope["method"]
            for route, regex, methods, handler in self.routes:
                matched = regex.match(path)
                if matched is not None and method in methods:
                    convert = route.param_convertors
                    params = {k: convert[k].convert(v) for k, v in matched.groupdict().items()}
                    scope["path_params"] = {**scope.get("path_params", {}), **params}
                    scope["route"], scope["endpoint"] = route, route.endpoint
                    scope[_HANDLER] = handler
                    if self.metrics is None:
                        await self.lean(scope, receive, send)
                    else:
                        await self._serve(scope, receive, send)
                    return
        await self.stack(scope, receive, send)

    async def _serve(self, scope: Scope, receive: Receive, send: Send) -> None:
        """The metrics and input-limit steps in line, then the lean handler."""
        assert self.metrics is not None and self.limits is not None
        start, status = time.perf_counter(), 500
        try:
            refusal, body = await self.limits.admit(scope, receive)
            if refusal is not None:
                status = refusal.status_code
                await refusal(scope, receive, send)
                return
            if body is not None:
                scope[_RAW_BODY] = body
            status = await self._answer(scope, receive, send)
        finally:
            self.metrics.observe(scope, status, start)

    async def _endpoint(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self._answer(scope, receive, send)

    async def _answer(self, scope: Scope, receive: Receive, send: Send) -> int:
        """Call the lean handler and send its answer (or the app's answer to its error); the
        status sent."""
        request = Request(scope, receive, send)
        try:
            response = await scope[_HANDLER](request)
        except Exception as exc:
            handler = self._handler(exc)
            if handler is None:  # as Starlette's ServerErrorMiddleware: the 500, then re-raise
                if self.unexpected is None:
                    await PlainTextResponse("Internal Server Error", status_code=500)(
                        scope, receive, send
                    )
                else:
                    await (await self.unexpected(request, exc))(scope, receive, send)
                raise
            response = await handler(request, exc)
            exc.__traceback__ = None  # a reused exception instance would keep growing it
        await response(scope, receive, send)
        return int(response.status_code)

    def _handler(self, exc: Exception) -> Any:
        """The app's exception handler for `exc` (by status, then class), as Starlette looks
        it up; None for an unexpected error."""
        if isinstance(exc, HTTPException) and exc.status_code in self.by_status:
            return self.by_status[exc.status_code]
        for cls in type(exc).__mro__:
            if cls in self.by_class:
                return self.by_class[cls]
        return None
