"""The benchmarks' load generator: lean keep-alive HTTP/1.1 JSON clients (one connection per
client thread, `http.client`, TCP_NODELAY), so that the same client code drives the bare
FastAPI baseline and the match clients, and the generator costs as little CPU as it can; and
for the play channel a lean WebSocket client (`LeanSocket`: the RFC 6455 handshake and frames
on a blocking socket, no reader thread), for the same reason."""

from __future__ import annotations

import base64
import contextlib
import hashlib
import http.client
import json
import os
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


_WS_GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
_TEXT, _CLOSE, _PING, _PONG = 0x1, 0x8, 0x9, 0xA


class LeanSocket:
    """A client WebSocket on one blocking socket (what `ledger.client.playchannel.PlayChannel`
    asks of its connection: `send(text)`, `recv(timeout)`, `close()`). Text frames out, masked;
    text frames in, fragmented or not; pings answered; a close frame or EOF is EOFError."""

    def __init__(self, url: str, headers: dict[str, str], timeout: float = 30.0) -> None:
        parts = urllib.parse.urlsplit(url)
        self.sock = socket.create_connection((parts.hostname, parts.port or 80), timeout)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.reader = self.sock.makefile("rb")
        key = base64.b64encode(os.urandom(16))
        lines = [
            f"GET {parts.path} HTTP/1.1",
            f"Host: {parts.netloc}",
            "Upgrade: websocket",
            "Connection: Upgrade",
            f"Sec-WebSocket-Key: {key.decode()}",
            "Sec-WebSocket-Version: 13",
            *(f"{k}: {v}" for k, v in headers.items()),
        ]
        self.sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        status = self.reader.readline()
        head = {}
        while (line := self.reader.readline()) not in (b"\r\n", b""):
            name, _, value = line.decode("latin-1").partition(":")
            head[name.strip().lower()] = value.strip()
        accept = base64.b64encode(hashlib.sha1(key + _WS_GUID).digest()).decode()
        if b" 101 " not in status or head.get("sec-websocket-accept") != accept:
            self.sock.close()
            raise ConnectionError(f"no WebSocket at {url}: {status.decode('latin-1').strip()}")

    def _frame(self, opcode: int, payload: bytes) -> None:
        n = len(payload)
        if n < 126:
            head = bytes((0x80 | opcode, 0x80 | n))
        elif n < 1 << 16:
            head = bytes((0x80 | opcode, 0x80 | 126)) + n.to_bytes(2, "big")
        else:
            head = bytes((0x80 | opcode, 0x80 | 127)) + n.to_bytes(8, "big")
        mask = os.urandom(4)
        key = int.from_bytes((mask * (n // 4 + 1))[:n], "big")
        masked = (int.from_bytes(payload, "big") ^ key).to_bytes(n, "big")
        self.sock.sendall(head + mask + masked)

    def send(self, text: str) -> None:
        """Send one text message."""
        self._frame(_TEXT, text.encode())

    def recv(self, timeout: float | None = None) -> str:
        """The next text message (TimeoutError after `timeout` seconds)."""
        self.sock.settimeout(timeout)
        parts: list[bytes] = []
        while True:
            head = self.reader.read(2)
            if len(head) < 2:
                raise EOFError("the server closed the connection")
            opcode, n = head[0] & 0x0F, head[1] & 0x7F
            if n == 126:
                n = int.from_bytes(self.reader.read(2), "big")
            elif n == 127:
                n = int.from_bytes(self.reader.read(8), "big")
            payload = self.reader.read(n)
            if opcode == _CLOSE:
                raise EOFError(
                    f"the server closed the channel: {payload[2:].decode(errors='replace')}"
                )
            if opcode == _PING:
                self._frame(_PONG, payload)
                continue
            if opcode == _PONG:
                continue
            parts.append(payload)
            if head[0] & 0x80:
                return b"".join(parts).decode()

    def close(self) -> None:
        """Say goodbye (close frame 1000) and close the socket."""
        with contextlib.suppress(OSError):
            self._frame(_CLOSE, (1000).to_bytes(2, "big"))
        self.reader.close()
        self.sock.close()


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
