"""Helpers of the offer book tests: wallets with cards and approvals, signed offers as the API
takes them, and one pass of the book indexer."""

from __future__ import annotations

import time
from typing import Any

import httpx
from eth_account import Account

from ledger.chain.deployment import Deployment
from ledger.chain.exchange import approval_calldata
from ledger.chain.transport import JsonRpc
from ledger.client.transactions import Sent, WalletSender
from ledger.db import get_engine
from ledger.devstack.anvil import AnvilNode
from ledger.indexing.book import BookIndexer
from ledger.protocol import eip712
from ledger.protocol.hexcodec import to_hex
from ledger.protocol.tokenids import token_id
from ledger.settings import ANVIL_DEV_KEYS
from tests.api.conftest import mint

MAKER_KEY, TAKER_KEY, OTHER_KEY = ANVIL_DEV_KEYS[3], ANVIL_DEV_KEYS[4], ANVIL_DEV_KEYS[8]
MAKER, TAKER, OTHER = (Account.from_key(k).address for k in (MAKER_KEY, TAKER_KEY, OTHER_KEY))
CARD_A, CARD_B, CARD_C = (token_id("metax", c) for c in ("JL-001", "JL-002", "JL-003"))


def send(anvil: AnvilNode, key: str, to: str, data: bytes | str, value: int = 0) -> Sent:
    """Send a transaction from `key` (dry-run first; TransactionRefused names the error)."""
    with JsonRpc(anvil.rpc_url) as rpc:
        hex_data = data if isinstance(data, str) else to_hex(data)
        return WalletSender(rpc, key).send(to, hex_data, value)


def approve(anvil: AnvilNode, deployment: Deployment, key: str, approved: bool = True) -> None:
    """`key` approves (or revokes) the exchange as operator of all its cards."""
    send(anvil, key, deployment.card_token, approval_calldata(deployment.card_exchange, approved))


def stock(anvil: AnvilNode, deployment: Deployment) -> None:
    """The maker holds 5 of A and 5 of B, the taker 5 of C; both approve the exchange."""
    mint(
        anvil,
        deployment,
        {
            MAKER: {("metax", "JL-001"): 5, ("metax", "JL-002"): 5},
            TAKER: {("metax", "JL-003"): 5},
        },
    )
    approve(anvil, deployment, MAKER_KEY)
    approve(anvil, deployment, TAKER_KEY)


def chain_now(anvil: AnvilNode) -> int:
    """The latest block's timestamp."""
    return int(anvil.w3.eth.get_block("latest")["timestamp"])


def make_offer(anvil: AnvilNode, **fields: Any) -> eip712.Offer:
    """A maker's offer: 2 of A for 1 of C, an hour from now, nonce 1 (fields overridable)."""
    values: dict[str, Any] = {
        "maker": MAKER,
        "given_ids": (CARD_A,),
        "given_amounts": (2,),
        "asked_ids": (CARD_C,),
        "asked_amounts": (1,),
        "expiry": chain_now(anvil) + 3600,
        "nonce": 1,
    }
    values.update(fields)
    return eip712.Offer(**values)


def body(
    offer: eip712.Offer,
    deployment: Deployment,
    key: str = MAKER_KEY,
    *,
    chain_id: int | None = None,
    contract: str | None = None,
    signature: str | None = None,
) -> dict[str, Any]:
    """The POST /offers body of `offer`, signed by `key` in the given (default: the real) domain."""
    chain = deployment.chain_id if chain_id is None else chain_id
    where = contract or deployment.card_exchange
    typed = eip712.offer_typed_data(offer, chain, where)
    sig = signature or to_hex(eip712.sign_offer(key, offer, chain, where))
    return {"domain": typed["domain"], "offer": typed["message"], "signature": sig}


def post_offer(client: httpx.Client, payload: dict[str, Any], status: int = 201) -> Any:
    """POST /offers, asserting the status."""
    reply = client.post("/offers", json=payload)
    assert reply.status_code == status, reply.text
    return reply.json()


def book_indexer(database_url: str, anvil: AnvilNode, deployment: Deployment) -> BookIndexer:
    """A book indexer over the test database and chain (reorg depth 2)."""
    return BookIndexer(
        get_engine(database_url),
        JsonRpc(anvil.rpc_url),
        deployment.card_exchange,
        deployment.card_token,
        deployment.deployment_block,
        reorg_depth=2,
        chain_id=deployment.chain_id,
    )


def fill(
    client: httpx.Client, anvil: AnvilNode, offer_hash: str, key: str = TAKER_KEY
) -> tuple[dict[str, Any], Sent]:
    """GET the fill transaction for `key`'s wallet and send it."""
    taker = Account.from_key(key).address
    plan = client.get(f"/offers/{offer_hash}/fill", params={"taker": taker})
    assert plan.status_code == 200, plan.text
    tx = plan.json()["transaction"]
    return plan.json(), send(anvil, key, tx["to"], tx["data"], int(tx["value"]))


def wait_until(predicate: Any, timeout: float = 10.0) -> None:
    """Poll `predicate` until it is true."""
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.1)
