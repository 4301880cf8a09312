"""`metaledger bench scale`: the product scaled out on one machine, with faults, through a
provider-like RPC proxy.

It starts embedded PostgreSQL, a redis-server, Anvil behind `LimitedRpcProxy` (eth_getLogs over
1,000 blocks refused, some calls answered 429 or with a JSON-RPC rate-limit error), `api_processes`
API processes, `workers` Celery workers and one beat, each process given only its own key.
Players (threads, spread over the API processes) sign in, register a deck once, then play short bot
matches through the real API: a few random legal moves, then they resign; each resignation is an
operator-signed result. During the run it SIGKILLs one worker and one API process (the players of a
dead API process move to another), causes one reorg (an EVM snapshot taken while anchors land,
reverted once a worker has recorded an anchor mined after it), and spikes the base fee once (50
gwei -> the next block; stuck anchors are replaced). Once `results` results are in and every fault
is over (a short run plays on past `results` until then), the players stop and it waits until the
outbox is empty and every batch confirmed, then counts from the chain:

- results_in: signed results in the database;
- anchored: results whose proof leads to a root MatchLedger holds for their batch (read from the
  chain), in a batch whose BatchAnchored event says how many results it has;
- anchored_twice: results counted in more than one on-chain batch (the on-chain counts' sum minus
  the distinct results anchored);
- lost = results_in - anchored; max_pending_age_s: the longest any result waited for a confirmed
  batch, sampled every second from the database.
"""

from __future__ import annotations

import os
import signal
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx

if TYPE_CHECKING:
    from sqlalchemy import Engine

GAME = "metax"
GWEI = 10**9


@dataclass
class _Fleet:
    """The server processes of the run."""

    api: list[Any] = field(default_factory=list)
    api_urls: list[str] = field(default_factory=list)
    workers: list[Any] = field(default_factory=list)
    beat: Any = None

    def all(self) -> list[Any]:
        return [*self.api, *self.workers, *([self.beat] if self.beat else [])]


@dataclass
class _Faults:
    worker_killed_at: int | None = None
    api_killed_at: int | None = None
    reorg_at: int | None = None
    fee_spike_at: int | None = None

    def all_happened(self) -> bool:
        """Every fault of the run has been caused."""
        return None not in (
            self.worker_killed_at,
            self.api_killed_at,
            self.reorg_at,
            self.fee_spike_at,
        )


class _Run:
    def __init__(self, results: int, api_processes: int, workers: int, players: int) -> None:
        self.target = results
        self.api_processes = api_processes
        self.worker_count = workers
        self.players = players
        self.tmp = Path(tempfile.mkdtemp(prefix="metaledger-bench-scale-"))
        self.fleet = _Fleet()
        self.faults = _Faults()
        self.stop_players = threading.Event()
        self.done = threading.Event()
        self.dead_urls: set[str] = set()
        self.client_errors: dict[str, int] = {}
        self.max_pending_age = 0.0
        self.lock = threading.Lock()
        self.engine: Engine | None = None
        self.bars_held = False

    # -- setup -----------------------------------------------------------------------------

    def start(self) -> None:
        from eth_account import Account

        from engine import get_game
        from ledger.db import make_engine
        from ledger.db.migrations import upgrade
        from ledger.devstack.anvil import start_anvil
        from ledger.devstack.deploy import deploy_from_settings, seed_demo
        from ledger.devstack.rpcproxy import LimitedRpcProxy
        from ledger.devstack.servers import PostgresServer, RedisServer
        from ledger.keys.roles import Role
        from ledger.protocol.tokenids import token_id

        self.anvil = start_anvil(log_file=self.tmp / "anvil.log")
        self.deployment = deploy_from_settings(self.anvil.w3, self.anvil.rpc_url)
        self.deployment.save(self.tmp / "deployment.json")
        game = get_game(GAME)
        self.keys = [Account.create().key.to_0x_hex() for _ in range(self.players)]
        deck = dict(game.starter_decks[0])
        cards = [(token_id(GAME, c), n) for c, n in game.required_tokens(deck).items() if n]
        seed_demo(
            self.anvil.w3,
            self.deployment,
            Role.PUBLISHER.dev_key,
            {Account.from_key(k).address: cards for k in self.keys},
        )
        self.deck = deck
        self.proxy = LimitedRpcProxy(
            self.anvil.rpc_url, max_log_range=1000, http_429_every=97, json_rate_limit_every=89
        ).start()
        self.postgres = PostgresServer(self.tmp / "postgres")
        self.database_url = self.postgres.create_database("scale")
        upgrade(self.database_url)
        self.engine = make_engine(self.database_url)
        self.redis = RedisServer(self.tmp / "redis").start()

    def _env(self, server: str, **extra: str) -> dict[str, str]:
        from ledger.keys.roles import server_environment
        from ledger.settings import child_environment

        env = child_environment(
            data_dir=str(self.tmp),
            rpc_url=self.proxy.url,
            database_url=self.database_url,
            broker_url=self.redis.url,
            deployment_file=str(self.tmp / "deployment.json"),
            batch_max_results="256",
            batch_max_seconds="1.0",
            anchor_replace_after_seconds="3",
            indexer_poll_seconds="5",
            sign_in_rate_limit="1000000",
            public_rate_limit="1000000",
            health_backlog_max_seconds="3600",
            turn_timeout_seconds="20",
            **extra,
        )
        return server_environment(env, server)

    def start_fleet(self) -> None:
        from ledger.devstack.childprocess import ChildProcess
        from ledger.devstack.ports import free_port
        from ledger.devstack.stack import server_command

        for k in range(self.api_processes):
            port = free_port()
            env = self._env("api", api_port=str(port), siwe_domain=f"127.0.0.1:{port}")
            child = ChildProcess(
                f"api-{k}", server_command("api"), log_file=self.tmp / f"api-{k}.log", env=env
            ).start()
            self.fleet.api.append(child)
            self.fleet.api_urls.append(f"http://127.0.0.1:{port}")
        for k in range(self.worker_count):
            child = ChildProcess(
                f"worker-{k}",
                server_command("worker"),
                log_file=self.tmp / f"worker-{k}.log",
                env=self._env("worker"),
            ).start()
            self.fleet.workers.append(child)
        self.fleet.beat = ChildProcess(
            "beat", server_command("beat"), log_file=self.tmp / "beat.log", env=self._env("beat")
        ).start()
        for child, url in zip(self.fleet.api, self.fleet.api_urls, strict=True):
            child.wait_until(lambda u=url: _answers(u), "answer /healthz", 120.0)

    def stop(self) -> None:
        for child in reversed(self.fleet.all()):
            if child.alive():
                child.stop(timeout=10)
        for part in ("proxy", "redis", "postgres", "anvil"):
            thing = getattr(self, part, None)
            if thing is not None:
                thing.stop()

    @property
    def _engine(self) -> Engine:
        assert self.engine is not None, "started"
        return self.engine

    # -- load ------------------------------------------------------------------------------

    def results_in(self) -> int:
        from sqlalchemy import func, select

        from ledger.db import unit_of_work
        from ledger.db.models.results import MatchResult

        with unit_of_work(self._engine, write=False) as db:
            return int(db.execute(select(func.count()).select_from(MatchResult)).scalar_one())

    def _url(self, k: int) -> str:
        live = [u for u in self.fleet.api_urls if u not in self.dead_urls]
        return live[k % len(live)]

    def player(self, k: int) -> None:
        from ledger.client.api import ApiError, ApiPlayer
        from ledger.client.session import MatchSession
        from ledger.errors import MetaLedgerError

        player: ApiPlayer | None = None
        sessions: dict[str, MatchSession] = {}
        deck_id = ""
        live = ""  # a match an error left behind: resigned before the next one
        while not self.stop_players.is_set():
            try:
                if player is None or str(player.http.base_url).rstrip("/") in self.dead_urls:
                    if player is not None:
                        player.http.close()
                    player = ApiPlayer(
                        httpx.Client(base_url=self._url(k), timeout=60),
                        self.keys[k],
                        sessions=sessions,  # a live match's session key signs its resignation
                    )
                    player.sign_in()
                    if not deck_id:
                        deck_id = player.call("POST", "/decks", {"game": GAME, "cards": self.deck})[
                            "id"
                        ]
                if live:
                    try:
                        player.resign(live)
                    except ApiError as exc:
                        if exc.status_code != 409:  # 409: it ended meanwhile (a timeout)
                            raise
                    sessions.pop(live, None)
                    live = ""
                match = player.start_bot_match(GAME, self.deck, "random", deck_id=deck_id)
                live = match["id"]
                status, _sent = player.play(live, max_actions=2)
                if status == "active":
                    player.resign(live)  # signed with the match's session key
                sessions.pop(live, None)
                live = ""
            except (MetaLedgerError, httpx.HTTPError) as exc:
                reason = f"{type(exc).__name__}: {str(exc)[:60]}"
                with self.lock:
                    self.client_errors[reason] = self.client_errors.get(reason, 0) + 1
                if player is not None:
                    player.http.close()
                player = None
                time.sleep(0.2)

    def watch_backlog(self) -> None:
        from ledger.anchoring import repository as repo
        from ledger.db import unit_of_work
        from ledger.db.models.base import utcnow

        while not self.done.wait(1.0):
            try:
                with unit_of_work(self._engine, write=False) as db:
                    _count, oldest = repo.backlog(db)
            except Exception:  # the database is under load: the next sample counts
                continue
            if oldest is not None:
                age = (utcnow() - oldest).total_seconds()
                self.max_pending_age = max(self.max_pending_age, age)

    def inject_faults(self) -> None:
        from ledger.chain.transport import JsonRpc

        rpc = JsonRpc(self.anvil.rpc_url)
        snapshot = None
        snapshot_block = 0
        snapshot_taken = 0.0
        while not self.stop_players.wait(0.5) and not self.faults.all_happened():
            n = self.results_in()
            share = n / self.target
            if self.faults.worker_killed_at is None and share >= 0.2:
                os.kill(self.fleet.workers[0].pid, signal.SIGKILL)
                self.faults.worker_killed_at = n
            if self.faults.api_killed_at is None and share >= 0.3:
                victim = self.fleet.api[0]
                self.dead_urls.add(self.fleet.api_urls[0])
                os.kill(victim.pid, signal.SIGKILL)
                self.faults.api_killed_at = n
            if snapshot is None and self.faults.reorg_at is None and share >= 0.45:
                snapshot_block = rpc.block_number()
                snapshot = self.anvil.snapshot()
                snapshot_taken = time.monotonic()
            # The revert waits until a worker has recorded an anchor mined after the snapshot, so
            # the reorg removes one the product knew of (an anchor mined but not yet recorded is
            # only re-sent, which is no reorg to the product).
            if (
                snapshot is not None
                and self.faults.reorg_at is None
                and share >= 0.55
                and (
                    self.recorded_anchors_after(snapshot_block) > 0
                    or time.monotonic() - snapshot_taken > 300
                )
            ):
                self.anvil.revert(snapshot)  # the anchors since the snapshot leave the chain
                self.anvil.mine(1)
                self.faults.reorg_at = n
            if self.faults.fee_spike_at is None and share >= 0.7:
                self.fee_spike()
                self.faults.fee_spike_at = n

    def recorded_anchors_after(self, block_number: int) -> int:
        """Batches the workers have recorded as mined after `block_number` (0 while the database
        is too busy to answer: the next look counts)."""
        from sqlalchemy.exc import SQLAlchemyError

        from ledger.anchoring import repository as repo
        from ledger.db import unit_of_work

        try:
            with unit_of_work(self._engine, write=False) as db:
                return repo.recorded_mined_after(db, block_number)
        except SQLAlchemyError:
            return 0

    def fee_spike(self) -> None:
        """Hold mining until an anchor transaction waits in the pool, then raise the base fee
        far above what it offers and mine a block a second: it is stuck until replaced."""
        self.anvil.rpc("evm_setAutomine", False)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not self.stop_players.is_set():
            if int(self.anvil.rpc("txpool_status")["pending"], 16) > 0:
                break
            time.sleep(0.1)
        self.anvil.rpc("anvil_setNextBlockBaseFeePerGas", hex(50 * GWEI))
        self.anvil.rpc("anvil_setIntervalMining", 1)
        self.stop_players.wait(15)
        self.anvil.rpc("anvil_setIntervalMining", 0)
        self.anvil.rpc("evm_setAutomine", True)

    # -- counting --------------------------------------------------------------------------

    def wait_anchored(self, timeout: float) -> None:
        from ledger.anchoring import repository as repo
        from ledger.db import unit_of_work

        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with unit_of_work(self._engine, write=False) as db:
                count, _oldest = repo.backlog(db)
            if count == 0:
                return
            time.sleep(1.0)

    def count(self) -> dict[str, Any]:
        from sqlalchemy import select

        from ledger.chain.contracts import MatchLedger
        from ledger.chain.transport import JsonRpc
        from ledger.db import unit_of_work
        from ledger.db.models.anchoring import Batch, ResultProof
        from ledger.protocol import merkle

        rpc = JsonRpc(self.anvil.rpc_url, max_log_range=100_000)
        ledger = MatchLedger(rpc, self.deployment.match_ledger)
        events = {e.batch_id: e for e in ledger.anchored_batches(self.deployment.deployment_block)}
        with unit_of_work(self._engine, write=False) as db:
            batches = {b.id: b for b in db.scalars(select(Batch))}
            proofs = list(db.scalars(select(ResultProof)))
            replacements = sum(max(0, b.attempts - 1) for b in batches.values())
            reorged = sum(b.reorgs for b in batches.values())
        anchored: set[int] = set()
        for p in proofs:
            event = events.get(p.batch_id)
            batch = batches.get(p.batch_id)
            if event is None or batch is None or "0x" + event.root.hex() != batch.root:
                continue
            if merkle.verify(event.root, p.digest, p.proof):
                anchored.add(p.result_id)
        onchain_total = sum(e.count for e in events.values())
        results_in = self.results_in()
        return {
            "results_in": results_in,
            "anchored": len(anchored),
            "anchored_twice": onchain_total - len(anchored),
            "lost": results_in - len(anchored),
            "batches": len(events),
            "reorged_batches": reorged,
            "replaced_transactions": replacements,
        }


def _answers(url: str) -> bool:
    try:
        return httpx.get(f"{url}/healthz", timeout=2).status_code in (200, 503)
    except httpx.HTTPError:
        return False


def run(
    results: int = 20_000,
    api_processes: int = 2,
    workers: int = 2,
    players: int = 24,
    anchor_timeout: float = 600.0,
) -> dict[str, Any]:
    """Run the scale-out benchmark until `results` results are in; its figures."""
    if api_processes < 2 or workers < 2:
        raise ValueError("the scale-out run needs at least two API processes and two workers")
    scale = _Run(results, api_processes, workers, players)
    started = time.monotonic()
    try:
        scale.start()
        scale.start_fleet()
        ready = time.monotonic()
        threading.Thread(target=scale.watch_backlog, daemon=True).start()
        faults = threading.Thread(target=scale.inject_faults, daemon=True)
        faults.start()
        with ThreadPoolExecutor(players) as pool:
            for k in range(players):
                pool.submit(scale.player, k)
            # a short run plays on until the last fault is over, so that every fault happens
            while scale.results_in() < results or faults.is_alive():
                time.sleep(0.5)
            scale.stop_players.set()
        played = time.monotonic()
        faults.join()
        scale.wait_anchored(anchor_timeout)
        scale.done.set()
        out = scale.count()
        scale.bars_held = out["anchored"] == out["results_in"] and out["anchored_twice"] == 0
        out.update(
            logs=None if scale.bars_held else str(scale.tmp),
            api_processes=api_processes,
            workers=workers,
            max_pending_age_s=round(scale.max_pending_age, 1),
            faults={
                "worker_sigkilled_at_result": scale.faults.worker_killed_at,
                "api_sigkilled_at_result": scale.faults.api_killed_at,
                "reorg_at_result": scale.faults.reorg_at,
                "fee_spike_at_result": scale.faults.fee_spike_at,
            },
            proxy=scale.proxy.stats.as_dict(),
            client_errors=sum(scale.client_errors.values()),
            client_errors_by_kind=dict(
                sorted(scale.client_errors.items(), key=lambda kv: -kv[1])[:5]
            ),
            seconds_setup=round(ready - started, 1),
            seconds_playing=round(played - ready, 1),
            seconds_total=round(time.monotonic() - started, 1),
            results_per_s=round(out["results_in"] / max(played - ready, 1e-9), 1),
            produced_by=(
                f"{players} players over the API processes, each a short bot match: seat, "
                "commit and reveal a seed, up to 2 random legal moves, resign (a signed result)"
            ),
            params={"results": results, "players": players, "cpus": os.cpu_count()},
        )
        return out
    finally:
        scale.done.set()
        scale.stop_players.set()
        scale.stop()
        if scale.engine is not None:
            scale.engine.dispose()
        if scale.bars_held:  # otherwise the logs stay for a look (`logs` in the output)
            import shutil

            shutil.rmtree(scale.tmp, ignore_errors=True)
