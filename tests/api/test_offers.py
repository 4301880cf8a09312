"""The offer book over HTTP on a real Anvil: offers checked and stored, listed, filled, cancelled,
withdrawn and invalidated, on SQLite and PostgreSQL; an EIP-1271 contract wallet as a maker."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from eth_account import Account

from ledger.chain.deployment import Deployment
from ledger.chain.exchange import cancel_calldata
from ledger.devstack.anvil import AnvilNode
from ledger.protocol import eip712
from ledger.protocol.hexcodec import to_hex, uint256_hex
from tests.api.conftest import mint, transfer
from tests.api.trading_support import (
    CARD_A,
    CARD_B,
    CARD_C,
    MAKER,
    MAKER_KEY,
    OTHER,
    OTHER_KEY,
    TAKER,
    TAKER_KEY,
    approve,
    body,
    book_indexer,
    fill,
    make_offer,
    post_offer,
    send,
    stock,
)
from tests.contracts.conftest import load_test_artifact

pytestmark = pytest.mark.chain


def _stocked_offers(
    client: httpx.Client, anvil: AnvilNode, deployment: Deployment, *nonces: int
) -> list[dict[str, Any]]:
    """Stock the wallets, then put the maker's default offer on the book once per nonce."""
    stock(anvil, deployment)
    return [post_offer(client, body(make_offer(anvil, nonce=n), deployment)) for n in nonces]


def bad_checksum(address: str) -> str:
    """`address` with the case of its first letter swapped (a wrong EIP-55 checksum)."""
    k = next(k for k, c in enumerate(address) if k > 1 and c.isalpha())
    return address[:k] + address[k].swapcase() + address[k + 1 :]


def balances(anvil: AnvilNode, deployment: Deployment, who: str) -> list[int]:
    from ledger.devstack.deploy import contract

    token = contract(anvil.w3, deployment, "CardToken")
    return list(token.functions.balanceOfBatch([who] * 3, [CARD_A, CARD_B, CARD_C]).call())


def test_card_for_card_through_the_book(
    client: httpx.Client, anvil: AnvilNode, deployment: Deployment, database_url: str
) -> None:
    stock(anvil, deployment)
    offer = make_offer(anvil)
    created = post_offer(client, body(offer, deployment))
    expected_hash = to_hex(
        eip712.offer_digest(offer, deployment.chain_id, deployment.card_exchange)
    )
    assert created["offer_hash"] == expected_hash and created["status"] == "open"
    assert created["maker"] == MAKER and created["taker"] is None
    assert created["given"][0]["token_id"] == uint256_hex(CARD_A)
    assert created["given"][0]["name"] == "Darkseid" and created["given"][0]["game"] == "metax"
    assert created["given"][0]["metadata_url"].endswith(f"/cards/{CARD_A:064x}.json")
    assert created["asked_wei"] == "0" and created["nonce"] == "1"
    assert created["typed_data"] == eip712.offer_typed_data(
        offer, deployment.chain_id, deployment.card_exchange
    )
    # the same offer again: 200 with the stored one, nothing doubled
    assert post_offer(client, body(offer, deployment), status=200)["offer_hash"] == expected_hash
    page = client.get("/offers").json()
    assert [o["offer_hash"] for o in page["offers"]] == [expected_hash]
    # the fill transaction the taker's wallet sends, with both legs spelled out
    plan, sent = fill(client, anvil, expected_hash)
    assert plan["transaction"]["to"] == deployment.card_exchange
    assert plan["transaction"]["from"] == TAKER and plan["transaction"]["value"] == "0"
    assert [c["token_id"] for c in plan["taker_gets"]["cards"]] == [uint256_hex(CARD_A)]
    assert [c["amount"] for c in plan["taker_gives"]["cards"]] == [1]
    assert plan["simulation"] == {"ok": True, "error": None}
    assert plan["approval"] == {"needed": False, "transaction": None}
    assert balances(anvil, deployment, MAKER) == [3, 5, 1]
    assert balances(anvil, deployment, TAKER) == [2, 0, 4]
    report = book_indexer(database_url, anvil, deployment).run_once()
    assert report.fills == 1
    filled = client.get(f"/offers/{expected_hash}").json()
    assert filled["status"] == "filled" and filled["fill"]["tx_hash"] == sent.tx_hash
    assert filled["fill"]["block_number"] == sent.block_number
    for who, role_gave in ((MAKER, "maker_gave"), (TAKER, "taker_gave")):
        trades = client.get(f"/wallets/{who}/trades").json()
        assert trades["address"] == who
        (trade,) = trades["trades"]
        assert (
            trade["tx_hash"] == sent.tx_hash and trade["maker"] == MAKER and trade["taker"] == TAKER
        )
        assert trade[role_gave][0]["amount"] == (2 if who == MAKER else 1)
    assert client.get("/offers").json()["offers"] == []
    assert [o["status"] for o in client.get("/offers?status=filled").json()["offers"]] == ["filled"]


def test_cards_for_eth(
    client: httpx.Client, anvil: AnvilNode, deployment: Deployment, database_url: str
) -> None:
    stock(anvil, deployment)
    price = 3 * 10**17
    offer = make_offer(anvil, asked_ids=(), asked_amounts=(), asked_wei=price, taker=OTHER)
    created = post_offer(client, body(offer, deployment))
    assert created["asked_wei"] == str(price) and created["taker"] == OTHER
    # a wallet other than the named taker is told by name why the fill would fail
    wrong = client.get(f"/offers/{created['offer_hash']}/fill", params={"taker": TAKER}).json()
    assert wrong["simulation"]["ok"] is False
    assert wrong["simulation"]["error"] == {
        "name": "CardExchangeWrongTaker",
        "args": {"taker": OTHER, "caller": TAKER},
    }
    before = anvil.w3.eth.get_balance(MAKER)
    plan, _sent = fill(client, anvil, created["offer_hash"], key=OTHER_KEY)
    assert plan["transaction"]["value"] == str(price) and plan["maker_gets"]["wei"] == str(price)
    assert anvil.w3.eth.get_balance(MAKER) - before == price
    assert balances(anvil, deployment, OTHER)[0] == 2
    book_indexer(database_url, anvil, deployment).run_once()
    trade = client.get(f"/wallets/{OTHER}/trades").json()["trades"][0]
    assert trade["wei"] == str(price) and trade["taker_gave"] == []


def test_price_sort_and_pagination(
    client: httpx.Client, anvil: AnvilNode, deployment: Deployment
) -> None:
    stock(anvil, deployment)
    prices = [5, 1, 3, 2, 4]
    for nonce, wei in enumerate(prices, 1):
        post_offer(
            client,
            body(
                make_offer(
                    anvil, asked_ids=(), asked_amounts=(), asked_wei=wei * 10**15, nonce=nonce
                ),
                deployment,
            ),
        )
    post_offer(client, body(make_offer(anvil, nonce=99, given_ids=(CARD_B,)), deployment))  # no wei
    seen, cursor = [], None
    while True:
        params = {"sort": "price_asc", "limit": 2} | ({"cursor": cursor} if cursor else {})
        page = client.get("/offers", params=params).json()
        seen += [int(o["asked_wei"]) // 10**15 for o in page["offers"]]
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert seen == [1, 2, 3, 4, 5]
    desc = client.get("/offers", params={"sort": "price_desc", "limit": 3}).json()["offers"]
    assert [int(o["asked_wei"]) // 10**15 for o in desc] == [5, 4, 3]
    # filters: the side a card is on, the maker, the game
    selling_b = client.get(
        "/offers", params={"card": uint256_hex(CARD_B), "side": "selling"}
    ).json()
    assert [o["nonce"] for o in selling_b["offers"]] == ["99"]
    asking_c = client.get("/offers", params={"card": str(CARD_C), "side": "asking"}).json()
    assert [o["nonce"] for o in asking_c["offers"]] == ["99"]
    assert len(client.get("/offers", params={"maker": MAKER.lower()}).json()["offers"]) == 6
    assert client.get("/offers", params={"maker": TAKER}).json()["offers"] == []
    assert len(client.get("/offers", params={"game": "metax", "limit": 100}).json()["offers"]) == 6
    assert client.get("/offers", params={"game": "metaversus"}).json()["offers"] == []
    bad = client.get("/offers", params={"cursor": "nonsense"})
    assert bad.status_code == 422 and bad.json()["field"] == "cursor"
    assert client.get("/offers", params={"side": "selling"}).json()["field"] == "side"


def test_cancel_on_chain_and_withdrawal_are_reflected(
    client: httpx.Client, anvil: AnvilNode, deployment: Deployment, database_url: str
) -> None:
    first, second = _stocked_offers(client, anvil, deployment, 7, 8)
    # on-chain: the maker sends the cancel the API hands out
    tx = client.get(f"/offers/{first['offer_hash']}/cancel").json()["transaction"]
    assert tx["data"] == to_hex(cancel_calldata(7)) and tx["from"] == MAKER
    send(anvil, MAKER_KEY, tx["to"], tx["data"])
    # off-chain: a withdrawal signed by someone else is refused, the maker's is taken
    withdrawal = eip712.OfferWithdrawal(second["offer_hash"])
    forged = to_hex(
        eip712.sign(TAKER_KEY, withdrawal, deployment.chain_id, deployment.card_exchange)
    )
    refused = client.request(
        "DELETE", f"/offers/{second['offer_hash']}", json={"signature": forged}
    )
    assert refused.status_code == 422 and refused.json()["field"] == "signature"
    signed = to_hex(
        eip712.sign(MAKER_KEY, withdrawal, deployment.chain_id, deployment.card_exchange)
    )
    done = client.request("DELETE", f"/offers/{second['offer_hash']}", json={"signature": signed})
    assert done.status_code == 200, done.text
    assert done.json()["offer"]["status"] == "withdrawn"
    assert done.json()["cancel_transaction"]["data"] == to_hex(cancel_calldata(8))
    book_indexer(database_url, anvil, deployment).run_once()
    one = client.get(f"/offers/{first['offer_hash']}").json()
    assert (one["status"], one["status_reason"]) == ("cancelled", "cancelled-on-chain")
    two = client.get(f"/offers/{second['offer_hash']}").json()
    assert (two["status"], two["status_reason"]) == ("withdrawn", "withdrawn-by-maker")
    # a cancelled offer has no fill transaction
    gone = client.get(f"/offers/{first['offer_hash']}/fill", params={"taker": TAKER})
    assert gone.status_code == 409 and gone.json()["reason"] == "cancelled"
    # the withdrawn one is still valid on-chain: filled anyway, the book says so
    fill_tx = client.get(f"/offers/{second['offer_hash']}/fill", params={"taker": TAKER})
    assert fill_tx.status_code == 409  # the book no longer offers it...
    from ledger.chain.exchange import fill_calldata

    data = fill_calldata(
        make_offer(anvil, nonce=8, expiry=two["expiry"]), bytes.fromhex(two["signature"][2:])
    )
    send(anvil, TAKER_KEY, deployment.card_exchange, data)  # ...but the signed offer fills
    book_indexer(database_url, anvil, deployment).run_once()
    assert client.get(f"/offers/{second['offer_hash']}").json()["status"] == "filled"


def test_invalidate_nonces_below(
    client: httpx.Client, anvil: AnvilNode, deployment: Deployment, database_url: str
) -> None:
    from ledger.chain.exchange import invalidate_calldata

    low, high = _stocked_offers(client, anvil, deployment, 3, 30)
    send(anvil, MAKER_KEY, deployment.card_exchange, invalidate_calldata(10))
    book_indexer(database_url, anvil, deployment).run_once()
    assert client.get(f"/offers/{low['offer_hash']}").json()["status_reason"] == "nonce-invalidated"
    assert client.get(f"/offers/{high['offer_hash']}").json()["status"] == "open"
    nonce = client.get(f"/wallets/{MAKER}/offer-nonce").json()
    assert nonce == {"maker": MAKER, "min_nonce": "10", "next_nonce": "31"}
    refused = client.post("/offers", json=body(make_offer(anvil, nonce=4), deployment))
    assert refused.status_code == 409 and refused.json()["field"] == "offer.nonce"


def test_transfer_and_revoked_approval_invalidate_and_reopen(
    client: httpx.Client, anvil: AnvilNode, deployment: Deployment, database_url: str
) -> None:
    stock(anvil, deployment)
    by_transfer = post_offer(
        client, body(make_offer(anvil, given_amounts=(5,), nonce=1), deployment)
    )
    by_approval = post_offer(
        client,
        body(make_offer(anvil, given_ids=(CARD_B,), given_amounts=(1,), nonce=2), deployment),
    )
    indexer = book_indexer(database_url, anvil, deployment)
    indexer.run_once()
    transfer(anvil, deployment, MAKER_KEY, OTHER, CARD_A, 1)  # 4 of A left, the offer gives 5
    indexer.run_once()
    one = client.get(f"/offers/{by_transfer['offer_hash']}").json()
    assert (one["status"], one["status_reason"]) == ("unfillable", "maker-balance")
    approve(anvil, deployment, MAKER_KEY, approved=False)
    indexer.run_once()
    two = client.get(f"/offers/{by_approval['offer_hash']}").json()
    assert (two["status"], two["status_reason"]) == ("unfillable", "maker-approval")
    listed = client.get("/offers", params={"status": "unfillable"}).json()["offers"]
    assert len(listed) == 2
    # the fill would fail with the token's own error, by name
    plan = client.get(f"/offers/{by_approval['offer_hash']}/fill", params={"taker": TAKER}).json()
    assert plan["simulation"]["error"]["name"] == "ERC1155MissingApprovalForAll"
    assert plan["simulation"]["error"]["args"] == {
        "operator": deployment.card_exchange,
        "owner": MAKER,
    }
    # the approval and the card come back: both offers re-open
    approve(anvil, deployment, MAKER_KEY)
    transfer(anvil, deployment, OTHER_KEY, MAKER, CARD_A, 1)
    indexer.run_once()
    assert client.get(f"/offers/{by_transfer['offer_hash']}").json()["status"] == "open"
    assert client.get(f"/offers/{by_approval['offer_hash']}").json()["status"] == "open"


def test_two_takers_one_fill(
    client: httpx.Client, anvil: AnvilNode, deployment: Deployment, database_url: str
) -> None:
    from ledger.client.transactions import TransactionRefused
    from tests.api.conftest import mint

    stock(anvil, deployment)
    mint(anvil, deployment, {OTHER: {("metax", "JL-003"): 1}})
    approve(anvil, deployment, OTHER_KEY)
    created = post_offer(client, body(make_offer(anvil), deployment))
    plans = [
        client.get(f"/offers/{created['offer_hash']}/fill", params={"taker": t}).json()
        for t in (TAKER, OTHER)
    ]
    assert all(p["simulation"]["ok"] for p in plans)
    send(anvil, TAKER_KEY, plans[0]["transaction"]["to"], plans[0]["transaction"]["data"])
    with pytest.raises(TransactionRefused) as second:
        send(anvil, OTHER_KEY, plans[1]["transaction"]["to"], plans[1]["transaction"]["data"])
    assert second.value.revert is not None
    assert second.value.revert.name == "CardExchangeNonceAlreadyUsed"
    assert "CardExchangeNonceAlreadyUsed(maker=" in str(second.value)
    book_indexer(database_url, anvil, deployment).run_once()
    filled = client.get(f"/offers/{created['offer_hash']}").json()
    assert filled["status"] == "filled" and filled["fill"]["taker"] == TAKER
    assert client.get(f"/wallets/{OTHER}/trades").json()["trades"] == []


def test_a_fill_racing_a_cancel_one_wins_and_the_book_says_which(
    client: httpx.Client, anvil: AnvilNode, deployment: Deployment, database_url: str
) -> None:
    from ledger.chain.exchange import fill_calldata

    stock(anvil, deployment)
    results = {}
    for nonce, first in ((11, "fill"), (12, "cancel")):
        created = post_offer(client, body(make_offer(anvil, nonce=nonce), deployment))
        offer = make_offer(anvil, nonce=nonce, expiry=created["expiry"])
        fill_data = fill_calldata(offer, bytes.fromhex(created["signature"][2:]))
        w3 = anvil.w3
        w3.provider.make_request("evm_setAutomine", [False])  # type: ignore[arg-type]
        try:
            hashes = {}
            order = [("fill", TAKER_KEY, fill_data), ("cancel", MAKER_KEY, cancel_calldata(nonce))]
            if first == "cancel":
                order.reverse()
            for name, key, data in order:
                hashes[name] = _sign_and_push(anvil, key, deployment.card_exchange, data)
            w3.provider.make_request("evm_mine", [])  # type: ignore[arg-type]
        finally:
            w3.provider.make_request("evm_setAutomine", [True])  # type: ignore[arg-type]
        statuses = {n: w3.eth.get_transaction_receipt(h)["status"] for n, h in hashes.items()}
        assert sorted(statuses.values()) == [0, 1]  # exactly one wins
        results[created["offer_hash"]] = next(n for n, s in statuses.items() if s == 1)
    book_indexer(database_url, anvil, deployment).run_once()
    for offer_hash, winner in results.items():
        status = client.get(f"/offers/{offer_hash}").json()["status"]
        assert status == {"fill": "filled", "cancel": "cancelled"}[winner]
    assert set(results.values()) == {"fill", "cancel"}


def _sign_and_push(anvil: AnvilNode, key: str, to: str, data: bytes) -> bytes:
    account = Account.from_key(key)
    w3 = anvil.w3
    tx = {
        "to": to,
        "data": data,
        "gas": 400_000,
        "chainId": 31337,
        "value": 0,
        "nonce": w3.eth.get_transaction_count(account.address, "pending"),
        "maxFeePerGas": 10**10,
        "maxPriorityFeePerGas": 10**9,
    }
    return bytes(w3.eth.send_raw_transaction(account.sign_transaction(tx).raw_transaction))


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"given_amounts": (0,)}, "offer.givenAmounts[0]"),
        ({"given_ids": (CARD_A, CARD_A), "given_amounts": (1, 1)}, "offer.givenIds[1]"),
        ({"asked_ids": (CARD_A,)}, "offer.askedIds[0]"),
        ({"expiry": 1}, "offer.expiry"),
        ({"given_amounts": (6,)}, "offer.givenAmounts[0]"),
        ({"given_ids": (123,)}, "offer.givenIds[0]"),
        ({"taker": MAKER}, "offer.taker"),
        ({"asked_ids": (), "asked_amounts": ()}, "offer.askedIds"),
    ],
)
def test_bad_offers_are_refused_naming_the_field_and_nothing_is_stored(
    client: httpx.Client,
    anvil: AnvilNode,
    deployment: Deployment,
    change: dict[str, object],
    field: str,
) -> None:
    stock(anvil, deployment)
    reply = client.post("/offers", json=body(make_offer(anvil, **change), deployment))
    assert reply.status_code in (409, 422), reply.text
    assert reply.headers["content-type"].startswith("application/problem+json")
    assert reply.json()["field"] == field, reply.json()
    assert client.get("/offers?status=any").json()["offers"] == []


def test_signature_and_domain_refusals(
    client: httpx.Client, anvil: AnvilNode, deployment: Deployment
) -> None:
    stock(anvil, deployment)
    offer = make_offer(anvil)

    def refused(payload: dict[str, object]) -> dict[str, object]:
        reply = client.post("/offers", json=payload)
        assert reply.status_code in (409, 422), reply.text
        result: dict[str, object] = reply.json()
        return result

    # signed over other fields: the amount changed after signing
    tampered = body(offer, deployment)
    tampered["offer"]["givenAmounts"] = ["1"]
    assert refused(tampered)["field"] == "signature"
    # signed by someone else
    assert refused(body(offer, deployment, key=TAKER_KEY))["field"] == "signature"
    # another chain's or another contract's domain
    assert refused(body(offer, deployment, chain_id=1))["field"] == "domain.chainId"
    assert (
        refused(body(offer, deployment, contract=deployment.card_token))["field"]
        == "domain.verifyingContract"
    )
    # signed for another chain, but claiming this one
    other_chain = body(offer, deployment, chain_id=1)
    other_chain["domain"]["chainId"] = deployment.chain_id
    assert refused(other_chain)["field"] == "signature"
    # more ids than the cap
    many = body(offer, deployment)
    many["offer"]["givenIds"] = [str(i) for i in range(17)]
    many["offer"]["givenAmounts"] = ["1"] * 17
    problem = refused(many)
    assert "givenIds" in str(problem["errors"])
    # a maker without the approval is told what to send
    approve(anvil, deployment, MAKER_KEY, approved=False)
    no_approval = refused(body(offer, deployment))
    assert no_approval["field"] == "offer.maker" and no_approval["reason"] == "maker-approval"
    assert no_approval["approval_transaction"]["to"] == deployment.card_token  # type: ignore[index]
    # a bad checksum is a 422 naming the field
    checksum = client.get("/offers", params={"maker": bad_checksum(MAKER)})
    assert checksum.status_code == 422 and checksum.json()["field"] == "maker"
    assert client.get("/offers?status=any").json()["offers"] == []


# -- an EIP-1271 contract wallet as a maker: its offer is checked through `isValidSignature`,
# stored, filled, and withdrawn with a signature its owner makes for it


def contract_wallet(anvil: AnvilNode, deployment: Deployment) -> str:
    """An ERC1271WalletMock owned by OTHER, holding 3 of card A (JL-001), with the exchange
    approved."""
    w3 = anvil.w3
    artifact = load_test_artifact("ERC1271WalletMock")
    factory = w3.eth.contract(abi=artifact.abi, bytecode=artifact.bytecode)  # type: ignore[call-overload]
    receipt = w3.eth.wait_for_transaction_receipt(
        factory.constructor(OTHER).transact({"from": OTHER, "gas": 3_000_000})
    )
    wallet = w3.eth.contract(address=receipt["contractAddress"], abi=artifact.abi)  # type: ignore[call-overload]
    mint(anvil, deployment, {wallet.address: {("metax", "JL-001"): 3}})
    tx = wallet.functions.approve(deployment.card_token, deployment.card_exchange).transact(
        {"from": OTHER, "gas": 200_000}
    )
    assert w3.eth.wait_for_transaction_receipt(tx)["status"] == 1
    return str(wallet.address)


def test_an_eip1271_maker(
    client: httpx.Client, anvil: AnvilNode, deployment: Deployment, database_url: str
) -> None:
    wallet = contract_wallet(anvil, deployment)
    mint(anvil, deployment, {TAKER: {("metax", "JL-003"): 1}})
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
    # the wallet sold 2 of its 3 card A for the taker's card C
    assert balances(anvil, deployment, wallet) == [1, 0, 1]
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
