"""A JSON-RPC proxy that behaves like a public RPC provider: it refuses `eth_getLogs` over more
than `max_log_range` blocks and answers every so often with a rate-limit error (HTTP 429, or a
JSON-RPC error inside an HTTP 200, as some providers do). Everything else goes to the real node.

The tests route the anchorer, the indexer and `metaledger verify` through it, and
`metaledger bench scale` routes its API processes and workers through it.

    with LimitedRpcProxy(anvil.rpc_url, max_log_range=1000, http_429_every=7) as proxy:
        JsonRpc(proxy.url).logs(...)        # chunked, halved, retried
    proxy.stats                             # what it refused
"""

from __future__ import annotations

import json
import sys
import threading
import urllib.error
import urllib.request
from dataclasses import KW_ONLY, dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from ledger.runtime.report import PassSummary


class _QuietServer(ThreadingHTTPServer):
    """A threading HTTP server that ignores clients hanging up (a killed process's sockets)."""

    daemon_threads = True

    def handle_error(self, request: object, client_address: object) -> None:
        """Ignore a peer's reset or broken pipe; report anything else as the base class does."""
        if isinstance(sys.exc_info()[1], (ConnectionResetError, BrokenPipeError)):
            return
        super().handle_error(request, client_address)  # type: ignore[arg-type]


class JsonAnswerHandler(BaseHTTPRequestHandler):
    """A keep-alive (HTTP/1.1) handler that answers JSON, forwards to a node, and logs nothing."""

    protocol_version = "HTTP/1.1"

    def log_message(self, *_: Any) -> None:
        """Log nothing: the proxies count what they see."""

    def answer(self, status: int, body: bytes, *, close: bool = False) -> None:
        """Send `body` as a JSON answer; with `close`, close the connection after it."""
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        if close:
            self.send_header("Connection", "close")  # also ends this connection after the answer
        self.end_headers()
        self.wfile.write(body)

    def forward(self, upstream: str, body: bytes, *, close: bool = False) -> None:
        """Pass the request `body` to the node at `upstream` and answer what it answers (502 when
        it cannot be reached)."""
        forward = urllib.request.Request(upstream, body, {"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(forward, timeout=30) as answer:
                self.answer(answer.status, answer.read(), close=close)
        except urllib.error.HTTPError as exc:
            self.answer(exc.code, exc.read(), close=close)
        except OSError:
            self.answer(502, b'{"error": "upstream unreachable"}', close=close)


@dataclass
class ProxyStats(PassSummary):
    """What the proxy saw and refused."""

    calls: int = 0
    logs_served: int = 0
    logs_refused: int = 0
    widest_log_range_served: int = 0
    http_429: int = 0
    json_rate_limited: int = 0


@dataclass(eq=False)
class LimitedRpcProxy:
    """A provider-like proxy in front of one node, on 127.0.0.1 (a thread of this process)."""

    upstream: str
    _: KW_ONLY
    max_log_range: int = 1000
    http_429_every: int = 0
    json_rate_limit_every: int = 0
    #: where it listens (0: a free port; `url` says which)
    port: int = 0
    stats: ProxyStats = field(default_factory=ProxyStats, init=False)
    #: while set, every call is answered 503 (the provider is away)
    down: bool = field(default=False, init=False)

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._server = _QuietServer(("127.0.0.1", self.port), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, name="rpc-proxy", daemon=True
        )

    @property
    def url(self) -> str:
        """Where the proxy answers."""
        return f"http://127.0.0.1:{self._server.server_port}"

    def start(self) -> LimitedRpcProxy:
        """Start answering."""
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop answering and close the port."""
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> LimitedRpcProxy:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _fault(self, request: Any) -> tuple[int, dict[str, Any] | None] | None:
        """The refusal this request gets, if any: (HTTP status, JSON-RPC error or None)."""
        if self.down:
            return 503, None
        with self._lock:
            self.stats.calls += 1
            n = self.stats.calls
            if self.http_429_every and n % self.http_429_every == 0:
                self.stats.http_429 += 1
                return 429, None
            if self.json_rate_limit_every and n % self.json_rate_limit_every == 0:
                self.stats.json_rate_limited += 1
                return 200, {"code": 429, "message": "Too Many Requests: rate limit exceeded"}
            if isinstance(request, dict) and request.get("method") == "eth_getLogs":
                span = _log_span(request)
                if span is not None and span > self.max_log_range:
                    self.stats.logs_refused += 1
                    return 200, {
                        "code": -32005,
                        "message": f"query exceeds the maximum block range of {self.max_log_range}",
                    }
                self.stats.logs_served += 1
                self.stats.widest_log_range_served = max(
                    self.stats.widest_log_range_served, span or 0
                )
        return None

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        proxy = self

        class Handler(JsonAnswerHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                try:
                    request = json.loads(body)
                except ValueError:
                    request = None
                fault = proxy._fault(request)
                if fault is not None:
                    status, error = fault
                    if error is None:
                        self.answer(status, b'{"error": "busy"}')
                        return
                    ident = request.get("id") if isinstance(request, dict) else None
                    reply = {"jsonrpc": "2.0", "id": ident, "error": error}
                    self.answer(status, json.dumps(reply).encode())
                    return
                self.forward(proxy.upstream, body)

        return Handler


def _log_span(request: dict[str, Any]) -> int | None:
    """How many blocks an eth_getLogs request covers (None for tags or a block hash)."""
    try:
        query = request["params"][0]
        return int(query["toBlock"], 16) - int(query["fromBlock"], 16) + 1
    except (KeyError, IndexError, TypeError, ValueError):
        return None
