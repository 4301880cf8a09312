"""How the API is served: uvicorn with an h11 protocol whose limits are ours.

h11 refuses a request head (request line + headers) larger than its `max_incomplete_event_size`
before the app sees the request, and uvicorn then answers a text/plain 400. Here the size is
METALEDGER_MAX_HEADER_BYTES and the answer is problem+json naming that limit (431 for a head
over the limit, 400 for any other malformed HTTP).
"""

from __future__ import annotations

import json
import socket
from typing import Any

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from uvicorn.supervisors import Multiprocess

from api.limits import header_problem
from ledger.settings import Settings, get_settings

_MALFORMED: dict[str, Any] = {
    "type": "https://metaledger.dev/problems/bad-request",
    "title": "Bad request",
    "status": 400,
    "detail": "the request is not valid HTTP/1.1",
}


class _RecordingConnection(h11.Connection):
    """An h11 server connection that remembers the protocol error it raised last."""

    last_error: h11.RemoteProtocolError | None = None

    def next_event(self) -> Any:
        """The next event; records a RemoteProtocolError before re-raising it."""
        try:
            return super().next_event()
        except h11.RemoteProtocolError as exc:
            self.last_error = exc
            raise


class ProblemH11Protocol(H11Protocol):
    """uvicorn's h11 protocol answering malformed or oversized requests with problem+json."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.max_head_bytes = self.config.h11_max_incomplete_event_size or 16 * 1024
        self.conn = _RecordingConnection(h11.SERVER, self.max_head_bytes)

    def send_400_response(self, msg: str) -> None:
        """Answer the request h11 refused (431 or 400) as problem+json, then close."""
        error = getattr(self.conn, "last_error", None)
        oversized = error is not None and error.error_status_hint == 431
        body = header_problem(self.max_head_bytes) if oversized else _MALFORMED
        status = int(body["status"])
        payload = json.dumps(body, separators=(",", ":")).encode("ascii")
        reason = b"Request Header Fields Too Large" if oversized else b"Bad Request"
        headers = [
            (b"content-type", b"application/problem+json"),
            (b"content-length", str(len(payload)).encode()),
            (b"connection", b"close"),
        ]
        try:
            self.transport.write(
                self.conn.send(h11.Response(status_code=status, headers=headers, reason=reason))
                or b""
            )
            self.transport.write(self.conn.send(h11.Data(data=payload)) or b"")
            self.transport.write(self.conn.send(h11.EndOfMessage()) or b"")
        except h11.LocalProtocolError:  # the connection cannot carry a response any more
            pass
        self.transport.close()


#: client messages a WebSocket may have waiting for the app before its reading is paused
WS_QUEUE_HIGH_WATER = 16


class QueueingWebSocketProtocol(WebSocketsSansIOProtocol):
    """uvicorn's WebSocket protocol (websockets' sans-I/O) pausing a connection's reading only
    once WS_QUEUE_HIGH_WATER messages wait for the app, not after every message: the pause and
    the resume at the app's next receive are a selector change each (two system calls) for
    every move sent on a play channel. Backpressure is kept: a client that sends faster than
    the app reads is stopped at the high-water mark."""

    def send_receive_event_to_app(self) -> None:
        """Queue the message for the app (as uvicorn does), pausing only past the mark."""
        paused = self.read_paused
        self.read_paused = True  # the parent then leaves the transport reading
        try:
            super().send_receive_event_to_app()
        finally:
            self.read_paused = paused
        if not self.read_paused and self.queue.qsize() >= WS_QUEUE_HIGH_WATER:
            self.read_paused = True
            self.transport.pause_reading()


def uvicorn_config(
    app: Any, host: str, port: int, settings: Settings | None = None, **options: Any
) -> uvicorn.Config:
    """The uvicorn configuration of the API: our h11 protocol and header limit, and
    X-Forwarded-For trusted only from METALEDGER_FORWARDED_ALLOW_IPS."""
    s = settings or get_settings()
    return uvicorn.Config(
        app,
        host=host,
        port=port,
        http=ProblemH11Protocol,
        h11_max_incomplete_event_size=s.max_header_bytes,
        # the play channel (api.routes.play): frames up to twice the body limit reach the app,
        # which answers those over the limit with a 413 problem; larger ones close it (1009).
        # No per-message compression: it costs every message CPU and invites inflation bombs
        ws=QueueingWebSocketProtocol,
        ws_max_size=2 * s.max_body_bytes,
        ws_per_message_deflate=False,
        proxy_headers=s.forwarded_allow_ips is not None,
        forwarded_allow_ips=s.forwarded_allow_ips or "",
        **options,
    )


def serve(host: str, port: int, log_level: str = "info", processes: int | None = None) -> None:
    """Serve `api.app:app` until interrupted: in this process, or in `processes` (default
    METALEDGER_API_PROCESSES) worker processes sharing one listening socket, each restarted by
    uvicorn's process manager if it dies."""
    settings = get_settings()
    count = processes or settings.api_processes
    config = uvicorn_config(
        "api.app:app",
        host,
        port,
        settings,
        log_level=log_level,
        workers=count,
        access_log=settings.api_access_log,
    )
    server = uvicorn.Server(config)
    if count == 1:
        server.run()
        return
    Multiprocess(config, sockets=[tcp_listener(config.bind_socket())]).run()


def tcp_listener(sock: socket.socket) -> socket.socket:
    """`sock` (uvicorn's shared listening socket) with Nagle's algorithm off for every connection
    it accepts. uvicorn creates it with protocol number 0, and asyncio switches TCP_NODELAY on
    only for sockets that say IPPROTO_TCP: without this, an answer written in two parts (head,
    then body) waits for the client's delayed ACK, about 40 ms per request."""
    if sock.family not in (socket.AF_INET, socket.AF_INET6):
        return sock
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # Linux: inherited on accept
    return socket.socket(sock.family, sock.type, socket.IPPROTO_TCP, fileno=sock.detach())
