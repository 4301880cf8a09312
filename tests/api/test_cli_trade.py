"""`metaledger trade` against a live API on a real Anvil: keys from a keystore or the environment
(never an argument), an offer made, listed, filled, withdrawn and cancelled on-chain, errors by
name in one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from eth_account import Account
from typer.testing import CliRunner

from ledger.chain.deployment import Deployment
from ledger.cli import app
from ledger.devstack.anvil import AnvilNode
from ledger.settings import override_settings
from tests.api.conftest import LiveServer
from tests.api.trading_support import MAKER, MAKER_KEY, TAKER, TAKER_KEY, book_indexer, stock

pytestmark = pytest.mark.chain


def trade(live: LiveServer, anvil: AnvilNode, *args: str, env: dict[str, str]) -> tuple[int, str]:
    from ledger.settings import get_settings

    get_settings.cache_clear()
    result = CliRunner().invoke(
        app,
        [
            "trade",
            *args,
            "--api",
            live.url,
            *(["--rpc", anvil.rpc_url] if args[0] != "list" and args[0] != "history" else []),
        ],
        env=env,
        catch_exceptions=True,
    )
    text = result.output
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        text += f"error: {result.exception}"
    return result.exit_code, text


def keystore(tmp_path: Path, key: str, password: str) -> Path:
    path = tmp_path / "wallet.json"
    path.write_text(json.dumps(Account.encrypt(key, password, iterations=2)))
    (tmp_path / "password").write_text(password + "\n")
    return path


def test_offer_fill_history_and_cancel(
    live_api: LiveServer,
    anvil: AnvilNode,
    deployment: Deployment,
    database_url: str,
    tmp_path: Path,
) -> None:
    stock(anvil, deployment)
    maker_env = {"METALEDGER_WALLET_KEY": MAKER_KEY}
    code, out = trade(
        live_api, anvil, "offer", "--give", "metax:JL-001=2", "--ask", "metax:JL-003", env=maker_env
    )
    assert code == 0, out
    offer_hash = out.split("offer ", 1)[1].split()[0]
    code, out = trade(live_api, anvil, "list", env={})
    assert code == 0 and offer_hash in out and "2x Darkseid" in out
    # the taker's key from an encrypted keystore, the password from a file
    path = keystore(tmp_path, TAKER_KEY, "correct horse")
    taker_args = ["--keystore", str(path), "--password-file", str(tmp_path / "password")]
    code, out = trade(live_api, anvil, "fill", offer_hash, *taker_args, env={})
    assert code == 0, out
    assert "fill: transaction 0x" in out
    book_indexer(database_url, anvil, deployment).run_once()
    code, out = trade(live_api, anvil, "history", TAKER, env={})
    assert code == 0 and "as taker gave 1x" in out, out
    code, out = trade(live_api, anvil, "history", env=maker_env)
    assert code == 0 and "as maker gave 2x Darkseid" in out, out
    # a second offer: withdrawn, then cancelled on-chain as well
    code, out = trade(
        live_api, anvil, "offer", "--give", "metax:JL-001", "--ask-wei", "1000", env=maker_env
    )
    assert code == 0, out
    second = out.split("offer ", 1)[1].split()[0]
    code, out = trade(live_api, anvil, "cancel", second, "--on-chain", env=maker_env)
    assert code == 0, out
    assert "withdrawn from the book" in out and "on-chain cancel: transaction 0x" in out
    # filling it now fails before anything is sent: the book says it is no longer open
    code, out = trade(live_api, anvil, "fill", second, *taker_args, env={})
    assert code != 0 and "withdrawn" in out


def test_errors_by_name_and_keys_never_from_arguments(
    live_api: LiveServer, anvil: AnvilNode, deployment: Deployment, tmp_path: Path
) -> None:
    stock(anvil, deployment)
    maker_env = {"METALEDGER_WALLET_KEY": MAKER_KEY}
    code, out = trade(
        live_api,
        anvil,
        "offer",
        "--give",
        "metax:JL-001",
        "--ask",
        "metax:JL-003",
        "--taker",
        TAKER,
        env=maker_env,
    )
    assert code == 0, out
    offer_hash = out.split("offer ", 1)[1].split()[0]
    other_key = "0x" + "42" * 32
    code, out = trade(live_api, anvil, "fill", offer_hash, env={"METALEDGER_WALLET_KEY": other_key})
    assert code != 0
    assert (
        f"CardExchangeWrongTaker(taker={TAKER}, caller={Account.from_key(other_key).address})"
        in out
    )
    # no key at all: a one-line error saying where keys come from
    code, out = trade(live_api, anvil, "fill", offer_hash, env={})
    assert code != 0 and "--keystore" in out and "METALEDGER_WALLET_KEY" in out
    # there is no --key option on trade
    result = CliRunner().invoke(app, ["trade", "fill", offer_hash, "--key", MAKER_KEY])
    assert result.exit_code == 2 and "No such option" in result.output
    # a wrong keystore password
    path = keystore(tmp_path, TAKER_KEY, "right")
    code, out = trade(
        live_api,
        anvil,
        "fill",
        offer_hash,
        "--keystore",
        str(path),
        env={"METALEDGER_WALLET_PASSWORD": "wrong"},
    )
    assert code != 0 and "wrong password" in out
    assert MAKER  # the maker kept its cards


def test_play_takes_only_dev_keys_as_arguments(live_api: LiveServer) -> None:
    override_settings()
    result = CliRunner().invoke(app, ["play", "--api", live_api.url, "--key", "0x" + "42" * 32])
    assert result.exit_code != 0
    assert "only Anvil's public dev keys" in str(result.exception)
