"""Artifacts (shipped and test-only), the one compile path, deployment, demo seeding, the CLI and
the gas benchmark."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from eth_account import Account
from typer.testing import CliRunner

from ledger.chain.artifacts import (
    CONTRACT_NAMES,
    ArtifactNotFoundError,
    artifact_names,
    describe_revert,
    load_artifact,
    parse_artifact,
)
from ledger.chain.deployment import Deployment
from ledger.devstack.anvil import AnvilNode
from ledger.devstack.compile import PRODUCT, TEST_MOCKS, compiler_settings, current_source_hash
from ledger.devstack.deploy import DEMO_EDITION_SIZE, contract, seed_demo
from ledger.keys.roles import Role
from ledger.protocol.tokenids import token_id
from tests.contracts.conftest import TEST_ARTIFACTS, Chain

ROOT = Path(__file__).resolve().parents[2]


def test_artifacts_are_fresh_and_complete() -> None:
    settings = compiler_settings()
    assert settings == {
        "optimizer": {"enabled": True, "runs": 10_000},
        "evmVersion": "cancun",
        "viaIR": True,
    }
    expected = current_source_hash(PRODUCT)
    for name in CONTRACT_NAMES:
        artifact = load_artifact(name)
        assert artifact.source_hash == expected, "stale artifacts: run `metaledger contracts build`"
        assert artifact.solc_version.startswith("0.8.")
        assert artifact.settings == settings
        assert artifact.bytecode.startswith("0x6") and len(artifact.deployed_bytecode) > 1000
        assert any(item["type"] == "constructor" for item in artifact.abi)
    # the package ships what the product deploys, nothing else
    assert artifact_names() == sorted(CONTRACT_NAMES) == sorted(PRODUCT.contract_names())
    with pytest.raises(ArtifactNotFoundError):
        load_artifact("NoSuchContract")


def test_mocks_are_test_only_artifacts_and_fresh() -> None:
    names = TEST_MOCKS.contract_names()
    assert names == ["ERC1271WalletMock", "ReentrantTakerMock"]
    assert sorted(p.stem for p in TEST_ARTIFACTS.glob("*.json")) == names
    assert not (ROOT / "contracts" / "src" / "mocks").exists()
    expected = current_source_hash(TEST_MOCKS)
    for name in names:
        artifact = parse_artifact((TEST_ARTIFACTS / f"{name}.json").read_text())
        assert artifact.source_hash == expected, "stale mocks: run `metaledger contracts build`"
        assert artifact.settings == compiler_settings()


def test_selectors_events_and_errors_come_from_the_abi() -> None:
    from eth_hash.auto import keccak

    ledger = load_artifact("MatchLedger")
    assert ledger.selector("anchor") == keccak(b"anchor(uint64,bytes32,uint32,bytes32)")[:4]
    assert (
        ledger.event_topic("BatchAnchored")
        == "0x" + keccak(b"BatchAnchored(uint64,bytes32,uint32,bytes32,bytes32)").hex()
    )
    exchange = load_artifact("CardExchange")
    offer = "(address,address,uint256[],uint256[],uint256[],uint256[],uint256,uint64,uint256)"
    assert exchange.selector("fill") == keccak(f"fill({offer},bytes)".encode())[:4]
    data = keccak(b"CardExchangeWrongTaker(address,address)")[:4] + bytes(12) + b"\x11" * 20
    data += bytes(12) + b"\x22" * 20
    assert describe_revert(data) == (
        "CardExchangeWrongTaker(0x" + "11" * 20 + ", 0x" + "22" * 20 + ")"
    )
    assert describe_revert(b"\xde\xad\xbe\xef") is None
    with pytest.raises(ArtifactNotFoundError):
        ledger.selector("noSuchFunction")
    # every custom error a contract declares carries its contract's name
    for name in CONTRACT_NAMES:
        src = (ROOT / "contracts" / "src" / "interfaces" / f"I{name}.sol").read_text()
        own = [line.split()[1].split("(")[0] for line in src.splitlines() if "    error " in line]
        assert own and all(e.startswith(name) for e in own), own


def test_contracts_check_cli_as_a_subprocess() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "ledger.cli", "contracts", "check"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "src: artifacts are up to date" in done.stdout
    assert "test/mocks: artifacts are up to date" in done.stdout


def test_contracts_check_cli_names_a_stale_artifact(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ledger.cli import app
    from ledger.devstack import compile as solc
    from ledger.devstack.compile import StaleArtifactsError

    stale_dir = tmp_path / "artifacts"
    stale_dir.mkdir()
    for name in CONTRACT_NAMES:
        data = json.loads((PRODUCT.out_dir / f"{name}.json").read_text())
        data["sourceHash"] = "0x" + "00" * 32
        (stale_dir / f"{name}.json").write_text(json.dumps(data))
    monkeypatch.setattr(solc, "ARTIFACT_SETS", (solc.ArtifactSet("src", str(stale_dir)),))
    result = CliRunner().invoke(app, ["contracts", "check"])
    assert isinstance(result.exception, StaleArtifactsError)  # `main` prints it as `error: ...`
    assert "CardExchange is stale" in str(result.exception)
    assert "metaledger contracts build" in str(result.exception)


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
def test_seed_demo_gives_every_card_an_edition_size_then_mints(
    anvil: AnvilNode, deployment: Deployment, evm_snapshot: AnvilNode
) -> None:
    alice, bob = Account.create().address, Account.create().address
    u92, star = token_id("metax", "U92-JL"), token_id("metaversus", "Star")
    holdings = {
        alice: [(u92, 2), (star, 1), (u92, 1)],
        bob: [(u92, 4)],
        Account.create().address: [],
    }
    key = Role.PUBLISHER.dev_key
    hashes = seed_demo(anvil.w3, deployment, key, holdings)
    assert len(hashes) == 3  # one setMaxSupplyBatch, one mintBatch per wallet with cards
    token = contract(anvil.w3, deployment, "CardToken")
    assert token.functions.balanceOfBatch([alice, bob], [u92, u92]).call() == [3, 4]
    assert token.functions.maxSupply(u92).call() == token.functions.maxSupply(star).call()
    assert token.functions.maxSupply(u92).call() == DEMO_EDITION_SIZE
    # seeding again keeps the edition sizes (set once) and only mints
    assert len(seed_demo(anvil.w3, deployment, key, {bob: [(u92, 1)]})) == 1
    assert token.functions.totalSupply(u92).call() == 8


@pytest.mark.chain
def test_seed_demo_names_the_contract_error(
    anvil: AnvilNode, deployment: Deployment, evm_snapshot: AnvilNode
) -> None:
    from ledger.errors import ChainError

    key = Role.PUBLISHER.dev_key
    tid = token_id("metax", "EDITION-OF-TWO")
    seed_demo(anvil.w3, deployment, key, {Account.create().address: [(tid, 2)]}, edition_size=2)
    with pytest.raises(ChainError, match=r"CardTokenMaxSupplyExceeded\(\d+, 3, 2\)"):
        seed_demo(anvil.w3, deployment, key, {Account.create().address: [(tid, 1)]})


@pytest.mark.chain
def test_gas_benchmark_meets_the_bars() -> None:
    from ledger.bench import gas

    figures = gas.run()
    for key in (
        "deploy_card_token",
        "deploy_match_ledger",
        "deploy_card_exchange",
        "set_max_supply_batch_40",
        "mint_batch_40",
        "transfer_batch_40",
        "anchor_batch",
        "anchor_batch_mean",
        "anchor_batch_slot_opening",
        "anchor_gas_per_result_1024",
        "verify_proof_1024",
        "swap_fill_3for3",
        "swap_fill_1for1",
        "swap_fill_cards_for_eth",
    ):
        assert figures[key] > 0
    # anchoring records each batch's block: five batches in six pay one overwritten slot more,
    # one in six opens a fresh slot (docs/benchmarks.md)
    assert figures["anchor_batch"] <= 61_000
    assert figures["anchor_batch_slot_opening"] <= 81_000
    assert figures["anchor_batch"] < figures["anchor_batch_mean"] <= 65_000
    assert figures["anchor_gas_per_result_1024"] == pytest.approx(
        figures["anchor_batch_mean"] / 1024, abs=0.01
    )
    assert figures["swap_fill_3for3"] <= 140_000 and figures["meets_swap_bar"]
    assert figures["swap_fill_1for1"] < figures["swap_fill_3for3"]
    assert figures["swap_fill_cards_for_eth"] <= 110_000  # Seaport's single-item fills: 86-109k
