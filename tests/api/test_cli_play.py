"""`metaledger play` plays a bot match through the live API from the command line."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from engine import get_game
from ledger.chain.deployment import Deployment
from ledger.cli import app
from ledger.devstack.anvil import AnvilNode
from tests.api.conftest import PLAYER_KEYS, LiveServer, mint_decks

pytestmark = pytest.mark.chain


def test_play_a_bot_match(live_api: LiveServer, anvil: AnvilNode, deployment: Deployment) -> None:
    from eth_account import Account

    g = get_game("metaversus")
    address = Account.from_key(PLAYER_KEYS[0]).address
    mint_decks(anvil, deployment, "metaversus", {address: dict(g.starter_decks[1])})
    result = CliRunner().invoke(
        app,
        [
            "play",
            "--api",
            live_api.url,
            "--key",
            PLAYER_KEYS[0],
            "--game",
            "metaversus",
            "--bot",
            "random",
        ],
    )
    assert result.exit_code == 0, result.output
    assert f"signed in as {address}" in result.output
    assert f"recovers to {deployment.signer}" in result.output


def test_play_reports_missing_cards_in_one_line(live_api: LiveServer) -> None:
    result = CliRunner().invoke(
        app, ["play", "--api", live_api.url, "--key", PLAYER_KEYS[1], "--game", "metaversus"]
    )
    assert result.exit_code != 0
    assert isinstance(result.exception, Exception) and "Cards not owned (409)" in str(
        result.exception
    )
