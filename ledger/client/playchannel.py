"""A player's play channel of one match (`/matches/{id}/play`, a WebSocket; `api.routes.play`):
signed moves sent and answered on it, the changes the player did not make pushed to it."""

from __future__ import annotations

import json
import urllib.parse
from collections import deque
from collections.abc import Callable
from typing import Any, Protocol

from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from ledger.errors import MetaLedgerError


class ChannelError(MetaLedgerError):
    """The play channel refused a message (its problem+json in `problem`) or closed."""

    def __init__(self, detail: str, problem: dict[str, Any] | None = None) -> None:
        super().__init__(detail)
        self.body = problem or {}
        self.status_code = int(self.body.get("status") or 0)


class Connection(Protocol):
    """What a play channel needs of its WebSocket connection."""

    def send(self, message: str) -> None:
        """Send a text message."""

    def recv(self, timeout: float | None = None) -> str | bytes:
        """The next message."""

    def close(self) -> None:
        """Close the connection."""


def websocket(url: str, headers: dict[str, str], timeout: float) -> Connection:
    """A connection by websockets' synchronous client (no compression)."""
    return connect(
        url,
        additional_headers=headers,
        compression=None,
        open_timeout=timeout,
        close_timeout=2,
        legacy=True,  # a connection held open by its owner, not a `with` block's
    )


def channel_url(base_url: str, match_id: str, since: int | None = None) -> str:
    """The play channel's ws:// (or wss://) URL of `match_id` on the API at `base_url` (its
    first update with the entries from index `since`, if given)."""
    parts = urllib.parse.urlsplit(base_url)
    scheme = "wss" if parts.scheme == "https" else "ws"
    path = parts.path.rstrip("/") + f"/matches/{match_id}/play"
    query = "" if since is None else f"since={since}"
    return urllib.parse.urlunsplit((scheme, parts.netloc, path, query, ""))


class PlayChannel:
    """One open play channel (websockets' synchronous client; one thread at a time). `first` is
    the match as the player saw it on connecting; `updates` that and the changes pushed since,
    not yet taken."""

    def __init__(
        self,
        base_url: str,
        match_id: str,
        token: str,
        timeout: float = 30.0,
        opener: Callable[[str, dict[str, str], float], Connection] = websocket,
        since: int | None = None,
    ) -> None:
        self.timeout = timeout
        headers = {"Authorization": f"Bearer {token}"}
        self.sock = opener(channel_url(base_url, match_id, since), headers, timeout)
        self.updates: deque[dict[str, Any]] = deque()
        self.messages = 0
        self.first = self._receive()
        if self.first.get("type") != "update":
            raise ChannelError(f"the play channel opened with {self.first.get('type')!r}")
        self.updates.append(self.first)

    def _receive(self) -> dict[str, Any]:
        try:
            message: dict[str, Any] = json.loads(self.sock.recv(self.timeout))
        except TimeoutError:
            raise ChannelError(f"no message on the play channel for {self.timeout:g} s") from None
        except (ConnectionClosed, EOFError, OSError) as exc:
            raise ChannelError(f"the play channel closed: {exc}") from None
        self.messages += 1
        if message.get("type") == "error":
            problem = message.get("problem") or {}
            detail = f"{problem.get('title')} ({problem.get('status')}): {problem.get('detail')}"
            raise ChannelError(detail, problem)
        return message

    def move(self, body: dict[str, Any]) -> dict[str, Any]:
        """Send a move (the body of `POST /matches/{id}/actions`); its answer. Changes pushed
        meanwhile are kept in `updates`; ChannelError if the move is refused."""
        self.sock.send(json.dumps({"type": "move", **body}, separators=(",", ":")))
        self.messages += 1
        while True:
            message = self._receive()
            if message.get("type") == "applied":
                return message
            self.updates.append(message)

    def update(self) -> dict[str, Any]:
        """The next change pushed (waiting for it)."""
        if self.updates:
            return self.updates.popleft()
        return self._receive()

    def until(self, version: int) -> dict[str, Any]:
        """The pushed change that brought the match to `version` (earlier ones skipped)."""
        while True:
            update = self.update()
            if update["version"] >= version:
                return update

    def close(self) -> None:
        """Close the channel."""
        self.sock.close()
