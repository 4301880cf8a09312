"""`metaledger run` (what `make run` calls) under its supervisor, run as a user runs it: a
subprocess, the CLI found by the data directory, other commands run from another directory.

One stack serves the whole module (starting it is the slow part); the tests run in order:
the API port is taken by another web server, so the stack moves the API and `metaledger play`
(no `--api`) finds it; `audit export` works from another directory with `--data-dir` and says
what is missing without it; `kill -9` of the worker (then of beat) leaves the stack up, the
child restarted and exactly one scheduler; a second `metaledger run` on the same data dir is
refused; SIGINT to its process group stops everything, exit status 0, nothing left running.
"""

from __future__ import annotations

import http.server
import json
import os
import signal
import subprocess
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from ledger.client.wallet import DEV_KEY_WARNING
from ledger.devstack.demo import DEMO_KEYS
from ledger.devstack.ports import is_free
from ledger.devstack.stack import server_command
from tests.fixtures.cli import run_cli
from tests.fixtures.stack import stack_env, start_run, stop_stack, wait_for

pytestmark = [pytest.mark.chain, pytest.mark.slow]


def child_pids(pid: int) -> dict[int, str]:
    """The live children of `pid` (pid -> command line)."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode().strip()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if int(fields[1]) == pid and fields[0] != "Z":
            found[int(entry.name)] = cmdline
    return found


def alive(pid: int) -> bool:
    """Whether `pid` is a running (not zombie) process."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


class HtmlServer(http.server.ThreadingHTTPServer):
    """Another web server holding the API port (answers every request with an HTML page)."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def _page(self) -> None:
            body = b"<html><body>another app</body></html>"
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        do_GET = do_POST = _page

        def log_message(self, *args: object) -> None:
            pass


@dataclass
class RunningStack:
    """The `metaledger run` process, its data dir and output, and a foreign directory."""

    process: subprocess.Popen[bytes]
    data: Path
    log: Path
    elsewhere: Path
    env: dict[str, str]
    taken_port: int

    def cli(self, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
        """Run `metaledger ARGS` as a user would, from `cwd` (default: another directory)."""
        return run_cli(*args, env=self.env, cwd=cwd or self.elsewhere, timeout=120)

    def info(self) -> dict[str, object]:
        """The stack's record of itself."""
        return dict(json.loads((self.data / "stack.json").read_text()))

    def health(self) -> httpx.Response | None:
        """GET /healthz of the recorded API (None while nothing answers)."""
        try:
            return httpx.get(f"{self.info()['api_url']}/healthz", timeout=5)
        except (httpx.HTTPError, OSError, ValueError, KeyError):
            return None

    def children(self) -> dict[int, str]:
        """The supervisor's live children."""
        return child_pids(self.process.pid)

    def child(self, command: str) -> int:
        """The pid of the one child running server process `command` (api, worker, beat)."""
        wanted = " ".join(server_command(command)[1:])
        matches = [p for p, cmd in self.children().items() if cmd.endswith(wanted)]
        assert len(matches) == 1, self.children()
        return matches[0]


def launch_stack(tmp: Path, env: dict[str, str], taken_port: int = 0) -> RunningStack:
    """`metaledger run --data-dir <tmp>/data` as a subprocess in its own process group, once it
    says it is running."""
    data, log, elsewhere = tmp / "data", tmp / "run.log", tmp / "elsewhere"
    elsewhere.mkdir()
    return RunningStack(start_run(data, log, env, 150), data, log, elsewhere, env, taken_port)


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningStack]:
    tmp = tmp_path_factory.mktemp("run")
    html = HtmlServer(("127.0.0.1", 0), HtmlServer.Handler)
    threading.Thread(target=html.serve_forever, daemon=True).start()
    taken = html.server_address[1]
    env = stack_env(api_port=str(taken), batch_max_seconds="1", worker_heartbeat_seconds="1")
    running = launch_stack(tmp, env, taken)
    try:
        yield running
    finally:
        stop_stack(running.process)
        html.shutdown()
        html.server_close()


def test_the_api_moved_off_a_taken_port_and_play_finds_it(stack: RunningStack) -> None:
    out = stack.log.read_text()
    api_url = str(stack.info()["api_url"])
    assert api_url != f"http://127.0.0.1:{stack.taken_port}"
    assert f"port {stack.taken_port} for the API is taken by" in out
    health = wait_for(
        lambda: (h := stack.health()) is not None and h.status_code == 200 and h,
        60,
        "a healthy stack",
        stack.log,
    )
    assert health.json()["components"]["worker"]["workers"] == 1  # type: ignore[union-attr]
    # the old way of guessing the port reaches the other web server: a one-line error, no HTML
    wrong = stack.cli(
        "play", "--api", f"http://127.0.0.1:{stack.taken_port}", "--key", DEMO_KEYS[0]
    )
    assert wrong.returncode == 2
    assert wrong.stderr.strip().endswith(
        "answered HTTP 200 (text/html): that is not a MetaLedger API"
    )
    # one error line, after the warning that a dev key given as an argument earns
    assert "<html" not in wrong.stdout + wrong.stderr
    assert wrong.stderr.splitlines()[0] == DEV_KEY_WARNING and wrong.stderr.count("\n") == 2
    played = stack.cli(
        "play", "--data-dir", str(stack.data), "--key", DEMO_KEYS[0], "--game", "metax"
    )
    assert played.returncode == 0, played.stdout + played.stderr
    assert "signed result: digest 0x" in played.stdout
    match_id = played.stdout.split("match ", 2)[1].split()[0]
    (stack.data.parent / "match_id").write_text(match_id)


def test_audit_export_from_another_directory(stack: RunningStack) -> None:
    match_id = (stack.data.parent / "match_id").read_text()
    bundle = stack.elsewhere / "bundle.json"
    missing = stack.cli("audit", "export", match_id, "-o", str(bundle))
    assert missing.returncode == 2
    assert missing.stderr.count("\n") == 1 and "Traceback" not in missing.stderr
    assert missing.stderr.startswith(
        f"error: no deployment.json at {stack.elsewhere / '.metaledger'}"
    )
    assert "pass --data-dir" in missing.stderr
    assert not (stack.elsewhere / ".metaledger").exists(), "nothing is created in the wrong place"

    def exported() -> bool:
        result = stack.cli(
            "audit", "export", match_id, "-o", str(bundle), "--data-dir", str(stack.data)
        )
        return result.returncode == 0

    wait_for(exported, 60, "the match to be anchored and exported", stack.log)
    assert json.loads(bundle.read_text())["anchor"]["batch_id"] >= 1


def test_kill_9_of_the_worker_restarts_it_and_keeps_one_beat(stack: RunningStack) -> None:
    worker, beat = stack.child("worker"), stack.child("beat")
    os.kill(worker, signal.SIGKILL)
    wait_for(
        lambda: f"worker (pid {worker}) was killed by SIGKILL" in stack.log.read_text(),
        10,
        "the death to be logged",
        stack.log,
    )
    wait_for(lambda: "worker restarted (pid" in stack.log.read_text(), 60, "the restart", stack.log)
    assert stack.process.poll() is None, "the stack survives"
    assert stack.child("beat") == beat, "beat is its own child: untouched"
    assert stack.child("worker") != worker
    wait_for(
        lambda: (h := stack.health()) is not None and h.status_code == 200,
        30,
        "healthy again",
        stack.log,
    )
    events = (stack.data / "stack.log").read_text()
    assert (
        f"worker (pid {worker}) was killed by SIGKILL" in events and "restarting in 1 s" in events
    )


def test_kill_9_of_beat_restarts_exactly_one_scheduler(stack: RunningStack) -> None:
    beat = stack.child("beat")
    os.kill(beat, signal.SIGKILL)
    wait_for(
        lambda: "beat restarted (pid" in stack.log.read_text(), 60, "beat's restart", stack.log
    )
    restarted = stack.child("beat")  # exactly one
    assert restarted != beat
    assert (stack.data / "beat.lock").read_text().strip() == str(restarted)


def test_a_second_run_on_the_same_data_dir_is_refused(stack: RunningStack) -> None:
    before = stack.children()
    second = stack.cli("run", "--data-dir", str(stack.data))
    assert second.returncode == 2
    assert second.stderr.startswith(
        f"error: a local stack already runs from {stack.data} (pid {stack.process.pid}"
    )
    assert second.stderr.count("\n") == 1
    assert stack.children() == before, "nothing else was started (no second beat)"


def test_sigint_to_its_process_group_stops_everything_and_exits_0(stack: RunningStack) -> None:
    children = stack.children()
    assert len(children) == 5, children  # anvil, redis-server, worker, beat, api
    ports = [int(str(stack.info()[k]).rsplit(":", 1)[1]) for k in ("api_url", "rpc_url")]
    os.killpg(stack.process.pid, signal.SIGINT)
    assert stack.process.wait(timeout=60) == 0
    out = stack.log.read_text()
    tail = out[out.index("Press Ctrl-C to stop.") :]
    assert "error" not in tail.lower() and "Traceback" not in tail
    assert tail.rstrip().endswith("stopped everything `metaledger run` started")
    assert not [pid for pid in children if alive(pid)], "a child outlived the stack"
    assert all(is_free(port) for port in ports)
    assert not (stack.data / "stack.json").exists()
    events = (stack.data / "stack.log").read_text().splitlines()
    assert events[-1].endswith("stopped every process of the stack")
    gone = stack.cli("play", "--data-dir", str(stack.data), "--key", DEMO_KEYS[0])
    assert gone.returncode == 2 and f"({stack.data / 'stack.json'} is missing)" in gone.stderr
