"""Child processes of the local stack, all started, waited for and stopped the same way.

Each child runs in its own session (so its own process group): Ctrl-C in the terminal reaches
only the supervisor, which stops the children in order, and stopping a child signals its whole
group. Each child also gets SIGTERM if the process that started it dies, so even a supervisor
killed with SIGKILL leaves nothing running. Output goes to a log file whose last lines explain
a failure in the server's own words.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import subprocess
import time
from collections.abc import Callable
from dataclasses import KW_ONLY, dataclass, field
from pathlib import Path

from ledger.errors import MetaLedgerError, ServiceUnavailable

_PR_SET_PDEATHSIG = 1
_LIBC = ctypes.CDLL(None, use_errno=True)


class StopRequested(MetaLedgerError):
    """The user asked the stack to stop while a child was starting."""


def _die_with_parent() -> None:
    # runs in the child between fork and exec; the parent is the thread that spawned it
    _LIBC.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)


def log_tail(path: Path | None, window: int = 6, limit: int = 500) -> str:
    """The last words of a log: from its last error line (among the final `window` lines) to
    the end, joined with " | ", or else its last line (at most `limit` characters from the end);
    "" when there is none."""
    if path is None:
        return ""
    try:
        with path.open("rb") as f:
            f.seek(max(0, f.seek(0, os.SEEK_END) - 8192))
            text = f.read().decode(errors="replace")
    except OSError:
        return ""
    lines = [line.strip() for line in text.splitlines() if line.strip()][-window:]
    tail = lines[-1:]
    for i in range(len(lines) - 1, -1, -1):
        if "error" in lines[i].lower() or "fatal" in lines[i].lower():
            tail = lines[i:]
            break
    text = " | ".join(tail)
    return text if len(text) <= limit else "..." + text[-limit:]


@dataclass(eq=False)
class ChildProcess:
    """One child process: started in its own process group with output to `log_file`."""

    name: str
    args: list[str]
    _: KW_ONLY
    log_file: Path | None = None
    env: dict[str, str] | None = None
    cwd: Path | None = None
    die_with_parent: bool = True
    process: subprocess.Popen[bytes] | None = field(default=None, init=False)
    started_at: float = field(default=0.0, init=False)

    @property
    def pid(self) -> int:
        """The process id (0 before start)."""
        return self.process.pid if self.process is not None else 0

    def start(self) -> ChildProcess:
        """Spawn the process (does not wait for it to be ready)."""
        if self.log_file is not None:
            self.log_file.parent.mkdir(parents=True, exist_ok=True)
        out = self.log_file.open("ab") if self.log_file is not None else None
        try:
            self.process = subprocess.Popen(
                self.args,
                env=self.env,
                cwd=self.cwd,
                stdin=subprocess.DEVNULL,
                stdout=out if out is not None else subprocess.DEVNULL,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                # the death signal follows the spawning thread: children are spawned from the
                # main thread only
                preexec_fn=_die_with_parent if self.die_with_parent else None,
            )
        except OSError as exc:
            raise ServiceUnavailable(f"cannot start {self.name} ({self.args[0]}): {exc}") from exc
        finally:
            if out is not None:
                out.close()
        self.started_at = time.monotonic()
        return self

    def alive(self) -> bool:
        """Whether the process is running."""
        return self.process is not None and self.process.poll() is None

    def exit_code(self) -> int | None:
        """The exit code (negative: killed by that signal), None while running."""
        return self.process.poll() if self.process is not None else None

    def exit_description(self) -> str:
        """How the process ended: "exited with code 1", "was killed by SIGKILL"."""
        code = self.exit_code()
        if code is None:
            return "is running"
        if code < 0:
            try:
                return f"was killed by {signal.Signals(-code).name}"
            except ValueError:
                return f"was killed by signal {-code}"
        return f"exited with code {code}"

    def failure(self, what: str) -> str:
        """A one-line account of the process ending before `what`, in its own last words."""
        tail = log_tail(self.log_file)
        where = f" (log: {self.log_file})" if self.log_file is not None else ""
        return f"{self.name} {self.exit_description()} before it could {what}" + (
            f": {tail}{where}" if tail else where
        )

    def wait_until(
        self,
        ready: Callable[[], bool],
        what: str,
        timeout: float,
        should_stop: Callable[[], bool] = lambda: False,
    ) -> None:
        """Poll `ready` until true; ServiceUnavailable (naming the server's last log line) if the
        process exits or `timeout` passes first, StopRequested if `should_stop` becomes true."""
        deadline = time.monotonic() + timeout
        while True:
            if not self.alive():
                raise ServiceUnavailable(self.failure(what))
            if ready():
                return
            if should_stop():
                self.stop()
                raise StopRequested(f"stopped while waiting for {self.name} to {what}")
            if time.monotonic() > deadline:
                tail = log_tail(self.log_file)
                self.stop()
                raise ServiceUnavailable(
                    f"{self.name} did not {what} within {timeout:g} s"
                    + (f"; its log ends: {tail}" if tail else "")
                )
            time.sleep(0.05)

    def signal(self, sig: int) -> None:
        """Send `sig` to the process's whole group."""
        if self.alive():
            assert self.process is not None
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, sig)

    def stop(self, timeout: float = 10.0) -> None:
        """SIGTERM the process group, then SIGKILL it after `timeout` seconds."""
        if self.process is None:
            return
        if self.process.poll() is None:
            self.signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.signal(signal.SIGKILL)
                self.process.wait()
