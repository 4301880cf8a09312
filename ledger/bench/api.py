"""`metaledger bench api`: the API against a real Anvil and a Redis broker (every API process
announces its commits on it, as on the local stack), in its own processes.

Phases, each against a fresh API (`python -m api`, access log off) unless said otherwise:
1. baseline: the bare FastAPI app (`ledger.bench.bare`, one endpoint taking and returning a small
   JSON body) driven by `match_clients` closed-loop clients of the load generator
   (`ledger.bench.loadgen`), in a window before phase 2 and one right after it -> their mean,
   baseline_per_s (each window's in baseline_per_s_before_after);
2. human-vs-human MetaX matches on SQLite, one API process: the same load generator and client
   count, each client playing both seats of its matches with random legal moves (create, join,
   seat authorizations with commit-reveal, moves each signed by its session key, checked,
   stored and receipted, every receipt checked by the client), the moves on each seat's play
   channel (a WebSocket; the other seat learns its turn and legal actions from the change
   pushed to it) -> signed_actions_per_s (moves applied per second), signed_vs_baseline; then
   the same through the HTTP move route with a legal-actions read when the turn passes ->
   signed_actions_per_s_http, signed_http_vs_baseline;
3. deck registrations (40-card MetaX deck, many wallets): open loop at a steady `rate` per second
   for `seconds`, latency from each request's *scheduled* send time (no coordinated omission)
   -> deck_verify_p50_ms / p99_ms; then `clients` closed-loop clients -> deck_verify_max_per_s;
4. bot matches (signed random moves vs the random bot) -> actions_per_s;
5. the soak: phases 2 and 3 alternate for `minutes`; the API's RSS after the first round and at
   the end -> api_rss_growth_pct;
6. phase 2 again with `processes` API processes sharing the port, and on PostgreSQL.
With `profile`, py-spy records flame graphs of the API process during phases 2 and 3.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx

from ledger.bench.apistack import GAME, BenchStack, Server
from ledger.bench.loadgen import (
    HttpStatusError,
    JsonClient,
    RequestLoop,
    Tally,
    closed_loop,
    echo_loop,
)
from ledger.bench.matchplay import Seat, human_loop


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    k = max(0, min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1))))
    return ordered[k]


def _sign_in_all(url: str, keys: list[str]) -> list[str]:
    from ledger.client.api import ApiPlayer

    def one(key: str) -> str:
        with httpx.Client(base_url=url, timeout=30) as http:
            player = ApiPlayer(http, key)
            player.sign_in()
            return player.token

    with ThreadPoolExecutor(8) as pool:
        return list(pool.map(one, keys))


def _open_loop(
    url: str, tokens: list[str], deck: dict[str, int], seconds: float, rate: float
) -> dict[str, Any]:
    """Send at a steady rate regardless of responses; latency from the scheduled time (after
    a short warm-up at the same rate whose latencies are not counted). Each sender thread has
    its own keep-alive connection of the load generator (`JsonClient`)."""
    total = int(seconds * rate)
    latencies: list[float] = []
    errors = 0
    lock = threading.Lock()
    body = {"game": GAME, "cards": deck}
    local = threading.local()
    clients: list[JsonClient] = []

    def client() -> JsonClient:
        found: JsonClient | None = getattr(local, "client", None)
        if found is None:
            found = local.client = JsonClient(url)
            with lock:
                clients.append(found)
        return found

    start = time.perf_counter() + 0.2

    def send(i: int) -> None:
        nonlocal errors
        token = tokens[(-i if i < 0 else i) % len(tokens)]
        scheduled = start + i / rate
        try:
            client().request("POST", "/decks", body, token, ok=(201,))
            ok = True
        except (HttpStatusError, OSError):
            ok = False
        if i < 0:  # warm-up request: fills the client's and the server's connection pools
            return
        elapsed = (time.perf_counter() - scheduled) * 1000
        with lock:
            if ok:
                latencies.append(elapsed)
            else:
                errors += 1

    with ThreadPoolExecutor(64) as pool:
        warm = int(min(3.0, seconds / 5) * rate)
        for i in range(warm):
            time.sleep(1 / rate)
            pool.submit(send, -1 - i)
        start = time.perf_counter() + 0.5
        for i in range(total):
            # submit each request at its scheduled time; a busy pool shows up as latency
            delay = start + i / rate - time.perf_counter()
            if delay > 0:
                time.sleep(delay)
            pool.submit(send, i)
    for c in clients:
        c.close()
    return {
        "deck_verify_p50_ms": round(statistics.median(latencies), 2) if latencies else None,
        "deck_verify_p99_ms": round(_percentile(latencies, 99), 2),
        "deck_verify_max_ms": round(max(latencies), 2) if latencies else None,
        "deck_verify_sent": total,
        "deck_verify_errors": errors,
    }


def _closed_loop(
    url: str, tokens: list[str], deck: dict[str, int], clients: int, seconds: float
) -> dict[str, Any]:
    """`clients` closed-loop registration clients of the load generator for `seconds`."""
    body = {"game": GAME, "cards": deck}

    def register(client: JsonClient, k: int, n: int) -> None:
        client.request("POST", "/decks", body, tokens[(k * 7919 + n) % len(tokens)], ok=(201,))

    loop = RequestLoop(url, lambda c: c.request("GET", "/healthz", ok=(200, 503)), register)
    tally = closed_loop(clients, seconds, loop)
    return {
        "deck_verify_max_per_s": tally.per_s,
        "deck_verify_closed_loop_errors": tally.errors,
    }


def _bot_matches(url: str, keys: list[str], seconds: float) -> dict[str, Any]:
    from ledger.client.api import ApiPlayer

    sent = [0] * len(keys)
    applied = [0] * len(keys)
    finished = [0] * len(keys)
    players: list[tuple[ApiPlayer, dict[str, int], str]] = []
    for key in keys:  # sign in and register one deck each, outside the measured window
        player = ApiPlayer(httpx.Client(base_url=url, timeout=60), key)
        player.sign_in()
        deck = player.pick_deck(GAME)
        players.append(
            (player, deck, player.call("POST", "/decks", {"game": GAME, "cards": deck})["id"])
        )
    stop_at = time.perf_counter() + seconds

    def loop(k: int) -> None:
        player, deck, deck_id = players[k]

        def count(_choice: Any, out: dict[str, Any]) -> None:
            applied[k] += len(out["applied"])

        while not sent[k] or time.perf_counter() < stop_at:
            match = player.start_bot_match(GAME, deck, "random", deck_id=deck_id)
            if time.perf_counter() < stop_at:
                final, n = player.play(match["id"], on_action=count, stop_at=stop_at)
            else:  # a short window closed during this client's first setup: one move still counts
                final, n = player.play(match["id"], on_action=count, max_actions=1)
            sent[k] += n
            if final == "finished":
                finished[k] += 1
            else:
                player.resign(match["id"])

    t0 = time.perf_counter()
    threads = [threading.Thread(target=loop, args=(k,)) for k in range(len(keys))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - t0
    for player, _, _ in players:
        player.http.close()
    return {
        "actions_per_s": round(sum(sent) / elapsed, 1),
        "engine_actions_per_s": round(sum(applied) / elapsed, 1),
        "bot_matches_finished": sum(finished),
    }


def _seats(url: str, keys: list[str]) -> list[tuple[Seat, Seat]]:
    """Sign in every key, register its starter deck, and pair the wallets up."""
    from ledger.client.api import ApiPlayer

    def one(key: str) -> Seat:
        player = ApiPlayer(httpx.Client(base_url=url, timeout=60), key)
        player.sign_in()
        deck = player.pick_deck(GAME)
        return Seat(player, player.call("POST", "/decks", {"game": GAME, "cards": deck})["id"])

    with ThreadPoolExecutor(8) as pool:
        seats = list(pool.map(one, keys))
    return [(seats[i], seats[i + 1]) for i in range(0, len(seats) - 1, 2)]


class _Profiler:
    """py-spy flame graphs of a server's processes, one SVG per phase (or nothing)."""

    def __init__(self, folder: Path | None) -> None:
        self.folder = folder
        if folder is not None:
            folder.mkdir(parents=True, exist_ok=True)

    def record(self, server: Server, name: str, seconds: float) -> subprocess.Popen[bytes] | None:
        """Start recording `server` for `seconds` into `<folder>/<name>.svg`."""
        if self.folder is None:
            return None
        spy = str(Path(sys.executable).with_name("py-spy"))
        pids = server.serving_pids()
        args = [spy, "record", "--pid", str(server.process.pid), "--duration", str(int(seconds))]
        if len(pids) > 1:
            args.append("--subprocesses")
        # the thread holding the GIL (the CPU), sampled without pausing the process (a paused
        # process under load serves a fraction of its requests, which distorts the profile)
        args += ["--gil", "--nonblocking", "--rate", "200", "--format", "flamegraph"]
        args += ["-o", str(self.folder / f"{name}.svg")]
        return subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    @staticmethod
    def done(spy: subprocess.Popen[bytes] | None) -> None:
        """Wait for a recording to be written."""
        if spy is not None:
            spy.wait(120)


def _close(pairs: list[tuple[Seat, Seat]]) -> None:
    """Close the players' HTTP clients."""
    for pair in pairs:
        for seat in pair:
            seat.player.http.close()


def _moves(
    url: str, pairs: list[tuple[Seat, Seat]], seconds: float, *, http: bool = False
) -> Tally:
    """Human-vs-human moves for `seconds`: on the play channel, or (`http`) the HTTP route."""
    return closed_loop(len(pairs), seconds, human_loop(url, pairs, GAME, http=http))


def _cpu_ms_per(server: Server, work: Callable[[], Tally]) -> tuple[Tally, float | None]:
    """`work()` and the server's CPU milliseconds per `done` (robust to other load)."""
    before = server.cpu_seconds()
    tally = work()
    used = server.cpu_seconds() - before
    return tally, round(1000 * used / tally.done, 3) if tally.done else None


def _baseline(bare: Server, clients: int, seconds: float) -> tuple[Tally, float | None]:
    """One window of the bare baseline: its tally and the server's CPU ms per request."""
    return _cpu_ms_per(bare, lambda: closed_loop(clients, seconds, echo_loop(bare.url)))


def _bracketed(
    before: tuple[Tally, float | None], after: tuple[Tally, float | None]
) -> dict[str, Any]:
    """The baseline figures of the windows before and after the signed moves: each, and their
    means (`baseline_per_s`, `baseline_cpu_ms_per_request`)."""
    rates = [before[0].per_s, after[0].per_s]
    cpus = [c for c in (before[1], after[1]) if c is not None]
    return {
        "baseline_per_s": round(statistics.fmean(rates), 1),
        "baseline_per_s_before_after": rates,
        "baseline_cpu_ms_per_request": round(statistics.fmean(cpus), 3) if cpus else None,
        "baseline_cpu_ms_per_request_before_after": [before[1], after[1]],
        "baseline_errors": before[0].errors + after[0].errors,
    }


def run(
    seconds: float = 30.0,
    rate: float = 100.0,
    clients: int = 50,
    minutes: float = 10.0,
    processes: int = 2,
    match_clients: int = 4,
    wallets: int = 200,
    postgres: bool = True,
    profile: Path | None = None,
) -> dict[str, Any]:
    """Run the benchmark (see the module docstring) and return its figures."""
    stack = BenchStack(wallets + 2 * match_clients)
    move_seconds = min(seconds, 15.0)
    spy = _Profiler(profile)
    out: dict[str, Any] = {}
    done = False
    try:
        stack.start()
        deck_keys, match_keys = stack.keys[:wallets], stack.keys[wallets:]

        bare = stack.bare()
        before = _baseline(bare, match_clients, move_seconds)

        api = stack.api(stack.database("sqlite"), api_access_log="false")
        pairs = _seats(api.url, match_keys)
        _moves(api.url, pairs, min(3.0, move_seconds))  # warm-up: caches, connections
        recording = spy.record(api, "moves", move_seconds)
        moves, out["signed_cpu_ms_per_action"] = _cpu_ms_per(
            api, lambda: _moves(api.url, pairs, move_seconds)
        )
        spy.done(recording)
        _moves(api.url, pairs, min(3.0, move_seconds), http=True)
        by_http, out["signed_cpu_ms_per_action_http"] = _cpu_ms_per(
            api, lambda: _moves(api.url, pairs, move_seconds, http=True)
        )
        # the baseline again right after: the machine's speed drifts between the phases (by up
        # to a third here), so the ratio takes the mean of the windows on either side
        after = _baseline(bare, match_clients, move_seconds)
        bare.stop()
        out |= _bracketed(before, after)
        out["signed_actions_per_s"] = moves.per_s
        out["signed_messages_per_s"] = round(moves.requests / moves.seconds, 1)
        out["signed_errors"] = moves.errors
        baseline = out["baseline_per_s"]
        out["signed_vs_baseline"] = round(moves.per_s / baseline, 3) if baseline else None
        out["signed_actions_per_s_http"] = by_http.per_s
        out["signed_http_requests_per_s"] = round(by_http.requests / by_http.seconds, 1)
        out["signed_http_errors"] = by_http.errors
        out["signed_http_vs_baseline"] = round(by_http.per_s / baseline, 3) if baseline else None

        tokens = _sign_in_all(api.url, deck_keys)
        out |= _open_loop(api.url, tokens, stack.deck, seconds, rate)
        recording = spy.record(api, "decks", min(seconds, 10.0))
        out |= _closed_loop(api.url, tokens, stack.deck, clients, min(seconds, 10.0))
        spy.done(recording)
        bots = _bot_matches(api.url, match_keys[:match_clients], move_seconds)
        out |= bots

        rss_start = api.rss_mb()
        soak_until = time.monotonic() + minutes * 60
        rss = [rss_start]
        while time.monotonic() < soak_until:
            _moves(api.url, pairs, min(20.0, max(1.0, soak_until - time.monotonic())))
            _open_loop(
                api.url,
                tokens,
                stack.deck,
                min(10.0, max(1.0, soak_until - time.monotonic())),
                rate,
            )
            rss.append(api.rss_mb())
        out["api_rss_start_mb"] = rss_start
        out["api_rss_mb"] = rss[-1]
        out["api_rss_max_mb"] = max(rss)
        out["api_rss_growth_pct"] = round((rss[-1] / rss_start - 1) * 100, 1) if rss_start else None
        _close(pairs)
        api.stop()

        if processes > 1:
            api = stack.api(stack.database("sqlite"), processes=processes, api_access_log="false")
            pairs = _seats(api.url, match_keys)
            _moves(api.url, pairs, min(3.0, move_seconds))
            out[f"signed_actions_per_s_{processes}_processes"] = _moves(
                api.url, pairs, move_seconds
            ).per_s
            _close(pairs)
            api.stop()
        if postgres:
            api = stack.api(stack.database("postgres"), api_access_log="false")
            pairs = _seats(api.url, match_keys)
            _moves(api.url, pairs, min(3.0, move_seconds))
            out["signed_actions_per_s_postgres"] = _moves(api.url, pairs, move_seconds).per_s
            _close(pairs)
            api.stop()
        out["params"] = {
            "seconds": seconds,
            "rate": rate,
            "clients": clients,
            "match_clients": match_clients,
            "minutes": minutes,
            "processes": processes,
            "wallets": wallets,
            "game": GAME,
            "deck_cards": sum(stack.deck.values()),
            "cpus": os.cpu_count(),
            "load_average_at_end": [round(x, 2) for x in os.getloadavg()],
        }
        done = True
        return out
    finally:
        stack.stop(keep_files=not done)
