"""The supervisor restarts a child that dies, with a bounded back-off, logs each event, and
stops every child newest first (real processes)."""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

from ledger.devstack.childprocess import ChildProcess
from ledger.devstack.supervisor import Supervisor
from ledger.errors import ServiceUnavailable


def _sleeper(name: str, tmp: Path) -> ChildProcess:
    return ChildProcess(name, ["sleep", "300"], log_file=tmp / f"{name}.log").start()


def _watch_until(sup: Supervisor, condition: object, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < deadline, "timed out"
        sup.tick()
        time.sleep(0.02)


def test_a_killed_child_is_restarted_and_the_event_logged(tmp_path: Path) -> None:
    events: list[str] = []
    sup = Supervisor(events.append, threading.Event(), backoff_min=0.1, backoff_max=0.4)
    first = sup.start("sleeper", lambda: _sleeper("sleeper", tmp_path))
    other = sup.start("other", lambda: _sleeper("other", tmp_path))
    try:
        os.kill(first.pid, signal.SIGKILL)
        _watch_until(sup, lambda: sup.services[0].restarts == 1)
        restarted = sup.services[0].child
        assert restarted.pid != first.pid and restarted.alive()
        assert sup.services[1].child is other and other.alive()  # the others are untouched
        assert events == [
            f"sleeper (pid {first.pid}) was killed by SIGKILL after 0 s; restarting in 0.1 s",
            f"sleeper restarted (pid {restarted.pid}; restart 1)",
        ]
    finally:
        sup.stop()
    assert not restarted.alive() and not other.alive()


def test_the_back_off_doubles_up_to_its_bound(tmp_path: Path) -> None:
    events: list[str] = []
    sup = Supervisor(events.append, threading.Event(), backoff_min=0.05, backoff_max=0.2)
    script = tmp_path / "fail.sh"
    script.write_text("echo 'fatal: the port is gone' >&2; exit 3\n")

    def launch() -> ChildProcess:
        child = ChildProcess("flaky", ["sh", str(script)], log_file=tmp_path / "flaky.log")
        return child.start()

    sup.start("flaky", launch)
    try:
        _watch_until(sup, lambda: sum("restarting in" in e for e in events) >= 4, timeout=20)
    finally:
        sup.stop()
    delays = [line.rsplit("restarting in ", 1)[1] for line in events if "restarting in" in line]
    assert delays[:4] == ["0.05 s", "0.1 s", "0.2 s", "0.2 s"]
    assert "exited with code 3 after 0 s: fatal: the port is gone" in events[0]


def test_a_failed_restart_is_logged_and_retried(tmp_path: Path) -> None:
    events: list[str] = []
    attempts = [0]

    def launch() -> ChildProcess:
        attempts[0] += 1
        if attempts[0] == 2:
            raise ServiceUnavailable(
                "redis-server exited with code 1 before it could listen on port 1"
            )
        return _sleeper("server", tmp_path)

    sup = Supervisor(events.append, threading.Event(), backoff_min=0.05, backoff_max=1)
    first = sup.start("server", launch)
    try:
        first.stop()
        _watch_until(sup, lambda: sup.services[0].restarts == 1)
    finally:
        sup.stop()
    assert events[1] == (
        "server did not restart: redis-server exited with code 1 before it could listen on port 1; "
        "retrying in 0.1 s"
    )
    assert attempts[0] == 3


def test_stop_stops_every_child_newest_first(tmp_path: Path) -> None:
    order: list[str] = []

    class Recorded(ChildProcess):
        def stop(self, timeout: float = 10.0) -> None:
            order.append(self.name)
            super().stop(timeout)

    sup = Supervisor(lambda _: None, threading.Event())
    children = [
        sup.start(name, lambda name=name: Recorded(name, ["sleep", "300"]).start())  # type: ignore[misc]
        for name in ("chain", "broker", "api")
    ]
    sup.stop()
    assert order == ["api", "broker", "chain"]
    assert not any(c.alive() for c in children)


def test_watch_returns_when_stopping_is_set(tmp_path: Path) -> None:
    stopping = threading.Event()
    sup = Supervisor(lambda _: None, stopping)
    sup.start("sleeper", lambda: _sleeper("sleeper", tmp_path))
    threading.Timer(0.3, stopping.set).start()
    started = time.monotonic()
    sup.watch(poll=0.05)
    assert time.monotonic() - started < 5
    sup.stop()
