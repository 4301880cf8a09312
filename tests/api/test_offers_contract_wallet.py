"""An EIP-1271 contract wallet as a maker: its offer is checked through `isValidSignature`,
stored, filled, and withdrawn with a signature its owner makes for it."""

from __future__ import annotations

import httpx
import pytest
from eth_account import Account

from ledger.chain.deployment import Deployment
from ledger.devstack.anvil import AnvilNode
from ledger.protocol import eip712
from ledger.protocol.hexcodec import to_hex
from tests.api.conftest import mint
from tests.api.trading_support import (
    CARD_A,
    OTHER_KEY,
    TAKER,
    approve,
    body,
    book_indexer,
    fill,
    make_offer,
    post_offer,
)
from tests.contracts.conftest import load_test_artifact

pytestmark = pytest.mark.chain

OWNER = Account.from_key(OTHER_KEY).address


def contract_wallet(anvil: AnvilNode, deployment: Deployment) -> str:
    """An ERC1271WalletMock owned by OTHER, holding 3 of card A, with the exchange approved."""
    w3 = anvil.w3
    artifact = load_test_artifact("ERC1271WalletMock")
    factory = w3.eth.contract(abi=artifact.abi, bytecode=artifact.bytecode)  # type: ignore[call-overload]
    receipt = w3.eth.wait_for_transaction_receipt(
        factory.constructor(OWNER).transact({"from": OWNER, "gas": 3_000_000})
    )
    wallet = w3.eth.contract(address=receipt["contractAddress"], abi=artifact.abi)  # type: ignore[call-overload]
    mint(anvil, deployment, {wallet.address: {("metax", "JL-001"): 3}})
    tx = wallet.functions.approve(deployment.card_token, deployment.card_exchange).transact(
        {"from": OWNER, "gas": 200_000}
    )
    assert w3.eth.wait_for_transaction_receipt(tx)["status"] == 1
    return str(wallet.address)


def test_an_eip1271_maker(
    client: httpx.Client, anvil: AnvilNode, deployment: Deployment, database_url: str
) -> None:
    wallet = contract_wallet(anvil, deployment)
    mint(anvil, deployment, {TAKER: {("metax", "JL-003"): 1}})
    from tests.api.trading_support import TAKER_KEY

    approve(anvil, deployment, TAKER_KEY)
    offer = make_offer(anvil, maker=wallet)
    # the wallet's owner signs for it (the mock accepts its owner's ECDSA signature)
    created = post_offer(client, body(offer, deployment, key=OTHER_KEY))
    assert created["maker"] == wallet and created["maker_is_contract"] is True
    # another key's signature is refused through isValidSignature
    stranger = client.post(
        "/offers", json=body(make_offer(anvil, maker=wallet, nonce=2), deployment, key=TAKER_KEY)
    )
    assert stranger.status_code == 422 and stranger.json()["field"] == "signature"
    plan, _sent = fill(client, anvil, created["offer_hash"])
    assert plan["simulation"]["ok"] is True
    book_indexer(database_url, anvil, deployment).run_once()
    assert client.get(f"/offers/{created['offer_hash']}").json()["status"] == "filled"
    # a second offer, withdrawn with the owner's signature for the wallet
    second = post_offer(
        client,
        body(
            make_offer(anvil, maker=wallet, nonce=3, given_amounts=(1,)), deployment, key=OTHER_KEY
        ),
    )
    withdrawal = eip712.OfferWithdrawal(second["offer_hash"])
    signature = to_hex(
        eip712.sign(OTHER_KEY, withdrawal, deployment.chain_id, deployment.card_exchange)
    )
    done = client.request(
        "DELETE", f"/offers/{second['offer_hash']}", json={"signature": signature}
    )
    assert done.status_code == 200 and done.json()["offer"]["status"] == "withdrawn"
    assert CARD_A  # the card the wallet sold
