"""Rotating the result signer as the runbook (docs/deploy.md) does it, with the CLI as a user runs
it: a keystore for the new signer, `chain signer add`, `chain signer remove`, `chain signer list`;
and what `metaledger verify` says afterwards: results anchored before the removal keep verifying,
a result of the removed signer anchored after it fails `signer-registered`."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from eth_account import Account
from sqlalchemy import Engine

from ledger.anchoring.service import AnchorConfig, Anchorer
from ledger.audit.export import export_bundle
from ledger.audit.verify import verify_bundle
from ledger.chain.contracts import MatchLedger
from ledger.chain.deployment import Deployment
from ledger.chain.transport import JsonRpc
from ledger.db import unit_of_work
from ledger.devstack.anvil import AnvilNode
from tests.fixtures.cli import run_cli
from tests.ledger.anchor_support import ANCHORER_KEY, SIGNER_KEY, store_played_match

pytestmark = pytest.mark.chain
OLD_SIGNER = Account.from_key(SIGNER_KEY).address


def _cli(env: dict[str, str], *args: str, code: int = 0) -> str:
    done = run_cli(*args, env=env)
    assert done.returncode == code, f"{args}: {done.stdout}{done.stderr}"
    return done.stdout + done.stderr


def _cli_env(anvil: AnvilNode, deployment: Deployment, tmp_path: Path) -> dict[str, str]:
    """This environment without METALEDGER_ settings, pointed at the chain and a deployment file."""
    deployment_file = tmp_path / "deployment.json"
    deployment.save(deployment_file)
    env = {k: v for k, v in os.environ.items() if not k.startswith("METALEDGER_")}
    env.update(
        METALEDGER_DATA_DIR=str(tmp_path / "data"),
        METALEDGER_RPC_URL=anvil.rpc_url,
        METALEDGER_DEPLOYMENT_FILE=str(deployment_file),
    )
    return env


def test_rotating_the_result_signer(
    engine: Engine, evm_snapshot: AnvilNode, deployment: Deployment, tmp_path: Path
) -> None:
    anvil = evm_snapshot
    env = _cli_env(anvil, deployment, tmp_path)
    anchorer = Anchorer(
        engine, JsonRpc(anvil.rpc_url), deployment.match_ledger, ANCHORER_KEY, AnchorConfig()
    )
    before = store_played_match(engine, anvil, deployment, "metax", 11)
    anchorer.run_until_idle(force=True)

    # 1. a keystore for the new signer (password from a file), registered with the publisher key
    password = tmp_path / "password"
    password.write_text("rotate me\n")
    keystore = tmp_path / "signer-2.json"
    new_signer = _cli(env, "keys", "new", str(keystore), "--password-file", str(password)).split()[
        0
    ]
    assert _cli(env, "keys", "address", str(keystore)).strip() == new_signer
    assert f"added result signer {new_signer}" in _cli(env, "chain", "signer", "add", new_signer)
    # 2. (the API processes restart with the new keystore; the old key's backlog is anchored)
    # 3. the old signer removed
    removed = _cli(env, "chain", "signer", "remove", OLD_SIGNER)
    assert f"removed result signer {OLD_SIGNER}" in removed
    assert "refuses this signer's results anchored from block" in removed
    listing = _cli(env, "chain", "signer", "list")
    assert f"active  {new_signer}" in listing and f"removed {OLD_SIGNER}" in listing
    ledger = MatchLedger(JsonRpc(anvil.rpc_url), deployment.match_ledger)
    assert ledger.is_signer(new_signer) and not ledger.is_signer(OLD_SIGNER)

    # a result the old key signed but that is anchored only after the removal
    after = store_played_match(engine, anvil, deployment, "metax", 12)
    anchorer.run_until_idle(force=True)
    with unit_of_work(engine, write=False) as s:
        bundles = {
            m: export_bundle(
                s, m, card_token=deployment.card_token, deployment_block=deployment.deployment_block
            )
            for m in (before, after)
        }
    old = {c.name: c for c in verify_bundle(bundles[before], anvil.rpc_url)}
    assert all(c.ok for c in old.values()), [c for c in old.values() if not c.ok]
    late = {c.name: c for c in verify_bundle(bundles[after], anvil.rpc_url)}
    assert [name for name, c in late.items() if not c.ok] == ["signer-registered"]
    assert f"{OLD_SIGNER} was not a registered signer at block" in late["signer-registered"].detail
    path = tmp_path / "late.json"
    path.write_text(json.dumps(bundles[after]))
    out = _cli(env, "verify", str(path), "--rpc", anvil.rpc_url, code=1)
    assert "✗ signer-registered" in out and re.search(r"FAILED: 1 of \d+ checks", out), out


def test_signer_commands_refuse_a_bad_address_and_a_non_admin(
    evm_snapshot: AnvilNode, deployment: Deployment, tmp_path: Path
) -> None:
    env = _cli_env(evm_snapshot, deployment, tmp_path)
    out = _cli(env, "chain", "signer", "add", "0x1234", code=2)
    assert out.strip().splitlines()[-1] == "error: '0x1234' is not an address"
    env["METALEDGER_PUBLISHER_KEY"] = "0x" + "5a" * 32  # not the admin
    out = _cli(env, "chain", "signer", "add", Account.create().address, code=2)
    assert "AccessControlUnauthorizedAccount" in out.strip().splitlines()[-1]
