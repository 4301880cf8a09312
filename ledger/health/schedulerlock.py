"""The one scheduler of a data directory: an exclusive lock on `<data_dir>/beat.lock` that names
its holder's pid. The kernel drops it when the holder dies, however it dies, so a lock is never
stale; the local stack takes `<data_dir>/stack.lock` the same way."""

from __future__ import annotations

import fcntl
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, TYPE_CHECKING

if TYPE_CHECKING:
    from ledger.settings import Settings


class PidLock:
    """`flock` on `path`; while held, the file contains the holder's pid."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._file: IO[str] | None = None

    @property
    def held(self) -> bool:
        """Whether this process holds the lock."""
        return self._file is not None

    def holder(self) -> int | None:
        """The pid written by the current (or last) holder, if any."""
        try:
            text = self.path.read_text().strip()
        except OSError:
            return None
        return int(text) if text.isdigit() else None

    def try_acquire(self) -> bool:
        """Take the lock if it is free; False when another process holds it."""
        if self._file is not None:
            return True
        self.path.parent.mkdir(parents=True, exist_ok=True)
        f = self.path.open("a+")
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            f.close()
            return False
        f.seek(0)
        f.truncate()
        f.write(f"{os.getpid()}\n")
        f.flush()
        self._file = f
        return True

    def acquire_waiting(self, on_wait: Callable[[int | None], None], poll: float = 0.5) -> None:
        """Take the lock, waiting for the holder to let go; `on_wait(holder pid)` is called
        once if it has to wait."""
        told = False
        while not self.try_acquire():
            if not told:
                on_wait(self.holder())
                told = True
            time.sleep(poll)

    def release(self) -> None:
        """Let go of the lock (the file stays, empty)."""
        if self._file is not None:
            self._file.truncate(0)
            self._file.flush()
            fcntl.flock(self._file, fcntl.LOCK_UN)
            self._file.close()
            self._file = None


def scheduler_lock(settings: Settings) -> PidLock:
    """The scheduler (Celery beat) lock of the settings' data directory."""
    return PidLock(settings.data_dir / "beat.lock")
