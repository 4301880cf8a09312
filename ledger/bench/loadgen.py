"""The benchmarks' load generator: lean keep-alive HTTP/1.1 JSON clients (one connection per
client thread, `http.client`, TCP_NODELAY), so that the same client code drives the bare
FastAPI baseline and the match clients, and the generator costs as little CPU as it can."""

from __future__ import annotations

import http.client
import json
import socket
import threading
import time
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


class HttpStatusError(Exception):
    """The server answered a status the client did not expect."""

    def __init__(self, method: str, path: str, status: int, body: bytes) -> None:
        super().__init__(f"{method} {path}: HTTP {status}: {body[:300]!r}")
        self.status = status
        self.body = body


class JsonClient:
    """One keep-alive connection to one server; not thread-safe (one per client thread)."""

    def __init__(self, base_url: str, timeout: float = 30.0) -> None:
        parts = urllib.parse.urlsplit(base_url)
        self.host = parts.hostname or "127.0.0.1"
        self.port = parts.port or 80
        self.timeout = timeout
        self.conn: http.client.HTTPConnection | None = None
        self.requests = 0

    def _connection(self) -> http.client.HTTPConnection:
        if self.conn is None:
            self.conn = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)
            self.conn.connect()
            assert self.conn.sock is not None
            self.conn.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return self.conn

    def request(
        self,
        method: str,
        path: str,
        body: Any = None,
        token: str | None = None,
        ok: tuple[int, ...] = (200, 201),
    ) -> Any:
        """One request with a JSON body (or none); the decoded JSON answer."""
        headers = {"Content-Type": "application/json"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        payload = None if body is None else json.dumps(body, separators=(",", ":")).encode()
        for attempt in (0, 1):
            conn = self._connection()
            try:
                conn.request(method, path, payload, headers)
                response = conn.getresponse()
                data = response.read()
                break
            except (OSError, http.client.HTTPException):
                self.close()
                if attempt:
                    raise
        self.requests += 1
        if response.status not in ok:
            raise HttpStatusError(method, path, response.status, data)
        return json.loads(data) if data else None

    def close(self) -> None:
        """Close the connection."""
        if self.conn is not None:
            self.conn.close()
            self.conn = None


@dataclass
class Tally:
    """What the clients of one phase did."""

    done: int = 0
    errors: int = 0
    requests: int = 0
    seconds: float = 0.0

    @property
    def per_s(self) -> float:
        """`done` per second of the phase."""
        return round(self.done / self.seconds, 1) if self.seconds else 0.0


def closed_loop(
    clients: int, seconds: float, loop: Callable[[int, float, Tally, threading.Lock], None]
) -> Tally:
    """Run `loop(k, stop_at, tally, lock)` in `clients` threads until `stop_at`; the summed tally.
    A `RequestLoop` connects every client before the window opens."""
    connect = getattr(loop, "connect", None)
    if connect is not None:
        connect(clients)
    tally = Tally()
    lock = threading.Lock()
    stop_at = time.perf_counter() + seconds
    threads = [
        threading.Thread(target=loop, args=(k, stop_at, tally, lock), daemon=True)
        for k in range(clients)
    ]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    tally.seconds = time.perf_counter() - t0
    return tally


class RequestLoop:
    """A closed-loop client of `closed_loop`: client k's connection is opened by `first(client)`
    before the window opens (not counted, and not in the window's time: a first request may be
    a costly one, such as a health report), then `each(client, k, n)` (n requests answered so
    far) until the stop time; an unexpected status or a dropped connection is an error (the
    next request reconnects)."""

    def __init__(
        self,
        base_url: str,
        first: Callable[[JsonClient], Any],
        each: Callable[[JsonClient, int, int], Any],
    ) -> None:
        self.base_url = base_url
        self.first = first
        self.each = each
        self.clients: dict[int, JsonClient] = {}

    def connect(self, clients: int) -> None:
        """Open the connections of clients 0 .. clients-1 (each with its first request)."""

        def one(k: int) -> None:
            client = self.clients[k] = JsonClient(self.base_url)
            self.first(client)

        threads = [threading.Thread(target=one, args=(k,), daemon=True) for k in range(clients)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()

    def __call__(self, k: int, stop_at: float, tally: Tally, lock: threading.Lock) -> None:
        """Client k's requests until `stop_at`, added to `tally`."""
        client = self.clients.pop(k)
        done = errors = 0
        try:
            while time.perf_counter() < stop_at:
                try:
                    self.each(client, k, done + errors)
                    done += 1
                except (HttpStatusError, OSError):
                    errors += 1
        finally:
            client.close()
        with lock:
            tally.done += done
            tally.errors += errors
            tally.requests += client.requests


def echo_loop(base_url: str) -> RequestLoop:
    """A closed-loop client of the bare baseline: POST a small JSON body, read the answer."""
    body = {"action": ["pass"], "version": 7}
    return RequestLoop(
        base_url,
        lambda client: client.request("POST", "/echo", body),
        lambda client, _k, _n: client.request("POST", "/echo", body),
    )
