"""Child processes: a failure is told in the server's own words, stopping reaches the whole
process group, and a child dies with the process that started it (real processes)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from ledger.devstack.childprocess import ChildProcess, StopRequested, log_tail
from ledger.devstack.ports import accepts_connections, free_port
from ledger.devstack.toolchain import redis_server_bin
from ledger.errors import ServiceUnavailable


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie is not running; it only waits for its parent to read its status
    return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"


def _wait_gone(pid: int, timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while _alive(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def test_redis_with_a_relative_log_file_fails_in_its_own_words(tmp_path: Path) -> None:
    # the reported failure of `make run`: redis-server chdirs into --dir, then cannot open a
    # relative --logfile; the error now carries redis's own message
    port = free_port()
    args = [str(redis_server_bin()), "--port", str(port), "--dir", str(tmp_path),
            "--logfile", "relative/redis.log", "--save", ""]  # fmt: skip
    child = ChildProcess("redis-server", args, log_file=tmp_path / "out.log").start()
    with pytest.raises(ServiceUnavailable) as failure:
        child.wait_until(lambda: accepts_connections(port), f"listen on port {port}", 10)
    message = str(failure.value)
    assert message.startswith("redis-server exited with code 1 before it could listen on port")
    assert "FATAL CONFIG FILE ERROR" in message
    assert "Can't open the log file: No such file or directory" in message
    assert str(tmp_path / "out.log") in message


def test_log_tail_starts_at_the_last_error_line(tmp_path: Path) -> None:
    log = tmp_path / "x.log"
    log.write_text("starting\nerror: bad state file\n\nFor more information, try '--help'.\n")
    assert log_tail(log) == "error: bad state file | For more information, try '--help'."
    log.write_text("one\ntwo\n")
    assert log_tail(log) == "two"
    assert log_tail(tmp_path / "missing.log") == ""


def test_stop_signals_the_whole_process_group(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    script = f"sleep 300 & echo $! > {pids}; wait"
    child = ChildProcess("sh", ["sh", "-c", script], log_file=tmp_path / "sh.log").start()
    child.wait_until(pids.exists, "start its helper", 10)
    time.sleep(0.1)
    helper = int(pids.read_text())
    assert os.getpgid(helper) == child.pid  # its own group, led by the child
    assert os.getsid(child.pid) == child.pid  # its own session: no terminal signals
    child.stop(timeout=5)
    assert not child.alive()
    assert _wait_gone(helper), "the child's helper outlived stop()"
    assert child.exit_description() in ("was killed by SIGTERM", "exited with code 143")


def test_a_child_dies_with_the_process_that_started_it(tmp_path: Path) -> None:
    pid_file = tmp_path / "grandchild.pid"
    starter = textwrap.dedent(
        f"""
        import time
        from pathlib import Path
        from ledger.devstack.childprocess import ChildProcess
        child = ChildProcess("sleep", ["sleep", "300"]).start()
        Path({str(pid_file)!r}).write_text(str(child.pid))
        time.sleep(300)
        """
    )
    parent = subprocess.Popen([sys.executable, "-c", starter])
    try:
        deadline = time.monotonic() + 30
        while not pid_file.exists() or not pid_file.read_text():
            assert time.monotonic() < deadline and parent.poll() is None
            time.sleep(0.05)
        grandchild = int(pid_file.read_text())
        assert _alive(grandchild)
        os.kill(parent.pid, signal.SIGKILL)  # no chance to clean up
        parent.wait()
        assert _wait_gone(grandchild), "the child outlived a SIGKILLed parent"
    finally:
        if parent.poll() is None:
            parent.kill()
            parent.wait()


def test_waiting_stops_when_asked(tmp_path: Path) -> None:
    child = ChildProcess("sleep", ["sleep", "300"]).start()
    with pytest.raises(StopRequested):
        child.wait_until(lambda: False, "never", 30, should_stop=lambda: True)
    assert not child.alive()


def test_a_timeout_stops_the_child_and_says_so(tmp_path: Path) -> None:
    log = tmp_path / "s.log"
    child = ChildProcess("sh", ["sh", "-c", "echo still warming up; sleep 300"], log_file=log)
    child.start()
    with pytest.raises(
        ServiceUnavailable, match=r"sh did not answer within 0.3 s; its log ends: still warming up"
    ):
        child.wait_until(lambda: False, "answer", 0.3)
    assert not child.alive()
