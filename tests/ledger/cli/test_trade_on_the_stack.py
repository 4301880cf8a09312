"""The offer book between the two demo wallets on `metaledger run`'s stack (what `make run`
starts, with its defaults but free ports), driven by `metaledger trade` as subprocesses: wallet 1
offers a card, wallet 2 (its key in an encrypted keystore) fills it, the stack's own indexer
marks it filled, both histories show it; and a wallet reading `uri()` finds a name and a picture.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from eth_account import Account

from engine import get_game
from ledger.devstack.demo import DEMO_KEYS
from ledger.protocol.tokenids import token_id
from tests.fixtures.stack import stack_env, stop_stack, wait_for
from tests.ledger.cli.test_run_command import RunningStack, launch_stack

pytestmark = pytest.mark.chain

WALLET1, WALLET2 = (Account.from_key(k).address for k in DEMO_KEYS[:2])


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningStack]:
    tmp = tmp_path_factory.mktemp("trade-run")
    running = launch_stack(tmp, stack_env())
    try:
        yield running
    finally:
        stop_stack(running.process, grace=60)


def test_two_demo_wallets_trade_through_the_cli(stack: RunningStack, tmp_path: Path) -> None:
    game = get_game("metax")
    deck1, deck2 = (game.required_tokens(dict(d)) for d in game.starter_decks)
    give = next(c for c in deck1 if c not in deck2)
    ask = next(c for c in deck2 if c not in deck1)
    where = ["--data-dir", str(stack.data)]
    wallet1 = {**stack.env, "METALEDGER_WALLET_KEY": DEMO_KEYS[0]}
    keystore = tmp_path / "wallet2.json"
    keystore.write_text(json.dumps(Account.encrypt(DEMO_KEYS[1], "demo", iterations=2)))
    wallet2 = {
        **stack.env,
        "METALEDGER_WALLET_KEYSTORE": str(keystore),
        "METALEDGER_WALLET_PASSWORD": "demo",
    }

    def cli(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "ledger.cli", "trade", *args, *where],
            cwd=stack.elsewhere,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )

    refused = cli(wallet1, "offer", "--give", f"metax:{give}", "--ask", f"metax:{ask}")
    assert (
        refused.returncode == 2
        and refused.stderr.startswith("error: ")
        and "--approve" in refused.stderr
    )
    assert refused.stderr.count("\n") == 1
    made = cli(wallet1, "offer", "--give", f"metax:{give}", "--ask", f"metax:{ask}", "--approve")
    assert made.returncode == 0, made.stdout + made.stderr
    offer_hash = made.stdout.split("offer ", 1)[1].split()[0]
    listed = cli(stack.env, "list", "--card", f"metax:{give}", "--side", "selling")
    assert offer_hash in listed.stdout, listed.stdout + listed.stderr
    filled = cli(wallet2, "fill", offer_hash, "--approve")
    assert filled.returncode == 0, filled.stdout + filled.stderr
    assert "fill: transaction 0x" in filled.stdout

    def shows_filled() -> bool:
        out = cli(stack.env, "list", "--status", "filled").stdout
        return offer_hash in out

    wait_for(shows_filled, 60, "the stack's indexer to mark the offer filled", stack.log)
    history = cli(wallet2, "history")
    assert history.returncode == 0 and "as taker" in history.stdout, history.stdout + history.stderr
    assert "as maker" in cli(stack.env, "history", WALLET1).stdout
    api = str(stack.info()["api_url"])
    collection = httpx.get(
        f"{api}/wallets/{WALLET2}/cards?game=metax&source=chain", timeout=30
    ).json()
    assert any(c["card_id"] == give for c in collection["cards"])


def test_a_wallet_reading_uri_finds_a_name_and_a_picture(stack: RunningStack) -> None:
    from web3 import Web3

    from ledger.chain.artifacts import load_artifact

    info = stack.info()
    deployment = json.loads((stack.data / "deployment.json").read_text())
    w3 = Web3(Web3.HTTPProvider(str(info["rpc_url"])))
    token = w3.eth.contract(
        address=deployment["addresses"]["CardToken"], abi=load_artifact("CardToken").abi
    )  # type: ignore[call-overload]
    value = token_id("metax", "JL-001")
    url = token.functions.uri(value).call().replace("{id}", format(value, "064x"))
    assert url.startswith(str(info["api_url"]) + "/cards/")  # the API this stack really runs
    meta = httpx.get(url, timeout=30).json()
    assert meta["name"] == "Darkseid"
    picture = httpx.get(meta["image"], timeout=30)
    assert picture.status_code == 200 and "<svg" in picture.text
