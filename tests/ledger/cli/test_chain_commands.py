"""`metaledger chain start|status|deploy|stop` as a user runs them: real processes, real Anvil."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ledger.devstack.ports import free_port
from tests.fixtures.cli import run_cli


def _cli(env: dict[str, str], *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    result = run_cli(*args, env=env)
    if check and result.returncode != 0:
        raise AssertionError(f"{args} exited {result.returncode}: {result.stderr}")
    return result


@pytest.fixture
def cli_env(tmp_path: Path) -> dict[str, str]:
    import os

    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("METALEDGER_")}
    env.update(
        METALEDGER_DATA_DIR=str(tmp_path / "data"),
        METALEDGER_ANVIL_PORT=str(port),
        METALEDGER_RPC_URL=f"http://127.0.0.1:{port}",
    )
    return env


@pytest.mark.slow
def test_start_deploy_status_stop(cli_env: dict[str, str], tmp_path: Path) -> None:
    _cli(cli_env, "chain", "start")
    try:
        status = _cli(cli_env, "chain", "status").stdout
        assert "chain id 31337" in status
        deployed = _cli(cli_env, "chain", "deploy").stdout
        assert "minted the demo collection" in deployed
        deployment = json.loads((tmp_path / "data" / "deployment.json").read_text())
        assert deployment["chain_id"] == 31337
        assert set(deployment["addresses"]) == {"CardToken", "MatchLedger", "CardExchange"}
        again = _cli(cli_env, "chain", "deploy").stdout
        assert "reusing the deployment" in again
    finally:
        stopped = _cli(cli_env, "chain", "stop").stdout
    assert "stopped Anvil" in stopped
    down = _cli(cli_env, "chain", "status", check=False)
    assert down.returncode == 2
    assert down.stderr.startswith("error: chain at") and "Traceback" not in down.stderr


def test_stop_without_start_is_a_one_line_error(cli_env: dict[str, str]) -> None:
    result = _cli(cli_env, "chain", "stop", check=False)
    assert result.returncode == 2
    assert result.stderr.strip().count("\n") == 0
    assert "no Anvil was started" in result.stderr


def test_dev_keys_are_refused_on_a_foreign_chain_id(
    cli_env: dict[str, str], tmp_path: Path
) -> None:
    port = int(cli_env["METALEDGER_ANVIL_PORT"])
    anvil = Path(__file__).resolve().parents[3] / "node_modules" / ".bin" / "anvil"
    proc = subprocess.Popen([str(anvil), "--port", str(port), "--chain-id", "5", "--silent"])
    try:
        import time

        from ledger.devstack.anvil import chain_answers

        for _ in range(100):
            if chain_answers(cli_env["METALEDGER_RPC_URL"], timeout=0.2):
                break
            time.sleep(0.1)
        result = _cli(cli_env, "chain", "deploy", check=False)
    finally:
        proc.terminate()
        proc.wait()
    assert result.returncode == 2
    assert "chain id 5 is not a local Anvil chain" in result.stderr


@pytest.mark.slow
@pytest.mark.parametrize("command", [["chain", "start"], ["doctor"]])
def test_without_node_the_cli_says_what_to_install(command: list[str], tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("METALEDGER_")}
    env["PATH"] = str(Path(sys.executable).parent)  # the venv only: no node, no npm
    env["METALEDGER_DATA_DIR"] = str(tmp_path)
    result = _cli(env, *command, check=False)
    assert result.returncode != 0
    assert "Traceback" not in result.stderr + result.stdout
    if command == ["chain", "start"]:
        assert result.stderr.strip() == (
            "error: Node.js is not installed: install Node.js 20 and npm, then run `make install`"
        )
    else:
        assert "install Node.js 20" in result.stdout
