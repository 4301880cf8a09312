"""The whole product on one machine: Anvil, contracts, database, redis-server, worker, beat, API.

`metaledger run` (and so `make run`) uses this. Every server is a child process under one
supervisor (`ledger.devstack.supervisor`): a child that dies is restarted, and stopping the stack stops
them all, newest first. The chain persists in `<data_dir>/anvil-state.json` between runs, with
its historical states; `<data_dir>/stack.json` tells the CLI where the running stack answers;
`<data_dir>/stack.lock` keeps a second stack (and so a second scheduler) off the same data dir.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ledger.devstack.anvil import start_anvil
from ledger.devstack.childprocess import ChildProcess, StopRequested
from ledger.devstack.ports import free_port, is_free, port_holder
from ledger.devstack.servers import RedisServer
from ledger.devstack.stackinfo import StackInfo, find_stack, remove_stack_info, write_stack_info
from ledger.devstack.supervisor import Supervisor
from ledger.errors import ConfigurationError
from ledger.health.schedulerlock import PidLock
from ledger.keys.roles import server_environment
from ledger.settings import Settings, child_environment

if TYPE_CHECKING:
    from ledger.chain.deployment import Deployment

#: how long a starting server may take before the stack gives up on it
START_TIMEOUT = 60.0
#: the module each server process runs (`python -m ...`): the stack starts the API and the
#: workers as processes and imports neither
SERVER_MODULES: dict[str, tuple[str, ...]] = {
    "api": ("api",),
    "worker": ("workers", "worker"),
    "beat": ("workers", "beat"),
}


def server_command(name: str) -> list[str]:
    """The command line of server process `name` ("api", "worker" or "beat")."""
    return [sys.executable, "-m", *SERVER_MODULES[name]]


@dataclass
class LocalStack:
    """The supervised processes of a running local stack and where they answer."""

    settings: Settings
    say: Callable[[str], None] = print
    stopping: threading.Event = field(default_factory=threading.Event)
    rpc_url: str = ""
    broker_url: str = ""
    api_url: str = ""
    deployment: Deployment | None = None
    supervisor: Supervisor = field(init=False)
    lock: PidLock = field(init=False)

    def __post_init__(self) -> None:
        self.supervisor = Supervisor(self.event, self.stopping)
        self.lock = PidLock(self.settings.data_dir / "stack.lock")

    @property
    def data_dir(self) -> Path:
        """The (absolute) data directory."""
        return self.settings.data_dir

    def event(self, line: str, *, say: bool = True) -> None:
        """Say `line` and append it, timestamped, to `<data_dir>/stack.log`."""
        if say:
            self.say(line)
        with (self.data_dir / "stack.log").open("a") as log:
            log.write(f"{time.strftime('%Y-%m-%d %H:%M:%S')} {line}\n")

    def _should_stop(self) -> bool:
        return self.stopping.is_set()

    def _check_stop(self) -> None:
        if self.stopping.is_set():
            raise StopRequested("stopped while starting")

    def _port(self, wanted: int, what: str) -> int:
        if is_free(wanted):
            return wanted
        chosen = free_port()
        self.say(
            f"port {wanted} for {what} is taken by {port_holder(wanted) or 'another process'}; using {chosen}"
        )
        return chosen

    def take_data_dir(self) -> None:
        """Hold the data directory's stack lock; ConfigurationError if a stack already runs there."""
        self.data_dir.mkdir(parents=True, exist_ok=True)
        if self.lock.try_acquire():
            return
        holder = self.lock.holder()
        try:
            api = find_stack(self.settings).api_url
        except ConfigurationError:  # still starting: not recorded yet
            api = "not answering yet"
        raise ConfigurationError(
            f"a local stack already runs from {self.data_dir} (pid {holder or '?'}, API {api}); "
            "stop it first (Ctrl-C where it runs), or start another one with --data-dir DIR"
        )

    def start_chain(self) -> None:
        """Use the configured RPC URL, or start a supervised local Anvil whose state persists."""
        if "rpc_url" in self.settings.model_fields_set:
            self.rpc_url = self.settings.rpc_url
            self.say(f"chain: using {self.rpc_url}")
            return
        port = self._port(self.settings.anvil_port, "Anvil")
        state = self.data_dir / "anvil-state.json"

        def launch() -> ChildProcess:
            return start_anvil(
                port,
                log_file=self.data_dir / "anvil.log",
                state_file=state,
                timeout=START_TIMEOUT,
                should_stop=self._should_stop,
            ).child

        child = self.supervisor.start("anvil", launch)
        self.rpc_url = f"http://127.0.0.1:{port}"
        self.say(f"chain: Anvil at {self.rpc_url}, pid {child.pid} (state in {state})")

    def deploy(self) -> None:
        """Reuse a deployment that matches the chain, or deploy and seed the demo collection."""
        from ledger.devstack.deploy import ensure_deployment

        self.deployment = ensure_deployment(self.settings, self.rpc_url, self.say)

    def migrate(self) -> None:
        """Bring the database schema up to date."""
        from ledger.db.migrations import upgrade

        upgrade(self.settings.resolved_database_url)
        self.say(f"database: {self.settings.resolved_database_url}")

    def start_broker(self) -> None:
        """Use the configured broker URL, or start the project's own supervised redis-server."""
        if self.settings.broker_url:
            self.broker_url = self.settings.broker_url
            self.say("broker: using METALEDGER_BROKER_URL")
            return
        server = RedisServer(
            self.data_dir / "redis", self._port(self.settings.redis_port, "redis-server")
        )

        def launch() -> ChildProcess:
            server.start(timeout=START_TIMEOUT, should_stop=self._should_stop)
            assert server.child is not None
            return server.child

        child = self.supervisor.start("redis-server", launch)
        self.broker_url = server.url
        self.say(f"broker: redis-server at {self.broker_url}, pid {child.pid}")

    def _python_child(self, name: str, **settings: str) -> ChildProcess:
        """The server process `name` (see SERVER_MODULES) as a child, told where every part of
        this stack is."""
        s = self.settings
        env = child_environment(
            data_dir=str(s.data_dir),
            rpc_url=self.rpc_url,
            broker_url=self.broker_url,
            database_url=s.resolved_database_url,
            deployment_file=str(s.resolved_deployment_file),
            **settings,
        )
        return ChildProcess(
            name,
            server_command(name),
            log_file=self.data_dir / f"{name}.log",
            env=server_environment(env, name),
        )

    def start_worker(self) -> None:
        """Start a supervised Celery worker; ready once it records its first heartbeat."""
        from ledger.db import get_engine, unit_of_work
        from ledger.health.repository import heartbeat_pid

        engine = get_engine(self.settings.resolved_database_url)

        def launch() -> ChildProcess:
            child = self._python_child("worker").start()

            def beating() -> bool:
                with unit_of_work(engine, write=False) as db:
                    return heartbeat_pid(db, child.pid)

            child.wait_until(
                beating, "record its first heartbeat", START_TIMEOUT, self._should_stop
            )
            return child

        child = self.supervisor.start("worker", launch)
        self.say(f"worker: Celery on {self.broker_url}, pid {child.pid} (log {child.log_file})")

    def start_beat(self) -> None:
        """Start the one supervised scheduler; ready once it holds the data dir's beat lock."""
        from ledger.health.schedulerlock import scheduler_lock

        lock = scheduler_lock(self.settings)

        def launch() -> ChildProcess:
            child = self._python_child("beat").start()
            child.wait_until(
                lambda: lock.holder() == child.pid,
                f"take the scheduler lock {lock.path}",
                START_TIMEOUT,
                self._should_stop,
            )
            return child

        child = self.supervisor.start("beat", launch)
        self.say(f"beat: the periodic schedule, pid {child.pid} (log {child.log_file})")

    def start_api(self) -> None:
        """Start the supervised API process; ready once it answers /healthz."""
        import httpx

        host = self.settings.api_host
        port = self._port(self.settings.api_port, "the API")
        self.api_url = f"http://{host}:{port}"

        def answers() -> bool:
            try:
                return httpx.get(f"{self.api_url}/healthz", timeout=2).status_code in (200, 503)
            except httpx.HTTPError:
                return False

        def launch() -> ChildProcess:
            child = self._python_child("api", api_host=host, api_port=str(port))
            child.start().wait_until(answers, "answer /healthz", START_TIMEOUT, self._should_stop)
            return child

        child = self.supervisor.start("api", launch)
        self.say(f"api: {self.api_url}, pid {child.pid} (OpenAPI at {self.api_url}/docs)")

    def point_metadata(self) -> None:
        """Make CardToken's `uri()` name the metadata route of the API this stack runs (or of
        METALEDGER_PUBLIC_BASE_URL when set): the API's port may differ from the deployment's."""
        from web3 import Web3

        from ledger.devstack.deploy import ensure_token_uri
        from ledger.keys.roles import Role, load_signer
        from ledger.protocol.tokenids import metadata_uri_template

        assert self.deployment is not None
        base = self.settings.public_base_url or self.api_url
        uri = metadata_uri_template(base)
        w3 = Web3(Web3.HTTPProvider(self.rpc_url, request_kwargs={"timeout": 30}))
        publisher = load_signer(self.settings, Role.PUBLISHER, int(w3.eth.chain_id))
        if ensure_token_uri(w3, self.deployment, publisher, uri) is not None:
            self.say(f"contracts: card metadata URI set to {uri}")

    def wait_until_healthy(self, timeout: float = 30.0) -> None:
        """Wait for /healthz to answer 200; say which components are down if it does not."""
        import httpx

        deadline = time.monotonic() + timeout
        body: dict[str, dict[str, object]] = {}
        while time.monotonic() < deadline and not self.stopping.is_set():
            try:
                reply = httpx.get(f"{self.api_url}/healthz", timeout=2)
                if reply.status_code == 200:
                    return
                body = reply.json().get("components", {})
            except (httpx.HTTPError, ValueError):
                pass
            time.sleep(0.2)
        self._check_stop()
        down = [f"{name} ({c.get('detail')})" for name, c in body.items() if not c.get("ok")]
        self.event(f"warning: /healthz is not ok yet: {', '.join(down) or 'no answer'}")

    def record(self) -> None:
        """Write `<data_dir>/stack.json` so that the CLI finds this stack."""
        write_stack_info(
            self.settings,
            StackInfo(
                pid=os.getpid(),
                api_url=self.api_url,
                rpc_url=self.rpc_url,
                deployment_file=str(self.settings.resolved_deployment_file),
                data_dir=str(self.data_dir),
            ),
        )

    def start(self) -> None:
        """Start every part in order (StopRequested if asked to stop meanwhile)."""
        self.take_data_dir()
        steps = (
            self.start_chain,
            self.deploy,
            self.migrate,
            self.start_broker,
            self.start_worker,
            self.start_beat,
            self.start_api,
            self.point_metadata,
            self.wait_until_healthy,
            self.record,
        )
        for step in steps:
            self._check_stop()
            step()
        self.event(f"the local stack is running (supervisor pid {os.getpid()})")

    def watch(self) -> None:
        """Supervise the children until `stopping` is set."""
        self.supervisor.watch()

    def stop(self) -> None:
        """Stop everything this stack started, newest first, and forget its record."""
        if not self.lock.held:
            return
        remove_stack_info(self.settings)
        self.supervisor.stop()
        self.event("stopped every process of the stack", say=False)
        self.lock.release()
