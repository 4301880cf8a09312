"""Prometheus metrics: request counts and latencies by route template and status (pure ASGI middleware)."""

from __future__ import annotations

import time
from typing import Any

from prometheus_client import CONTENT_TYPE_LATEST, Counter, Histogram, generate_latest
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

REQUESTS = Counter("metaledger_http_requests_total", "HTTP requests", ["method", "route", "status"])
LATENCY = Histogram(
    "metaledger_http_request_seconds",
    "HTTP request latency",
    ["method", "route"],
    buckets=(0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0),
)
DECKS = Counter("metaledger_deck_commitments_total", "deck registrations by outcome", ["outcome"])
ACTIONS = Counter("metaledger_match_actions_total", "match actions applied", ["by"])
RESULTS = Counter("metaledger_results_signed_total", "match results signed")


class MetricsMiddleware:
    """Count and time every HTTP request by its route template (not its raw path)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        start = time.perf_counter()
        status = {"code": 500}

        async def send_wrapper(message: Message) -> None:
            if message["type"] == "http.response.start":
                status["code"] = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, send_wrapper)
        finally:
            route: Any = scope.get("route")
            template = getattr(route, "path", None) or "unmatched"
            method = scope.get("method", "GET")
            REQUESTS.labels(method, template, str(status["code"])).inc()
            LATENCY.labels(method, template).observe(time.perf_counter() - start)


def metrics_response() -> Response:
    """The Prometheus exposition of this process's metrics."""
    return Response(generate_latest(), media_type=CONTENT_TYPE_LATEST)
