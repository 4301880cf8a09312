"""Prometheus metrics: request counts and latencies by route template and status (pure ASGI middleware)."""

from __future__ import annotations

import time
from typing import Any

from prometheus_client import CONTENT_TYPE_LATEST, Counter, Gauge, Histogram, generate_latest
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ledger.health.report import HealthReport

REQUESTS = Counter("metaledger_http_requests_total", "HTTP requests", ["method", "route", "status"])
LATENCY = Histogram(
    "metaledger_http_request_seconds",
    "HTTP request latency",
    ["method", "route"],
    buckets=(0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0),
)
DECKS = Counter("metaledger_deck_commitments_total", "deck registrations by outcome", ["outcome"])
ACTIONS = Counter("metaledger_match_actions_total", "match actions applied", ["by"])
#: its two series, looked up once (a `labels` call per move costs a lock and a dict lookup)
PLAYER_ACTIONS, BOT_ACTIONS = ACTIONS.labels("player"), ACTIONS.labels("bot")
RESULTS = Counter("metaledger_results_signed_total", "match results signed")

# the gauges of /healthz, set at each scrape
COMPONENT_UP = Gauge("metaledger_component_up", "1 when the component is up", ["component"])
CHAIN_HEAD = Gauge("metaledger_chain_head_block", "the chain's latest block number")
WORKERS_LIVE = Gauge("metaledger_workers_live", "workers with a recent heartbeat")
HEARTBEAT_AGE = Gauge(
    "metaledger_worker_heartbeat_age_seconds", "age of the newest worker heartbeat"
)
PENDING_RESULTS = Gauge(
    "metaledger_anchoring_pending_results", "results not yet in a confirmed batch"
)
OLDEST_PENDING = Gauge(
    "metaledger_anchoring_oldest_pending_age_seconds",
    "how long the oldest result not yet in a confirmed batch has waited (0 when none)",
)


#: at most this many labelled series are remembered per metric (a client picks the method)
_CACHED_SERIES = 512


class MetricsMiddleware:
    """Count and time every HTTP request by its route template (not its raw path)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        # the labelled series, looked up once each (prometheus_client's `labels` takes a lock
        # and checks the label values on every call)
        self._counts: dict[tuple[str, str, int], Any] = {}
        self._latencies: dict[tuple[str, str], Any] = {}

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
            self.observe(scope, status["code"], start)

    def observe(self, scope: Scope, code: int, start: float) -> None:
        """Count a request answered with `code` and time it from `start` (perf_counter)."""
        route: Any = scope.get("route")
        template = getattr(route, "path", None) or "unmatched"
        method = scope.get("method", "GET")
        count = self._counts.get((method, template, code))
        if count is None:
            count = REQUESTS.labels(method, template, str(code))
            if len(self._counts) < _CACHED_SERIES:
                self._counts[method, template, code] = count
        count.inc()
        latency = self._latencies.get((method, template))
        if latency is None:
            latency = LATENCY.labels(method, template)
            if len(self._latencies) < _CACHED_SERIES:
                self._latencies[method, template] = latency
        latency.observe(time.perf_counter() - start)


def record_health(report: HealthReport) -> None:
    """Set the health gauges from a report (a figure that could not be read is NaN)."""
    nan = float("nan")
    for name, component in report.components().items():
        COMPONENT_UP.labels(name).set(1 if component.ok else 0)
    CHAIN_HEAD.set(nan if report.head_block is None else report.head_block)
    workers, backlog = report.workers, report.backlog
    WORKERS_LIVE.set(nan if workers is None else workers.count)
    age = None if workers is None else workers.newest_age_seconds
    HEARTBEAT_AGE.set(nan if age is None else age)
    PENDING_RESULTS.set(nan if backlog is None else backlog.pending_results)
    if backlog is None:
        OLDEST_PENDING.set(nan)
    else:
        OLDEST_PENDING.set(backlog.oldest_pending_age_seconds or 0.0)


def metrics_response() -> Response:
    """The Prometheus exposition of this process's metrics."""
    return Response(generate_latest(), media_type=CONTENT_TYPE_LATEST)
