"""One writer at a time on a SQLite file, queued instead of spinning.

SQLite lets one transaction write at a time; a second `BEGIN IMMEDIATE` gets SQLITE_BUSY and
its busy handler sleeps 1, 2, 5, 10, 15, 20, 25 ... ms between retries, so under concurrent
writes most of a request's time is spent asleep. Here a writing transaction first takes a
thread lock of its process and then an `flock` on `<database>-writelock` (shared by every
process on that file), both of which wake the next writer as soon as the lock is free; the
lock is released when the connection returns to the pool (after COMMIT or ROLLBACK)."""

from __future__ import annotations

import fcntl
import os
import threading
import time
from pathlib import Path
from typing import Any

from sqlalchemy.exc import OperationalError

_HELD = "metaledger_write_lock"


class SqliteWriteLock:
    """The write lock of one SQLite database file, for one engine (one per process)."""

    def __init__(self, database: Path | None, timeout: float = 10.0) -> None:
        self.path = None if database is None else Path(f"{database}-writelock")
        self.timeout = timeout
        self._thread_lock = threading.Lock()
        self._fd: int | None = None

    def _file(self) -> int:
        if self._fd is None:
            assert self.path is not None
            self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        return self._fd

    def acquire(self, info: dict[str, Any]) -> None:
        """Take the lock for the connection whose pool `info` is given (no-op if it holds it)."""
        if info.get(_HELD):
            return
        deadline = time.monotonic() + self.timeout
        if not self._thread_lock.acquire(timeout=self.timeout):
            raise OperationalError("BEGIN IMMEDIATE", None, Exception("database is locked"))
        try:
            if self.path is not None:
                self._flock(deadline)
        except BaseException:
            self._thread_lock.release()
            raise
        info[_HELD] = True

    def _flock(self, deadline: float) -> None:
        fd, pause = self._file(), 0.0002
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise OperationalError(
                        "BEGIN IMMEDIATE", None, Exception("database is locked")
                    ) from None
                time.sleep(pause)
                pause = min(pause * 2, 0.002)

    def release(self, info: dict[str, Any]) -> None:
        """Give the lock back if the connection of `info` holds it."""
        if not info.pop(_HELD, False):
            return
        if self._fd is not None:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
        self._thread_lock.release()
