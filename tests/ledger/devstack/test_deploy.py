"""The local stack's deployment: reused when it matches the chain, redeployed when stale or missing."""

from __future__ import annotations

import json
from pathlib import Path

from eth_account import Account

from ledger.chain.deployment import Deployment
from ledger.devstack.anvil import AnvilNode
from ledger.devstack.demo import DEMO_KEYS, demo_holdings
from ledger.devstack.deploy import ensure_deployment, stale_reason
from ledger.protocol.tokenids import token_id
from ledger.settings import Settings


def _settings(tmp_path: Path) -> Settings:
    return Settings(_env_file=None, data_dir=tmp_path)  # type: ignore[call-arg]


def test_missing_file_deploys_and_seeds_then_a_matching_one_is_reused(
    evm_snapshot: AnvilNode, tmp_path: Path
) -> None:
    settings = _settings(tmp_path)
    lines: list[str] = []
    first = ensure_deployment(settings, evm_snapshot.rpc_url, lines.append)
    assert settings.resolved_deployment_file.exists()
    assert any("minted the demo collection" in line for line in lines)
    token = evm_snapshot.w3.eth.contract(
        address=first.card_token,
        abi=[{"name": "balanceOf", "type": "function", "stateMutability": "view",
              "inputs": [{"name": "a", "type": "address"}, {"name": "id", "type": "uint256"}],
              "outputs": [{"name": "", "type": "uint256"}]}],
    )  # fmt: skip
    wallet = Account.from_key(DEMO_KEYS[0]).address
    tid, amount = demo_holdings()[wallet][0]
    assert token.functions.balanceOf(wallet, tid).call() >= amount
    lines.clear()
    again = ensure_deployment(settings, evm_snapshot.rpc_url, lines.append)
    assert again == first
    assert lines == [f"contracts: reusing the deployment in {settings.resolved_deployment_file}"]


def test_a_stale_file_is_named_and_redeployed(evm_snapshot: AnvilNode, tmp_path: Path) -> None:
    settings = _settings(tmp_path)
    first = ensure_deployment(settings, evm_snapshot.rpc_url, lambda _: None)
    data = json.loads(settings.resolved_deployment_file.read_text())
    data["addresses"]["MatchLedger"] = "0x" + "12" * 20
    settings.resolved_deployment_file.write_text(json.dumps(data))
    (tmp_path / "metaledger.db").write_text("old")
    lines: list[str] = []
    second = ensure_deployment(settings, evm_snapshot.rpc_url, lines.append)
    assert any("is stale (no MatchLedger code at" in line for line in lines)
    assert second.match_ledger != first.match_ledger
    assert not (tmp_path / "metaledger.db").exists()
    assert list(tmp_path.glob("metaledger.db.*.bak")), "the old database is set aside, not deleted"


def test_stale_reason_names_a_foreign_chain() -> None:
    deployment = Deployment(
        chain_id=1, rpc_url="", addresses={"CardToken": "0x" + "00" * 20}, deployment_block=0,
        deployer="", signer="", anchorer="",
    )  # fmt: skip
    assert (
        stale_reason(deployment, 31337, lambda _: b"\x01")
        == "it is for chain id 1, the chain is 31337"
    )
    fresh = Deployment(**{**deployment.__dict__, "chain_id": 31337})
    assert stale_reason(fresh, 31337, lambda _: b"") == f"no CardToken code at {'0x' + '00' * 20}"
    assert stale_reason(fresh, 31337, lambda _: b"\x01") is None


def test_demo_holdings_cover_every_games_starter_decks() -> None:
    from engine import game_names, get_game

    holdings = demo_holdings()
    assert len(holdings) == 3
    both = holdings[Account.from_key(DEMO_KEYS[2]).address]
    for name in game_names():
        game = get_game(name)
        for deck in game.starter_decks:
            for card in game.required_tokens(deck):
                assert any(tid == token_id(name, card) for tid, _ in both), (name, card)
