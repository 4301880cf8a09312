"""`metaledger doctor`: what is installed, what is missing, and the command that fixes it.

The local servers are really started and stopped (Anvil on the saved chain state, redis-server,
the embedded PostgreSQL of the tests), each in a scratch folder of the data directory; a server
that fails is reported in its own words (the last lines of its log)."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.console import Console
from rich.table import Table

from ledger.cli.options import DataDir, use_data_dir
from ledger.devstack.toolchain import node_bin, node_package_version
from ledger.errors import MetaLedgerError, ToolchainMissing
from ledger.settings import get_settings

if TYPE_CHECKING:
    from ledger.devstack.stackinfo import StackInfo


@dataclass
class Check:
    """One doctor check: a name, whether it passed, what was seen, and the fix."""

    name: str
    ok: bool
    detail: str
    fix: str = ""


def _version(cmd: list[str]) -> str:
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=20, check=False)
    return (out.stdout or out.stderr).strip().splitlines()[0] if (out.stdout or out.stderr) else "?"


def _check_node() -> Check:
    node = shutil.which("node")
    if node is None or shutil.which("npm") is None:
        return Check(
            "node + npm",
            False,
            "not found",
            "install Node.js 20 and npm (e.g. apt-get install nodejs npm)",
        )
    version = _version([node, "--version"])
    major = int(version.lstrip("v").split(".")[0]) if version.startswith("v") else 0
    if major < 20:
        return Check("node + npm", False, f"node {version} is older than 20", "install Node.js 20")
    return Check("node + npm", True, f"node {version}")


def _check_installed(name: str, version_of: Callable[[], str | None]) -> Callable[[], Check]:
    """A check that `name` is installed by `make install`: `version_of` says its version, None
    when it is not installed, or raises MetaLedgerError saying why it cannot be used."""

    def check() -> Check:
        try:
            version = version_of()
        except MetaLedgerError as exc:
            return Check(name, False, str(exc), "make install")
        if version is None:
            return Check(name, False, "not installed", "make install")
        return Check(name, True, version)

    return check


def _check_npm_tool(name: str) -> Callable[[], Check]:
    return _check_installed(name, lambda: _version([str(node_bin(name)), "--version"]))


def _check_npm_package(package: str) -> Callable[[], Check]:
    return _check_installed(package, lambda: node_package_version(package))


def _running_stack() -> StackInfo | None:
    from ledger.devstack.stackinfo import find_stack

    try:
        return find_stack(get_settings())
    except MetaLedgerError:
        return None


def _check_stack() -> Check:
    stack = _running_stack()
    if stack is None:
        return Check("local stack", False, "not running", "make run")
    return Check("local stack", True, f"running: API {stack.api_url} (pid {stack.pid})")


def _check_chain() -> Check:
    from ledger.chain.transport import JsonRpc

    stack = _running_stack()
    url = stack.rpc_url if stack is not None else get_settings().rpc_url
    try:
        with JsonRpc(url, timeout=2.0, retries=0) as rpc:
            chain_id = rpc.chain_id()
    except MetaLedgerError:
        return Check("chain", False, f"nothing answers at {url}", "make run (starts a local Anvil)")
    return Check("chain", True, f"chain id {chain_id} at {url}")


def _scratch_dir() -> Path:
    """A temporary folder inside the data directory (so that it is checked too)."""
    data = get_settings().data_dir
    data.mkdir(parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(prefix="doctor-", dir=data))


def _doctor_log(server: str) -> Path:
    """`<data_dir>/doctor-<server>.log`, emptied: what the server said during this check."""
    path = get_settings().data_dir / f"doctor-{server}.log"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"")
    return path


def _check_anvil_server() -> Check:
    from ledger.devstack.anvil import start_anvil

    settings = get_settings()
    if "rpc_url" in settings.model_fields_set:
        return Check("anvil server", True, "not used: METALEDGER_RPC_URL names the chain")
    state = settings.data_dir / "anvil-state.json"
    # the saved chain is loaded read-only: the running stack (if any) owns the file
    load = ["--load-state", str(state)] if state.exists() else []
    try:
        node = start_anvil(log_file=_doctor_log("anvil"), timeout=60, extra_args=load)
    except ToolchainMissing as exc:
        return Check("anvil server", False, str(exc), "make install")
    except MetaLedgerError as exc:
        return Check("anvil server", False, str(exc), _fix_for(state))
    try:
        block = int(node.rpc("eth_blockNumber"), 16)
    except MetaLedgerError as exc:
        return Check("anvil server", False, f"started but does not answer: {exc}", "see the log")
    finally:
        node.stop()
    loaded = f", loaded {state.name} at block {block}" if state.exists() else ""
    return Check("anvil server", True, f"started on port {node.port}{loaded}, stopped")


def _fix_for(state: Path) -> str:
    if state.exists():
        return f"if {state.name} is damaged, move it aside (the chain then starts afresh)"
    return "see the log"


def _check_redis_server() -> Check:
    import redis

    from ledger.devstack.servers import RedisServer

    settings = get_settings()
    if settings.broker_url:
        url = settings.broker_url
        try:
            client = redis.Redis.from_url(url, socket_connect_timeout=1, socket_timeout=1)
            client.ping()
            client.close()
        except redis.RedisError:
            return Check(
                "broker", False, "nothing answers at METALEDGER_BROKER_URL",
                "start it, or unset METALEDGER_BROKER_URL",
            )  # fmt: skip
        return Check("broker", True, "METALEDGER_BROKER_URL answers PING")
    scratch = _scratch_dir()
    server = RedisServer(scratch, log_file=_doctor_log("redis"))
    try:
        server.start()
        client = redis.Redis.from_url(server.url, socket_timeout=2)
        client.ping()
        client.close()
    except MetaLedgerError as exc:
        return Check("redis-server", False, str(exc), "make install")
    except redis.RedisError as exc:
        return Check("redis-server", False, f"started but does not answer PING: {exc}", "")
    finally:
        server.stop()
        shutil.rmtree(scratch, ignore_errors=True)
    return Check("redis-server", True, f"started on port {server.port}, answered PING, stopped")


def _check_postgres_server() -> Check:
    from ledger.devstack.servers import PostgresServer

    scratch = _scratch_dir()
    try:
        server = PostgresServer(scratch / "postgres")
        try:
            server.create_database("doctor")
        finally:
            server.stop()
    except Exception as exc:  # the wheel's own errors: a finding here, not a crash
        lines = [line for line in str(exc).splitlines() if line.strip()]
        return Check(
            "postgresql (tests)", False, lines[-1] if lines else type(exc).__name__, "make install"
        )
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return Check("postgresql (tests)", True, "embedded server started, created a database, stopped")


def _check_database() -> Check:
    import sqlalchemy as sa

    url = get_settings().resolved_database_url
    shown = sa.engine.make_url(url).render_as_string(hide_password=True)
    if url.startswith("sqlite:///") and not Path(url.removeprefix("sqlite:///")).exists():
        folder = Path(url.removeprefix("sqlite:///")).parent
        try:  # nothing to open yet: can the file be created there?
            folder.mkdir(parents=True, exist_ok=True)
            tempfile.TemporaryFile(dir=folder).close()
        except OSError as exc:
            return Check("database", False, f"cannot create files in {folder}: {exc.strerror}", "")
        return Check("database", True, f"{shown} (created by `make run`)")
    try:
        engine = sa.create_engine(url)
        with engine.connect() as conn:
            conn.execute(sa.text("SELECT 1"))
        engine.dispose()
    except Exception as exc:  # any driver error is a finding here, not a crash
        return Check(
            "database", False, f"{shown}: {str(exc).splitlines()[0]}", "set METALEDGER_DATABASE_URL"
        )
    return Check("database", True, shown)


def _check_deployment() -> Check:
    path = get_settings().resolved_deployment_file
    if not path.exists():
        return Check("deployment", False, f"{path} is missing", "make run (deploys the contracts)")
    return Check("deployment", True, str(path))


CHECKS: list[Callable[[], Check]] = [
    _check_node,
    _check_npm_tool("anvil"),
    _check_npm_tool("forge"),
    _check_npm_tool("cast"),
    _check_npm_package("solc"),
    _check_npm_package("@openzeppelin/contracts"),
    _check_database,
    _check_anvil_server,
    _check_redis_server,
    _check_postgres_server,
    _check_stack,
    _check_chain,
    _check_deployment,
]

#: what only exists while (or after) `make run` runs: shown, but not a failure
INFORMATIONAL = ("local stack", "chain", "deployment")


def doctor(data_dir: DataDir = None) -> None:
    """Check Node and the npm toolchain; start and stop Anvil, redis-server and PostgreSQL as
    the stack and the tests do; check the database; print the fix for each problem."""
    use_data_dir(data_dir)
    table = Table("check", "", "detail", "fix", caption=f"python {sys.version.split()[0]}")
    results = [check() for check in CHECKS]
    for r in results:
        table.add_row(r.name, "[green]✓[/]" if r.ok else "[red]✗[/]", r.detail, r.fix)
    Console().print(table)
    if not all(r.ok for r in results if r.name not in INFORMATIONAL):
        raise typer.Exit(1)
