"""`metaledger bench api`: the API against a real Anvil, in its own process.

Phases (run twice against the same API process; the RSS after each run shows any leak):
1. open loop: 40-card MetaX deck registrations from many wallets at a steady `rate` per
   second for `seconds`; latency is measured from each request's *scheduled* send time
   (no coordinated omission) -> deck_verify_p50_ms / p99_ms;
2. closed loop: `clients` clients register decks back to back -> deck_verify_max_per_s;
3. bot matches driven through HTTP by a few clients (random legal moves vs the random bot)
   -> actions_per_s (player actions submitted over HTTP per second) and
   engine_actions_per_s (including the bot's replies applied in the same requests);
4. right after, in the same run: matches between two wallets (pairs of the same number of
   clients), every move signed by its session key, checked, stored and receipted (each
   receipt checked by the client) -> signed_actions_per_s.
Every human move is signed since issue 13, the bot matches' too: `actions_per_s` is the
bot-match figure of before, `signed_actions_per_s` the human-vs-human one.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx

from ledger.bench.waiting import start_api

GAME = "metax"
ACTION_CLIENTS = 4


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    k = max(0, min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1))))
    return ordered[k]


class _Stack:
    """Anvil + contracts + SQLite + one API process (uvicorn), all in a temporary folder."""

    def __init__(self, wallets: int, match_wallets: int) -> None:
        from eth_account import Account

        self.tmp = Path(tempfile.mkdtemp(prefix="metaledger-bench-api-"))
        self.keys = [Account.create().key.to_0x_hex() for _ in range(wallets + match_wallets)]
        self.deck_keys = self.keys[:wallets]
        self.match_keys = self.keys[wallets:]
        self.api: subprocess.Popen[bytes] | None = None
        self.anvil: Any = None

    def start(self) -> None:
        from eth_account import Account

        from engine import get_game
        from ledger.db.migrations import upgrade
        from ledger.devstack.anvil import start_anvil
        from ledger.devstack.deploy import deploy_from_settings, seed_demo
        from ledger.protocol.tokenids import token_id
        from ledger.settings import ANVIL_DEV_KEYS

        self.anvil = start_anvil(log_file=self.tmp / "anvil.log")
        deployment = deploy_from_settings(self.anvil.w3, self.anvil.rpc_url)
        deployment.save(self.tmp / "deployment.json")
        game = get_game(GAME)
        deck = dict(game.starter_decks[0])
        cards = [(token_id(GAME, c), n) for c, n in game.required_tokens(deck).items()]
        seed_demo(
            self.anvil.w3,
            deployment,
            ANVIL_DEV_KEYS[0],
            {Account.from_key(k).address: cards for k in self.keys},
        )
        self.deck = deck
        db_url = f"sqlite:///{self.tmp / 'bench.db'}"
        upgrade(db_url)
        self.api, self.url = start_api(
            self.tmp,
            rpc_url=self.anvil.rpc_url,
            database_url=db_url,
            deployment_file=str(self.tmp / "deployment.json"),
            data_dir=str(self.tmp),
            # every bench wallet signs in from this one address
            sign_in_rate_limit=str(1_000_000),
        )

    def stop(self) -> None:
        if self.api is not None and self.api.poll() is None:
            self.api.terminate()
            try:
                self.api.wait(10)
            except subprocess.TimeoutExpired:
                self.api.kill()
        if self.anvil is not None:
            self.anvil.stop()


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
    a short warm-up at the same rate whose latencies are not counted)."""
    total = int(seconds * rate)
    latencies: list[float] = []
    errors = 0
    lock = threading.Lock()
    body = {"game": GAME, "cards": deck}
    # one thread-safe client with a pool of keep-alive connections (creating a client per
    # thread costs ~30 ms of CPU each, which would show up as server latency)
    shared = httpx.Client(
        base_url=url,
        timeout=30,
        limits=httpx.Limits(max_connections=64, max_keepalive_connections=64),
    )

    def client() -> httpx.Client:
        return shared

    start = time.perf_counter() + 0.2

    def send(i: int) -> None:
        if i < 0:  # warm-up request: fills the client's and the server's connection pools
            client().post(
                "/decks", json=body, headers={"Authorization": f"Bearer {tokens[-i % len(tokens)]}"}
            )
            return
        nonlocal errors
        scheduled = start + i / rate
        response = client().post(
            "/decks", json=body, headers={"Authorization": f"Bearer {tokens[i % len(tokens)]}"}
        )
        elapsed = (time.perf_counter() - scheduled) * 1000
        with lock:
            if response.status_code == 201:
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
    shared.close()
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
    done = [0] * clients
    errors = [0] * clients
    body = {"game": GAME, "cards": deck}

    http = [httpx.Client(base_url=url, timeout=30) for _ in range(clients)]
    for c in http:
        c.get("/healthz")
    stop_at = time.perf_counter() + seconds

    def loop(k: int) -> None:
        c = http[k]
        while time.perf_counter() < stop_at:
            token = tokens[(k * 7919 + done[k]) % len(tokens)]
            r = c.post("/decks", json=body, headers={"Authorization": f"Bearer {token}"})
            if r.status_code == 201:
                done[k] += 1
            else:
                errors[k] += 1

    t0 = time.perf_counter()
    threads = [threading.Thread(target=loop, args=(k,)) for k in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - t0
    for c in http:
        c.close()
    return {
        "deck_verify_max_per_s": round(sum(done) / elapsed, 1),
        "deck_verify_closed_loop_errors": sum(errors),
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
        while time.perf_counter() < stop_at:
            match = player.start_bot_match(GAME, deck, "random", deck_id=deck_id)

            def count(_choice: Any, out: dict[str, Any]) -> None:
                applied[k] += len(out["applied"])

            final, n = player.play(match["id"], on_action=count, stop_at=stop_at)
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


def _duels(url: str, keys: list[str], seconds: float) -> dict[str, Any]:
    """Pairs of wallets play each other: each move signed, each receipt checked."""
    from ledger.client.api import ApiPlayer

    players: list[tuple[ApiPlayer, str]] = []
    for key in keys:  # sign in and register one deck each, outside the measured window
        player = ApiPlayer(httpx.Client(base_url=url, timeout=60), key)
        player.sign_in()
        deck = player.pick_deck(GAME)
        players.append((player, player.call("POST", "/decks", {"game": GAME, "cards": deck})["id"]))
    pairs = [(players[k], players[k + 1]) for k in range(0, len(players) - 1, 2)]
    sent = [0] * len(pairs)
    finished = [0] * len(pairs)
    stop_at = time.perf_counter() + seconds

    def loop(k: int) -> None:
        (a, deck_a), (b, deck_b) = pairs[k]
        while time.perf_counter() < stop_at:
            created = a.call("POST", "/matches", {"game": GAME, "deck_id": deck_a})
            joined = b.call("POST", f"/matches/{created['id']}/join", {"deck_id": deck_b})
            secrets_ = [a.commit(joined), b.commit(joined)]
            a.reveal(joined["id"], secrets_[0])
            match = b.reveal(joined["id"], secrets_[1])
            seats = {0: a, 1: b}
            mover, legal = seats[match["current_player"]], None
            version, head, status = match["version"], match["head_hash"], match["status"]
            while status == "active" and time.perf_counter() < stop_at:
                if legal is None:
                    seen = mover.call("GET", f"/matches/{joined['id']}/view")
                    legal = seen["legal_actions"]
                choice = legal[mover.rng.randrange(len(legal))]
                out = mover.send(joined["id"], choice["action"], version, head)
                sent[k] += 1
                version, head, status = out["version"], out["head_hash"], out["status"]
                if out["your_turn"]:
                    legal = out["legal_actions"]
                else:
                    mover, legal = (
                        seats[out["current_player"]] if status == "active" else mover,
                        None,
                    )
            if status == "finished":
                finished[k] += 1
            else:
                mover.resign(joined["id"])

    t0 = time.perf_counter()
    threads = [threading.Thread(target=loop, args=(k,)) for k in range(len(pairs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - t0
    for player, _ in players:
        player.http.close()
    return {
        "signed_actions_per_s": round(sum(sent) / elapsed, 1),
        "signed_matches_finished": sum(finished),
    }


def run(
    seconds: float = 30.0,
    rate: float = 100.0,
    clients: int = 50,
    wallets: int = 200,
    rounds: int = 2,
) -> dict[str, Any]:
    """Run the benchmark (`rounds` times against one API process) and return its figures."""
    stack = _Stack(wallets, 2 * ACTION_CLIENTS)
    try:
        stack.start()
        assert stack.api is not None
        tokens = _sign_in_all(stack.url, stack.deck_keys)
        rss: list[float] = []
        out: dict[str, Any] = {}
        for _ in range(rounds):
            out = _open_loop(stack.url, tokens, stack.deck, seconds, rate)
            out |= _closed_loop(stack.url, tokens, stack.deck, clients, min(seconds, 10.0))
            out |= _bot_matches(stack.url, stack.match_keys[:ACTION_CLIENTS], min(seconds, 15.0))
            out |= _duels(stack.url, stack.match_keys[ACTION_CLIENTS:], min(seconds, 15.0))
            out["signed_vs_actions_ratio"] = round(
                out["signed_actions_per_s"] / out["actions_per_s"], 3
            )
            rss.append(round(_rss_mb(stack.api.pid), 1))
        out["api_rss_mb"] = rss[-1]
        out["api_rss_first_run_mb"] = rss[0]
        out["api_rss_growth_pct"] = round((rss[-1] / rss[0] - 1) * 100, 1) if rss[0] else None
        out["params"] = {
            "seconds": seconds,
            "rate": rate,
            "clients": clients,
            "wallets": wallets,
            "rounds": rounds,
            "game": GAME,
            "deck_cards": sum(stack.deck.values()),
            "cpus": os.cpu_count(),
        }
        return out
    finally:
        stack.stop()
