"""`metaledger doctor`: what is installed, what is missing, and the command that fixes it."""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass

import typer
from rich.console import Console
from rich.table import Table

from ledger.errors import MetaLedgerError
from ledger.settings import get_settings
from ledger.toolchain import PROJECT_ROOT, node_bin, redis_server_bin


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


def _check_npm_tool(name: str) -> Callable[[], Check]:
    def check() -> Check:
        try:
            path = node_bin(name)
        except MetaLedgerError as exc:
            return Check(name, False, str(exc), "make install")
        return Check(name, True, _version([str(path), "--version"]))

    return check


def _check_npm_package(package: str) -> Callable[[], Check]:
    def check() -> Check:
        manifest = PROJECT_ROOT / "node_modules" / package / "package.json"
        if not manifest.exists():
            return Check(package, False, "not installed", "make install")
        import json

        return Check(package, True, json.loads(manifest.read_text())["version"])

    return check


def _check_chain() -> Check:
    from ledger.devchain import rpc_call

    url = get_settings().rpc_url
    try:
        chain_id = int(rpc_call(url, "eth_chainId", timeout=2.0), 16)
    except MetaLedgerError:
        return Check("chain", False, f"nothing answers at {url}", "make run (starts a local Anvil)")
    return Check("chain", True, f"chain id {chain_id} at {url}")


def _check_database() -> Check:
    import sqlalchemy as sa

    url = get_settings().resolved_database_url
    try:
        if url.startswith("sqlite:///"):
            from pathlib import Path

            Path(url.removeprefix("sqlite:///")).parent.mkdir(parents=True, exist_ok=True)
        engine = sa.create_engine(url)
        with engine.connect() as conn:
            conn.execute(sa.text("SELECT 1"))
        engine.dispose()
    except Exception as exc:  # any driver error is a finding here, not a crash
        return Check(
            "database", False, f"{url}: {str(exc).splitlines()[0]}", "set METALEDGER_DATABASE_URL"
        )
    return Check("database", True, url)


def _check_broker() -> Check:
    import redis

    settings = get_settings()
    url = settings.resolved_broker_url
    try:
        client = redis.Redis.from_url(url, socket_connect_timeout=1)
        client.ping()
        client.close()
        return Check("broker", True, f"answers at {url}")
    except redis.RedisError:
        if settings.broker_url:
            return Check(
                "broker",
                False,
                f"nothing answers at {url}",
                "start it, or unset METALEDGER_BROKER_URL",
            )
    try:
        binary = redis_server_bin()
    except MetaLedgerError as exc:
        return Check("broker", False, str(exc), "make install")
    return Check(
        "broker",
        True,
        f"not running; `make run` starts {binary.name} on port {settings.redis_port}",
    )


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
    _check_broker,
    _check_chain,
    _check_deployment,
]


def doctor() -> None:
    """Check Node, the npm toolchain, Anvil, the database and the broker; print fixes."""
    table = Table("check", "", "detail", "fix", caption=f"python {sys.version.split()[0]}")
    results = [check() for check in CHECKS]
    for r in results:
        table.add_row(r.name, "[green]✓[/]" if r.ok else "[red]✗[/]", r.detail, r.fix)
    Console().print(table)
    # the chain and the deployment are only up while `make run` is running
    essential = [r for r in results if r.name not in ("chain", "deployment")]
    if not all(r.ok for r in essential):
        raise typer.Exit(1)
