"""The listening socket several API processes share: uvicorn makes it with protocol number 0,
which keeps asyncio from switching Nagle's algorithm off on the connections it accepts (every
answer then waited ~40 ms for a delayed ACK); `tcp_listener` hands it over as TCP, with
TCP_NODELAY on, so accepted connections have it too."""

from __future__ import annotations

import socket

from api.server import tcp_listener, uvicorn_config


def test_the_shared_listener_and_its_connections_have_nagle_off() -> None:
    config = uvicorn_config("api.app:app", "127.0.0.1", 0)
    listener = tcp_listener(config.bind_socket())
    try:
        assert listener.proto == socket.IPPROTO_TCP
        assert listener.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)
        listener.listen()
        with socket.create_connection(listener.getsockname()[:2], timeout=5):
            accepted, _ = listener.accept()
            with accepted:
                # asyncio's transport sets TCP_NODELAY itself only on IPPROTO_TCP sockets
                assert accepted.proto == socket.IPPROTO_TCP
                assert accepted.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)
    finally:
        listener.close()
