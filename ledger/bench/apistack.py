"""What `metaledger bench api` runs against: its own Anvil (contracts deployed, a MetaX starter
deck minted to every bench wallet), databases (SQLite, and an embedded PostgreSQL on demand)
and server processes (`python -m api`, or the bare baseline app), all in one temporary folder."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from ledger.bench.waiting import wait_for_health

GAME = "metax"


def rss_mb(pid: int) -> float:
    """The resident set size of process `pid`, in MiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def cpu_seconds(pid: int) -> float:
    """User + system CPU time process `pid` has used so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def child_pids(pid: int) -> list[int]:
    """The direct children of process `pid`."""
    try:
        return [int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


class Server:
    """One server command (one or several processes on one port) with its log."""

    def __init__(
        self, name: str, args: list[str], env: dict[str, str], url: str, log: Path
    ) -> None:
        self.name, self.url, self.log = name, url, log
        with log.open("ab") as out:
            self.process = subprocess.Popen(
                args, env=env, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL
            )

    def wait(self, statuses: tuple[int, ...] = (200,)) -> Server:
        """Until it answers /healthz with one of `statuses`."""
        wait_for_health(self.process, self.url, self.log, statuses=statuses, timeout=240)
        return self

    def serving_pids(self) -> list[int]:
        """The processes that serve requests: the workers of a multi-process server, else itself."""
        workers = [p for p in child_pids(self.process.pid) if _is_python(p)]
        return workers if len(workers) > 1 else [self.process.pid]

    def cpu_seconds(self) -> float:
        """The summed CPU time of the serving processes so far."""
        return sum(cpu_seconds(p) for p in self.serving_pids())

    def rss_mb(self) -> float:
        """The summed RSS of the serving processes."""
        return round(sum(rss_mb(p) for p in self.serving_pids()), 1)

    def stop(self) -> None:
        """Terminate it (a multi-process server stops its workers)."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def _is_python(pid: int) -> bool:
    try:
        return "python" in Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[0].decode()
    except OSError:
        return False


class BenchStack:
    """Anvil + contracts + wallets holding the MetaX starter deck, a Redis broker (the API
    processes announce every committed change on it, as on the local stack: another process's
    play channels learn of it there); API processes on demand."""

    def __init__(self, wallets: int) -> None:
        from eth_account import Account

        self.tmp = Path(tempfile.mkdtemp(prefix="metaledger-bench-api-"))
        self.keys = [Account.create().key.to_0x_hex() for _ in range(wallets)]
        self.anvil: Any = None
        self.redis: Any = None
        self.postgres: Any = None
        self.servers: list[Server] = []
        self.deck: dict[str, int] = {}

    def start(self) -> None:
        """Start Anvil, deploy, and mint a starter deck to every wallet."""
        from eth_account import Account

        from engine import get_game
        from ledger.devstack.anvil import start_anvil
        from ledger.devstack.deploy import deploy_from_settings, seed_demo
        from ledger.devstack.servers import RedisServer
        from ledger.protocol.tokenids import token_id
        from ledger.settings import ANVIL_DEV_KEYS

        self.redis = RedisServer(self.tmp / "redis").start()
        self.anvil = start_anvil(log_file=self.tmp / "anvil.log")
        deployment = deploy_from_settings(self.anvil.w3, self.anvil.rpc_url)
        deployment.save(self.tmp / "deployment.json")
        game = get_game(GAME)
        self.deck = dict(game.starter_decks[0])
        cards = [(token_id(GAME, c), n) for c, n in game.required_tokens(self.deck).items()]
        seed_demo(
            self.anvil.w3,
            deployment,
            ANVIL_DEV_KEYS[0],
            {Account.from_key(k).address: cards for k in self.keys},
        )

    def database(self, kind: str) -> str:
        """A fresh, migrated database: "sqlite" (a file here) or "postgres" (embedded server)."""
        from ledger.db.migrations import upgrade

        n = len(self.servers)
        if kind == "sqlite":
            url = f"sqlite:///{self.tmp / f'bench-{n}.db'}"
        else:
            from ledger.devstack.servers import PostgresServer

            if self.postgres is None:
                self.postgres = PostgresServer(self.tmp / "postgres")
            url = self.postgres.create_database(f"bench_{n}")
        upgrade(url)
        return url

    def api(self, database_url: str, processes: int = 1, **settings: str) -> Server:
        """API processes (`python -m api`) on a free port, serving `database_url`."""
        from ledger.devstack.ports import free_port
        from ledger.settings import child_environment

        port = free_port()
        env = child_environment(
            rpc_url=self.anvil.rpc_url,
            database_url=database_url,
            deployment_file=str(self.tmp / "deployment.json"),
            data_dir=str(self.tmp),
            api_port=str(port),
            api_processes=str(processes),
            siwe_domain=f"127.0.0.1:{port}",
            # every bench wallet signs in from this one address
            sign_in_rate_limit=str(1_000_000),
            **{"broker_url": self.redis.url, **settings},
        )
        log = self.tmp / f"api-{len(self.servers)}.log"
        server = Server("api", [sys.executable, "-m", "api"], env, f"http://127.0.0.1:{port}", log)
        self.servers.append(server)
        # answering is enough: no worker runs here, so /healthz says 503
        return server.wait(statuses=(200, 503))

    def bare(self) -> Server:
        """The bare baseline app (`ledger.bench.bare`) under uvicorn, one process."""
        from ledger.devstack.ports import free_port
        from ledger.settings import child_environment

        port = free_port()
        args = [
            sys.executable, "-m", "uvicorn", "ledger.bench.bare:app",
            "--host", "127.0.0.1", "--port", str(port), "--http", "h11",
            "--log-level", "warning", "--no-access-log",
        ]  # fmt: skip
        log = self.tmp / f"bare-{len(self.servers)}.log"
        server = Server("bare", args, child_environment(), f"http://127.0.0.1:{port}", log)
        self.servers.append(server)
        return server.wait()

    def stop(self, *, keep_files: bool = True) -> None:
        """Stop every server, the database server and Anvil; then remove the folder (databases,
        logs: tens to hundreds of MB) unless `keep_files` (a failed run: its errors name the
        logs in it)."""
        for server in self.servers:
            server.stop()
        if self.postgres is not None:
            self.postgres.stop()
        if self.anvil is not None:
            self.anvil.stop()
        if self.redis is not None:
            self.redis.stop()
        if not keep_files:
            shutil.rmtree(self.tmp, ignore_errors=True)
