"""The API client names what answered: a problem+json error by its title and detail, anything
else as "not a MetaLedger API", and an address where nothing answers as unavailable (the
client against a real API is exercised by tests/api and `metaledger play`)."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from typing import Any

import httpx
import pytest

from ledger.client.api import ApiError, ApiPlayer
from ledger.errors import ServiceUnavailable
from tests.localhttp import local_server


@pytest.fixture
def server() -> Iterator[str]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *_: Any) -> None:
            pass

        def do_POST(self) -> None:
            if self.path == "/auth/nonce":  # a MetaLedger-style refusal
                body = json.dumps({"title": "Too many requests", "status": 429, "detail": "wait"})
                kind = "application/problem+json"
                self.send_response(429)
            else:  # some other web server
                body, kind = "<html>nope</html>", "text/html"
                self.send_response(404)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body.encode())

    with local_server(Handler) as url:
        yield url


def test_errors_say_who_answered(server: str) -> None:
    with httpx.Client(base_url=server) as http:
        player = ApiPlayer(http, "0x" + "11" * 32)
        with pytest.raises(ApiError, match=r"Too many requests \(429\): wait") as refused:
            player.sign_in()
        assert refused.value.status_code == 429 and refused.value.body["detail"] == "wait"
        with pytest.raises(ApiError, match="404 \\(text/html\\): that is not a MetaLedger API"):
            player.call("POST", "/decks", {})


def test_nothing_answering_is_unavailable() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with (
        httpx.Client(base_url=f"http://127.0.0.1:{port}") as http,
        pytest.raises(ServiceUnavailable, match="does not answer"),
    ):
        ApiPlayer(http, "0x" + "11" * 32).call("GET", "/healthz")
