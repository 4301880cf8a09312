"""The whole product on one machine: Anvil, contracts, database, redis-server, API, worker.

`metaledger run` (and so `make run`) uses this. Each part is a child process that is stopped
when the stack stops. The chain persists in `<data_dir>/anvil-state.json` between runs.
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ledger.devchain import AnvilNode, start_anvil
from ledger.errors import ServiceUnavailable
from ledger.localservices import RedisServer
from ledger.ports import free_port, is_free, port_holder
from ledger.settings import Settings, child_environment

if TYPE_CHECKING:
    from ledger.deploy import Deployment


@dataclass
class LocalStack:
    """The processes of a running local stack and where they answer."""

    settings: Settings
    say: Callable[[str], None] = print
    anvil: AnvilNode | None = None
    redis: RedisServer | None = None
    rpc_url: str = ""
    broker_url: str = ""
    api_url: str = ""
    deployment: Deployment | None = None
    children: list[subprocess.Popen[bytes]] = field(default_factory=list)

    def _port(self, wanted: int, what: str) -> int:
        if is_free(wanted):
            return wanted
        chosen = free_port()
        self.say(
            f"port {wanted} for {what} is taken by {port_holder(wanted) or 'another process'}; using {chosen}"
        )
        return chosen

    def start_chain(self) -> None:
        """Use the configured RPC URL, or start a local Anvil whose state persists."""
        if "rpc_url" in self.settings.model_fields_set:
            self.rpc_url = self.settings.rpc_url
            self.say(f"chain: using {self.rpc_url}")
            return
        data = self.settings.data_dir
        port = self._port(self.settings.anvil_port, "Anvil")
        self.anvil = start_anvil(
            port, log_file=data / "anvil.log", state_file=data / "anvil-state.json"
        )
        self.rpc_url = self.anvil.rpc_url
        self.say(f"chain: Anvil at {self.rpc_url} (state in {data / 'anvil-state.json'})")

    def deploy(self) -> None:
        """Reuse a deployment that matches the chain, or deploy and seed the demo collection."""
        from ledger.stackdeploy import ensure_deployment

        self.deployment = ensure_deployment(self.settings, self.rpc_url, self.say)

    def migrate(self) -> None:
        """Bring the database schema up to date."""
        from ledger.db import upgrade_database

        upgrade_database(self.settings.resolved_database_url)
        self.say(f"database: {self.settings.resolved_database_url}")

    def start_broker(self) -> None:
        """Use the configured broker URL, or start the project's own redis-server."""
        if self.settings.broker_url:
            self.broker_url = self.settings.broker_url
            self.say(f"broker: using {self.broker_url}")
            return
        port = self._port(self.settings.redis_port, "redis-server")
        self.redis = RedisServer(self.settings.data_dir / "redis", port).start()
        self.broker_url = self.redis.url
        self.say(f"broker: redis-server at {self.broker_url}")

    def _env(self) -> dict[str, str]:
        return child_environment(rpc_url=self.rpc_url, broker_url=self.broker_url)

    def _spawn(self, name: str, args: list[str]) -> subprocess.Popen[bytes]:
        log = self.settings.data_dir / f"{name}.log"
        with log.open("ab") as out:
            process = subprocess.Popen(
                args,
                env=self._env(),
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
            )
        self.children.append(process)
        return process

    def start_api(self) -> None:
        """Start the API process and wait for /healthz."""
        import httpx

        port = self._port(self.settings.api_port, "the API")
        host = self.settings.api_host
        process = self._spawn(
            "api", [sys.executable, "-m", "ledger.cli", "api", "--host", host, "--port", str(port)]
        )
        self.api_url = f"http://{host}:{port}"
        deadline = time.monotonic() + 60
        while True:
            if process.poll() is not None:
                raise ServiceUnavailable(
                    f"the API exited with code {process.returncode}; see {self.settings.data_dir / 'api.log'}"
                )
            try:
                if httpx.get(f"{self.api_url}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise ServiceUnavailable(
                    f"the API did not answer /healthz within 60 s; see {self.settings.data_dir / 'api.log'}"
                )
            time.sleep(0.2)
        self.say(f"api: {self.api_url} (OpenAPI at {self.api_url}/docs)")

    def start_worker(self) -> None:
        """Start a Celery worker (with its beat schedule for periodic anchoring and indexing)."""
        self._spawn("worker", [sys.executable, "-m", "ledger.cli", "worker"])
        self.say(
            f"worker: Celery on {self.broker_url} (log {self.settings.data_dir / 'worker.log'})"
        )

    def start(self) -> None:
        """Start every part in order."""
        self.settings.data_dir.mkdir(parents=True, exist_ok=True)
        self.start_chain()
        self.deploy()
        self.migrate()
        self.start_broker()
        self.start_api()
        self.start_worker()

    def watch(self) -> None:
        """Block until a child process dies (raise) or the user presses Ctrl-C."""
        while True:
            for child in self.children:
                if child.poll() is not None:
                    raise ServiceUnavailable(f"{child.args!r} exited with code {child.returncode}")
            if self.anvil is not None and not self.anvil.is_running():
                raise ServiceUnavailable("Anvil exited")
            time.sleep(0.5)

    def stop(self) -> None:
        """Stop everything this stack started, newest first."""
        for child in reversed(self.children):
            if child.poll() is None:
                child.terminate()
        for child in reversed(self.children):
            try:
                child.wait(timeout=10)
            except subprocess.TimeoutExpired:
                child.kill()
        self.children.clear()
        if self.redis is not None:
            self.redis.stop()
        if self.anvil is not None:
            self.anvil.stop()
