"""What the user runs: `metaledger play` against the API in each game (a subprocess), the match
anchored, its bundle exported, and `metaledger verify` (a subprocess) passes with the players'
signatures checked: ✓ seat-authorizations and ✓ player-signatures."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import httpx
import pytest
from eth_account import Account

from engine import get_game
from ledger.chain.deployment import Deployment
from ledger.devstack.anvil import AnvilNode
from tests.api.conftest import PLAYER_KEYS, mint
from tests.fixtures.cli import run_cli
from tests.ledger.anchor_support import anchor_pending

pytestmark = pytest.mark.chain


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return run_cli(*args, env={**os.environ, "NO_COLOR": "1"}, timeout=600)


@pytest.mark.parametrize("game_name", ["metax", "metamasters", "metaversus"])
def test_a_match_played_with_metaledger_play_verifies_with_the_players_signatures(
    game_name: str,
    api: tuple[httpx.Client, str],
    evm_snapshot: AnvilNode,
    deployment: Deployment,
    tmp_path: Path,
) -> None:
    client, url = api
    game = get_game(game_name)
    key = PLAYER_KEYS[3]
    address = Account.from_key(key).address
    deck = dict(game.starter_decks[0])
    mint(
        evm_snapshot,
        deployment,
        {address: {(game.name, c): n for c, n in game.required_tokens(deck).items()}},
    )
    played = _cli(
        "play", "--api", str(client.base_url), "--key", key, "--game", game_name, "--bot", "random"
    )
    assert played.returncode == 0, played.stdout + played.stderr
    assert (
        "moves signed by the session key" in played.stdout and "end acknowledged" in played.stdout
    )
    match_id = played.stdout.split("match ", 1)[1].split(" ", 1)[0]

    anchor_pending(url, evm_snapshot.rpc_url, deployment.match_ledger)
    bundle = client.get(f"/matches/{match_id}/bundle")
    assert bundle.status_code == 200, bundle.text
    path = tmp_path / "bundle.json"
    path.write_text(json.dumps(bundle.json()))

    verified = _cli("verify", str(path), "--rpc", evm_snapshot.rpc_url)
    assert verified.returncode == 0, verified.stdout + verified.stderr
    lines = verified.stdout.splitlines()
    assert any(line.startswith("✓ seat-authorizations: seat 0 ") for line in lines), verified.stdout
    signatures = next(line for line in lines if line.startswith("✓ player-signatures: "))
    assert "moves signed by its session key" in signatures
    assert "the operator's bot (its word)" in signatures
    assert "– players-acknowledged: 1/1: seat 0 signed the end" in verified.stdout
    assert any(line.startswith("✓ batch-leaves: ") for line in lines)
