"""A per-process cache of sign-in sessions (token hash -> address, expiry), so that a request
need not read the session row. The database stays the truth: an entry is trusted for at most
`ttl` seconds after it was read, so a sign-out reaches every other process within `ttl`
(the process that signs out forgets the session at once)."""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from datetime import datetime


class SessionCache:
    """A bounded LRU of live sessions, each trusted for `ttl` seconds after it was read."""

    def __init__(self, ttl: float, size: int = 10_000) -> None:
        self.ttl = ttl
        self.size = size
        self._items: OrderedDict[str, tuple[float, str, datetime]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, token_hash: str, now: datetime) -> str | None:
        """The address of a session read less than `ttl` seconds ago and not expired at `now`."""
        if self.ttl <= 0:
            return None
        with self._lock:
            entry = self._items.get(token_hash)
            if entry is None:
                return None
            read_at, address, expires_at = entry
            if time.monotonic() - read_at >= self.ttl or expires_at <= now:
                del self._items[token_hash]
                return None
            return address

    def put(self, token_hash: str, address: str, expires_at: datetime) -> None:
        """Remember a live session just read from the database."""
        if self.ttl <= 0:
            return
        with self._lock:
            self._items[token_hash] = (time.monotonic(), address, expires_at)
            self._items.move_to_end(token_hash)
            while len(self._items) > self.size:
                self._items.popitem(last=False)

    def drop(self, token_hash: str) -> None:
        """Forget a session (signed out here)."""
        with self._lock:
            self._items.pop(token_hash, None)
