"""Artifacts, deployment, demo seeding, the CLI and the gas benchmark."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from eth_account import Account
from typer.testing import CliRunner

from ledger.artifacts import CONTRACT_NAMES, ArtifactNotFoundError, artifact_names, load_artifact
from ledger.deploy import Deployment, contract, seed_demo
from ledger.devchain import AnvilNode
from ledger.settings import get_settings
from ledger.solc import SETTINGS, current_source_hash
from ledger.tokenids import token_id
from tests.contracts.conftest import Chain


def test_artifacts_are_fresh_and_complete() -> None:
    expected = current_source_hash()
    for name in CONTRACT_NAMES:
        artifact = load_artifact(name)
        assert artifact.source_hash == expected, "stale artifacts: run `metaledger contracts build`"
        assert artifact.solc_version.startswith("0.8.")
        assert artifact.settings["evmVersion"] == SETTINGS["evmVersion"] == "cancun"
        assert artifact.settings["optimizer"]["enabled"]
        assert artifact.bytecode.startswith("0x6") and len(artifact.deployed_bytecode) > 1000
        assert any(
            item.get("name") == "supportsInterface" or item["type"] == "constructor"
            for item in artifact.abi
        )
    assert set(CONTRACT_NAMES) <= set(artifact_names())
    with pytest.raises(ArtifactNotFoundError):
        load_artifact("NoSuchContract")


def test_contracts_check_cli() -> None:
    from ledger.cli import app

    result = CliRunner().invoke(app, ["contracts", "check"])
    assert result.exit_code == 0, result.output
    assert "up to date" in result.output


@pytest.mark.chain
def test_deployment_is_configured(chain: Chain) -> None:
    d = chain.deployment
    assert d.chain_id == 31337 and d.deployer == chain.publisher
    assert d.signer == chain.signer and d.anchorer == chain.anchorer
    assert chain.ledger.functions.isSigner(d.signer).call()
    role = chain.ledger.functions.ANCHORER_ROLE().call()
    assert chain.ledger.functions.hasRole(role, d.anchorer).call()
    assert chain.exchange.functions.cards().call() == d.card_token
    for name, address in d.addresses.items():
        code = chain.w3.eth.get_code(address).hex()
        expected = load_artifact(name).deployed_bytecode.removeprefix("0x")
        assert len(code) == len(expected) and code[:200] == expected[:200]  # immutables differ
    assert d.deployment_block >= 1


@pytest.mark.chain
def test_deployment_json_round_trip(tmp_path: Path, deployment: Deployment) -> None:
    path = tmp_path / "sub" / "deployment.json"
    deployment.save(path)
    assert Deployment.load(path) == deployment
    data = json.loads(path.read_text())
    assert set(data) >= {"chain_id", "rpc_url", "addresses", "deployment_block", "deployer"}
    from ledger.errors import ConfigurationError

    with pytest.raises(ConfigurationError):
        Deployment.load(tmp_path / "missing.json")
    with pytest.raises(ConfigurationError):
        Deployment.from_dict({"chain_id": 1})


@pytest.mark.chain
def test_seed_demo_mints_catalogue_cards(
    anvil: AnvilNode, deployment: Deployment, evm_snapshot: AnvilNode
) -> None:
    alice, bob = Account.create().address, Account.create().address
    u92 = token_id("metax", "U92-JL")
    holdings = {
        alice: [(u92, 2), (token_id("metaversus", "Star"), 1), (u92, 1)],
        bob: [(u92, 4)],
        Account.create().address: [],
    }
    hashes = seed_demo(
        anvil.w3, deployment, get_settings().publisher_key.get_secret_value(), holdings
    )
    assert len(hashes) == 2
    token = contract(anvil.w3, deployment, "CardToken")
    assert token.functions.balanceOfBatch([alice, bob], [u92, u92]).call() == [3, 4]


@pytest.mark.chain
def test_gas_benchmark_meets_the_bars() -> None:
    from ledger.bench import gas

    figures = gas.run()
    for key in (
        "deploy_card_token",
        "deploy_match_ledger",
        "deploy_card_exchange",
        "mint_batch_40",
        "transfer_batch_40",
        "anchor_batch",
        "anchor_gas_per_result_1024",
        "verify_proof_1024",
        "swap_fill_3for3",
    ):
        assert figures[key] > 0
    assert figures["anchor_batch"] <= 60_000
    assert figures["anchor_batch_first"] <= 60_000
    assert figures["swap_fill_3for3"] <= 150_000
    assert figures["anchor_gas_per_result_1024"] == pytest.approx(
        figures["anchor_batch"] / 1024, abs=0.01
    )
