"""`metaledger bench fuzz`: nothing a client sends takes the service down.

1. starts the local stack (`metaledger run`, i.e. ledger.devstack.stack.LocalStack) in a temporary
   data dir, signs a demo wallet in, plays one bot match to its anchored bundle and leaves a
   second match live (real ids for the path parameters);
2. schemathesis over the whole OpenAPI (every operation, positive and negative data,
   unauthenticated and signed in, random and real path parameters) until `requests` requests;
3. the hostile corpus (ledger.bench.hostile) on every endpoint, unauthenticated and signed in;
4. the hostile bundle corpus through `metaledger verify` (one process per bundle) against the
   stack's chain.

Figures: `requests` (HTTP requests sent), `server_errors` (5xx answers, plus verify runs that
printed a traceback), `crashes` (an API, worker or stack process that died, or a verify process
killed by a signal), and the API process's RSS before and after (`api_rss_*_mb`). The rate
limits are raised for the run (every request comes from 127.0.0.1); everything else is default.
"""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import zlib
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import psutil

from ledger.bench import hostile
from ledger.bench.waiting import wait_for_health
from ledger.devstack.ports import free_port
from ledger.devstack.stack import server_command
from ledger.errors import ServiceUnavailable
from ledger.settings import child_environment

#: schemathesis examples per (operation, mode, caller, ids) run; rounds repeat until the total
EXAMPLES_PER_RUN = 25


def _rss_mb(process: psutil.Process) -> float:
    return round(float(process.memory_info().rss) / 1024 / 1024, 1)


@dataclass
class Tally:
    """What the fuzzing saw: every answer counted by its status ("None": no answer)."""

    statuses: Counter[str] = field(default_factory=Counter)
    #: schemathesis runs that could not generate cases (other than negative data for an
    #: operation without inputs, which does not exist)
    generation_errors: int = 0
    samples: list[str] = field(default_factory=list)

    @property
    def requests(self) -> int:
        """Requests sent."""
        return sum(self.statuses.values())

    @property
    def transport_errors(self) -> int:
        """Requests that got no answer."""
        return self.statuses["None"]

    @property
    def server_errors(self) -> int:
        """Answers with a 5xx status."""
        return sum(
            n for status, n in self.statuses.items() if status != "None" and int(status) >= 500
        )

    def record(self, what: str, status: int | None, body: bytes = b"") -> None:
        """Count one answer (None: no answer)."""
        self.statuses[str(status)] += 1
        if status is not None and status >= 500 and len(self.samples) < 10:
            self.samples.append(f"{what}: {status} {body[:160]!r}")


class _Stack:
    """`metaledger run` in a temporary data dir, and the processes it started."""

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.api_port = free_port()
        overrides = {
            "data_dir": str(tmp / "data"),
            "anvil_port": str(free_port()),
            "redis_port": str(free_port()),
            "api_port": str(self.api_port),
            "batch_max_seconds": "1",
            "sign_in_rate_limit": str(10**9),
            "public_rate_limit": str(10**9),
        }
        wanted = {f"METALEDGER_{k.upper()}" for k in overrides}
        self.env = {
            k: v
            for k, v in child_environment(**overrides).items()
            if not k.startswith("METALEDGER_") or k in wanted
        }
        self.url = f"http://127.0.0.1:{self.api_port}"
        self.run: subprocess.Popen[bytes] | None = None
        self.watched: dict[str, psutil.Process] = {}

    def start(self) -> None:
        log = (self.tmp / "run.log").open("wb")
        self.run = subprocess.Popen(
            [sys.executable, "-m", "ledger.cli", "run"],
            env=self.env,
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
        wait_for_health(self.run, self.url, self.tmp / "run.log", timeout=240, poll=0.5)
        root = psutil.Process(self.run.pid)
        self.watched["stack"] = root
        for child in root.children(recursive=True):
            for name in ("api", "worker"):
                if child.cmdline()[1:] == server_command(name)[1:]:
                    self.watched[name] = child
        if "api" not in self.watched:
            raise ServiceUnavailable("could not find the API process of the stack")

    def dead(self) -> list[str]:
        """The watched processes that are no longer running."""
        return [
            name
            for name, p in self.watched.items()
            if not p.is_running() or p.status() == psutil.STATUS_ZOMBIE
        ]

    def rpc_url(self) -> str:
        return f"http://127.0.0.1:{self.env['METALEDGER_ANVIL_PORT']}"

    def stop(self) -> None:
        if self.run is None or self.run.poll() is not None:
            return
        self.run.send_signal(signal.SIGINT)
        try:
            self.run.wait(timeout=60)
        except subprocess.TimeoutExpired:
            for p in [self.watched.get("stack"), *self.watched.values()]:
                if p is not None and p.is_running():
                    p.kill()
            self.run.wait(timeout=10)


def _prepare(url: str) -> dict[str, Any]:
    """A signed-in demo wallet, a finished match with its anchored bundle, a live match."""
    from ledger.client.api import ApiPlayer
    from ledger.devstack.demo import DEMO_KEYS

    http = httpx.Client(base_url=url, timeout=60)
    player = ApiPlayer(http, DEMO_KEYS[0])
    player.sign_in()
    finished = player.start_bot_match("metax", player.pick_deck("metax"), "random")
    player.play_to_end(finished["id"])
    deadline = time.monotonic() + 120
    while True:
        reply = http.get(f"/matches/{finished['id']}/bundle")
        if reply.status_code == 200:
            bundle = reply.json()
            break
        if time.monotonic() > deadline:
            raise ServiceUnavailable(f"the bundle of the fuzz match never came: {reply.text}")
        time.sleep(1)
    live = player.start_bot_match("metaversus", player.pick_deck("metaversus"), "random")
    decks = player.call("GET", "/decks")
    http.close()
    return {
        "token": player.token,
        "address": player.address,
        "bundle": bundle,
        "known": {
            "match_id": live["id"],
            "deck_id": decks[0]["id"],
            "game": "metaversus",
            "address": player.address,
        },
        "finished_id": finished["id"],
    }


def _examples(strategy: Any, seed_value: int, send: Any, headers: dict[str, str]) -> None:
    """Send EXAMPLES_PER_RUN cases drawn from `strategy` (hypothesis, seeded)."""
    from hypothesis import HealthCheck, Phase, given, seed, settings

    @seed(seed_value)
    @settings(
        max_examples=EXAMPLES_PER_RUN,
        deadline=None,
        database=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(case=strategy)
    def run(case: Any) -> None:
        send(case, headers)

    run()


def _schemathesis(
    url: str, token: str, known: dict[str, str], target: int, tally: Tally, stack: _Stack
) -> None:
    """schemathesis cases over every operation until `target` requests were sent."""
    import requests
    import schemathesis
    from hypothesis.errors import Unsatisfiable
    from schemathesis.generation.modes import GenerationMode

    schema = schemathesis.openapi.from_dict(httpx.get(f"{url}/openapi.json").json())
    operations = [r.ok() for r in schema.get_all_operations()]  # type: ignore[union-attr]
    session = requests.Session()
    auth = {"Authorization": f"Bearer {token}"}

    def send(case: Any, headers: dict[str, str]) -> None:
        what = f"{case.method} {case.formatted_path}"
        try:
            response = case.call(base_url=url, session=session, headers=headers, timeout=30)
        except requests.RequestException:
            tally.record(what, None)
            if stack.dead():
                raise
            return
        except Exception:  # the client could not build the request (e.g. an unsendable header)
            return
        tally.record(what, response.status_code, response.content)

    round_no = 0
    while tally.requests < target:
        round_no += 1
        before = tally.requests
        for op in operations:
            path_sets: list[dict[str, Any] | None] = [None]
            names = {p.name for p in op.path_parameters}
            if names and names <= set(known):
                path_sets.append({n: known[n] for n in names})
            for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
                for signed_in in (False, True):
                    if signed_in and op.path == "/auth/logout":
                        continue  # keep the fuzzing session alive
                    for fixed in path_sets:
                        strategy = op.as_strategy(
                            generation_mode=mode,
                            path_parameters=fixed,
                            headers=auth if signed_in else None,
                        )
                        salt = zlib.crc32(f"{op.method}{op.path}{mode}{signed_in}".encode())
                        try:
                            _examples(
                                strategy, round_no * 7919 + salt, send, auth if signed_in else {}
                            )
                        except Unsatisfiable:  # negative data for an operation without inputs
                            continue
                        except Exception as exc:  # a strategy that cannot generate
                            if stack.dead():
                                raise ServiceUnavailable(f"a process died: {stack.dead()}") from exc
                            tally.generation_errors += 1
        if tally.requests == before:
            break
    session.close()


def _hostile(url: str, token: str, known: dict[str, str], tally: Tally, stack: _Stack) -> None:
    openapi = httpx.get(f"{url}/openapi.json").json()
    corpus = hostile.endpoint_requests(openapi, known)
    with httpx.Client(timeout=30) as client:
        for auth in ({}, {"Authorization": f"Bearer {token}"}):
            for request in corpus:
                if auth and request.path.startswith("/auth/logout"):
                    continue  # keep the session: the signed-in half must reach the routes
                answer = hostile.send(client, url, request, auth)
                tally.record(request.name, answer.status, answer.body)
                if answer.status is None and stack.dead():
                    raise ServiceUnavailable(f"{stack.dead()} died at {request.name}")


def _verify_corpus(
    bundle: dict[str, Any], rpc: str, env: dict[str, str], tmp: Path
) -> dict[str, int]:
    files = hostile.bundle_files(bundle)
    files["genuine"] = json.dumps(bundle).encode()
    out: Counter[str] = Counter()
    folder = tmp / "bundles"
    folder.mkdir()
    for i, (name, data) in enumerate(sorted(files.items())):
        path = folder / f"{i}.json"
        path.write_bytes(data)
        done = subprocess.run(
            [sys.executable, "-m", "ledger.cli", "verify", str(path), "--rpc", rpc],
            capture_output=True,
            text=True,
            timeout=300,
            env=env,
        )
        out["verify_runs"] += 1
        out[f"verify_exit_{done.returncode}"] += 1
        if done.returncode < 0:
            out["verify_crashes"] += 1
        elif "Traceback" in done.stderr or done.returncode not in (0, 1, 2):
            out["verify_tracebacks"] += 1
        elif done.returncode == 2 and len(done.stderr.strip().splitlines()) != 1:
            out["verify_not_one_line"] += 1
        if name == "genuine" and done.returncode != 0:
            out["verify_genuine_failed"] += 1
    return dict(out)


def run(requests: int = 10_000, verify: bool = True) -> dict[str, Any]:
    """Run the whole fuzz bench; one JSON-able dict of figures."""
    started = time.monotonic()
    tmp = Path(tempfile.mkdtemp(prefix="metaledger-bench-fuzz-"))
    stack = _Stack(tmp)
    tally = Tally()
    result: dict[str, Any] = {}
    try:
        stack.start()
        prepared = _prepare(stack.url)
        api = stack.watched["api"]
        # warm up every route once so that "before" is the steady state, not a cold process
        _schemathesis(stack.url, prepared["token"], prepared["known"], 300, Tally(), stack)
        rss_before = _rss_mb(api)
        _schemathesis(stack.url, prepared["token"], prepared["known"], requests, tally, stack)
        fuzz_requests = tally.requests
        _hostile(stack.url, prepared["token"], prepared["known"], tally, stack)
        verify_figures = (
            _verify_corpus(prepared["bundle"], stack.rpc_url(), stack.env, tmp) if verify else {}
        )
        dead = stack.dead()
        rss_after = _rss_mb(api) if "api" not in dead else float("nan")
        crashes = len(dead) + verify_figures.get("verify_crashes", 0)
        result = {
            "requests": tally.requests,
            "schemathesis_requests": fuzz_requests,
            "hostile_requests": tally.requests - fuzz_requests,
            "server_errors": tally.server_errors + verify_figures.get("verify_tracebacks", 0),
            "crashes": crashes,
            "dead_processes": dead,
            "transport_errors": tally.transport_errors,
            "generation_errors": tally.generation_errors,
            "api_rss_before_mb": rss_before,
            "api_rss_after_mb": rss_after,
            "rss_ratio": round(rss_after / rss_before, 3),
            "statuses": dict(sorted(tally.statuses.items())),
            "server_error_samples": tally.samples,
            **verify_figures,
            "seconds": round(time.monotonic() - started, 1),
        }
    finally:
        stack.stop()
    shutil.rmtree(tmp, ignore_errors=True)  # kept (with the stack's logs) only when the run failed
    return result
