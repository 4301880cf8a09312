"""The load generator's closed loop against a real local HTTP server: a client's first request
(a costly one, such as a health report) is made before the measured window opens."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from typing import ClassVar

import pytest

from ledger.bench.loadgen import RequestLoop, closed_loop
from tests.localhttp import local_server

SLOW_FIRST = 1.0


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    seen: ClassVar[list[tuple[str, float]]] = []

    def do_GET(self) -> None:
        if self.path == "/slow":
            time.sleep(SLOW_FIRST)
        self.seen.append((self.path, time.perf_counter()))
        body = json.dumps({"ok": True}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *_args: object) -> None:
        """Quiet."""


@pytest.fixture
def server() -> Iterator[str]:
    _Handler.seen = []
    with local_server(_Handler) as url:
        yield url


def test_first_requests_are_made_before_the_window_opens(server: str) -> None:
    loop = RequestLoop(
        server,
        lambda client: client.request("GET", "/slow"),
        lambda client, _k, _n: client.request("GET", "/fast"),
    )
    tally = closed_loop(3, 0.3, loop)
    firsts = [t for path, t in _Handler.seen if path == "/slow"]
    counted = [t for path, t in _Handler.seen if path == "/fast"]
    assert len(firsts) == 3 and tally.done == len(counted) > 0 and tally.errors == 0
    assert max(firsts) < min(counted)  # every client connected before any counted request
    # the window is the 0.3 s of counted requests, not the slow first requests as well
    assert tally.seconds < 0.3 + SLOW_FIRST / 2
