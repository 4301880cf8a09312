"""A fresh clone starts with `make run`, the README's first command, with every default.

The test clones this repository's committed HEAD (`git clone`) into a temporary folder and, with
no METALEDGER_ variable set, runs `make run` there on a pseudo-terminal: that is how a user runs
it, and it makes Ctrl-C exactly what a user's is: the terminal sends SIGINT to its foreground
process group. `make run` itself (not `metaledger run` from the clone's venv) is affordable: its
install into the clone takes seconds with the warm uv and npm caches that `make test`'s own
install leaves (the figure is printed; about 15-25 s on the 2-core CI machine). Default ports
may be taken by other stacks on the machine; the stack then picks free ones, and the test reads
the API URL from the stack's own output and lets `metaledger play` find the stack by itself.

Then: /healthz answers 200; `metaledger play` (a subprocess, no `--api`) plays one bot match;
`metaledger audit export` writes its bundle once anchored; Ctrl-C stops the stack: make exits 0,
no error is printed, nothing it started is left running; `make run` again (installing nothing)
restarts the stack on the saved chain, and `metaledger verify` (a subprocess) passes every check
of the earlier bundle, ownership at the old pinned block included.
"""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import shutil
import subprocess
import termios
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from ledger.devstack.demo import DEMO_KEYS

ROOT = Path(__file__).resolve().parents[1]
#: it installs and starts a whole stack twice: minutes, more on a shared machine
pytestmark = [pytest.mark.chain, pytest.mark.slow, pytest.mark.timeout(900)]


def _take_terminal() -> None:
    # in the child, after setsid: the pseudo-terminal on stdin becomes its controlling terminal
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


def descendants(pid: int) -> set[int]:
    """Every live descendant of `pid`."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if fields[0] != "Z":
                parents[int(entry.name)] = int(fields[1])
    found, frontier = set(), {pid}
    while frontier:
        frontier = {child for child, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def alive(pid: int) -> bool:
    """Whether `pid` is a running (not zombie) process."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


class Terminal:
    """`make run` on a pseudo-terminal: its output is collected, Ctrl-C can be typed."""

    def __init__(self, clone: Path, env: dict[str, str]) -> None:
        master, slave = pty.openpty()
        self.master = master
        self.output = bytearray()
        self.started = time.monotonic()
        self.process = subprocess.Popen(
            ["make", "run"],
            cwd=clone,
            env=env,
            stdin=slave,
            stdout=slave,
            stderr=slave,
            start_new_session=True,
            preexec_fn=_take_terminal,
        )
        # the test keeps its own end of the terminal open: output that `make run` wrote just
        # before it exited stays readable (Linux may drop it once the last slave fd closes)
        self.slave = slave
        self.closed = threading.Event()
        self.last_read = time.monotonic()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        while not self.closed.is_set():
            ready, _, _ = select.select([self.master], [], [], 0.1)
            if not ready:
                continue
            try:
                data = os.read(self.master, 65536)
            except OSError:
                return
            if not data:
                return
            self.output.extend(data)
            self.last_read = time.monotonic()

    def drain(self, quiet: float = 0.5, timeout: float = 10) -> None:
        """Wait until the output has been quiet for `quiet` seconds."""
        deadline = time.monotonic() + timeout
        while time.monotonic() - self.last_read < quiet and time.monotonic() < deadline:
            time.sleep(0.05)

    def text(self) -> str:
        """The output so far, without colour codes and carriage returns."""
        raw = self.output.decode(errors="replace")
        return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", raw).replace("\r", "")

    def wait_for(self, words: str, timeout: float) -> float:
        """Seconds since start when `words` appeared in the output."""
        deadline = time.monotonic() + timeout
        while words not in self.text():
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(
                    f"no {words!r} in the output of `make run`:\n{self.text()[-5000:]}"
                )
            time.sleep(0.2)
        return time.monotonic() - self.started

    def ctrl_c(self, timeout: float = 60) -> int:
        """Type Ctrl-C; the exit status of `make run`."""
        os.write(self.master, b"\x03")
        status = self.process.wait(timeout=timeout)
        self.drain()
        return status

    def close(self) -> None:
        """Kill what is left (a failed test) and close the terminal."""
        if self.process.poll() is None:
            os.killpg(self.process.pid, 9)
            self.process.wait()
        self.closed.set()
        self.reader.join(timeout=5)
        os.close(self.slave)
        os.close(self.master)


def _line_after(text: str, label: str) -> str:
    return next(line for line in text.splitlines() if line.startswith(label)).split()[1]


@pytest.fixture
def clone(tmp_path: Path) -> Iterator[Path]:
    """A fresh clone of this repository's HEAD (its installed toolchain removed afterwards)."""
    target = tmp_path / "clone"
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(target)], check=True, timeout=120)
    try:
        yield target
    finally:
        for heavy in (".venv", "node_modules"):
            shutil.rmtree(target / heavy, ignore_errors=True)


def test_a_fresh_clone_runs_plays_stops_and_verifies_after_a_restart(clone: Path) -> None:
    # a user's shell: no METALEDGER_ setting, and not inside `make test`'s own make
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("METALEDGER_") and k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")
    }
    env["TERM"] = "xterm"
    metaledger = clone / ".venv" / "bin" / "metaledger"

    first = Terminal(clone, env)
    try:
        installed = first.wait_for(".venv/bin/metaledger run", 600)
        up = first.wait_for("Press Ctrl-C to stop.", 180)
        print(f"fresh clone: install {installed:.1f} s, stack up {up - installed:.1f} s later")
        api_url = _line_after(first.text(), "API ")
        started = set(descendants(first.process.pid))
        health = httpx.get(f"{api_url}/healthz", timeout=10)
        assert health.status_code == 200, health.text
        assert all(c["ok"] for c in health.json()["components"].values())

        played = subprocess.run(
            [str(metaledger), "play", "--key", DEMO_KEYS[0], "--game", "metax", "--bot", "greedy"],
            cwd=clone, env=env, capture_output=True, text=True, timeout=180,
        )  # fmt: skip
        assert played.returncode == 0, played.stdout + played.stderr
        match_id = played.stdout.split("match ", 2)[1].split()[0]

        bundle = clone.parent / "bundle.json"
        deadline = time.monotonic() + 90
        while True:
            export = subprocess.run(
                [str(metaledger), "audit", "export", match_id, "-o", str(bundle)],
                cwd=clone, env=env, capture_output=True, text=True, timeout=60,
            )  # fmt: skip
            if export.returncode == 0:
                break
            assert time.monotonic() < deadline, export.stderr
            time.sleep(1)
        exported = time.monotonic() - first.started
        assert first.ctrl_c() == 0, first.text()[-3000:]
        stopped = time.monotonic() - first.started
    finally:
        first.close()
    print(f"played and exported at {exported:.1f} s, stopped at {stopped:.1f} s")
    after_start = first.text()[first.text().index("Press Ctrl-C to stop.") :]
    assert "error" not in after_start.lower() and "make: ***" not in after_start
    assert after_start.rstrip().endswith("stopped everything `metaledger run` started"), after_start
    assert not [pid for pid in started if alive(pid)], "a process of the stack outlived Ctrl-C"

    again = Terminal(clone, env)
    try:
        reinstalled = again.wait_for(".venv/bin/metaledger run", 120)
        again.wait_for("Press Ctrl-C to stop.", 180)
        rpc_url = _line_after(again.text(), "chain ")
        before_run = again.text()[: again.text().index(".venv/bin/metaledger run")]
        assert "npm ci" not in before_run and "uv pip install" not in before_run
        verified = subprocess.run(
            [str(metaledger), "verify", str(bundle), "--rpc", rpc_url],
            cwd=clone, env=env, capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        checked = time.monotonic() - again.started
        assert again.ctrl_c() == 0
    finally:
        again.close()
    print(
        f"second start: up and verified at {checked:.1f} s, stopped at {time.monotonic() - again.started:.1f} s"
    )
    print(f"second `make run`: nothing to install ({reinstalled:.1f} s to start metaledger run)")
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert "✓ ownership" in verified.stdout and "✓ player-signatures" in verified.stdout
    assert re.search(r"^OK: all \d+ checks passed", verified.stdout, re.M), verified.stdout
