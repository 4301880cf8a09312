"""CardExchange on a real Anvil: atomic fills (cards and ETH), cancels, every refusal, EIP-1271
makers, re-entry through receiver hooks, and Python/contract agreement on the offer digest."""

from __future__ import annotations

import os
from typing import Any

import pytest
from eth_account import Account

from ledger.protocol.eip712 import (
    ZERO_ADDRESS,
    Offer,
    offer_digest,
    offer_typed_data,
    recover_offer_signer,
    sign_offer,
)
from ledger.settings import ANVIL_DEV_KEYS
from tests.contracts.conftest import COLLECTOR_KEYS, Chain

pytestmark = pytest.mark.chain

MAKER_KEY, TAKER_KEY = COLLECTOR_KEYS[0], COLLECTOR_KEYS[1]
MAKER, TAKER = Account.from_key(MAKER_KEY).address, Account.from_key(TAKER_KEY).address
CARD_A, CARD_B, CARD_C = 101, 202, 303


@pytest.fixture
def swap(chain: Chain) -> Chain:
    """The maker holds 10 CARD_A, the taker 10 CARD_B and 10 CARD_C; both approved the exchange."""
    chain.editions([CARD_A, CARD_B, CARD_C])
    chain.send(chain.token, "mint", MAKER, CARD_A, 10, b"", sender=chain.publisher)
    chain.send(
        chain.token, "mintBatch", TAKER, [CARD_B, CARD_C], [10, 10], b"", sender=chain.publisher
    )
    for who in (MAKER, TAKER):
        chain.send(chain.token, "setApprovalForAll", chain.exchange.address, True, sender=who)
    return chain


def offer(chain: Chain, **changes: Any) -> Offer:
    fields: dict[str, Any] = {
        "maker": MAKER,
        "given_ids": (CARD_A,),
        "given_amounts": (3,),
        "asked_ids": (CARD_B, CARD_C),
        "asked_amounts": (2, 1),
        "expiry": chain.now() + 3600,
        "nonce": 1,
    }
    fields.update(changes)
    return Offer(**fields)


def signed(chain: Chain, o: Offer, key: str = MAKER_KEY) -> tuple[tuple[Any, ...], bytes]:
    d = chain.deployment
    return o.as_tuple(), sign_offer(key, o, d.chain_id, d.card_exchange)


def balances(chain: Chain, who: str) -> list[int]:
    return chain.token.functions.balanceOfBatch([who] * 3, [CARD_A, CARD_B, CARD_C]).call()  # type: ignore[no-any-return]


def test_offer_digest_agrees_with_contract(swap: Chain) -> None:
    d = swap.deployment
    o = offer(swap, taker=TAKER, asked_wei=5)
    assert swap.exchange.functions.offerDigest(o.as_tuple()).call() == offer_digest(
        o, d.chain_id, d.card_exchange
    )
    sig = sign_offer(MAKER_KEY, o, d.chain_id, d.card_exchange)
    assert recover_offer_signer(o, sig, d.chain_id, d.card_exchange) == MAKER
    # a wallet signing the typed data (eth_signTypedData_v4) produces the same signature
    typed = offer_typed_data(o, d.chain_id, d.card_exchange)
    assert bytes(Account.sign_typed_data(MAKER_KEY, full_message=typed).signature) == sig


def test_fill_swaps_atomically_and_emits(swap: Chain) -> None:
    d = swap.deployment
    o = offer(swap)
    receipt = swap.send(swap.exchange, "fill", *signed(swap, o), sender=TAKER)
    (event,) = swap.events(swap.exchange, receipt, "OfferFilled")
    assert dict(event) == {
        "offerHash": offer_digest(o, d.chain_id, d.card_exchange),
        "maker": MAKER,
        "taker": TAKER,
        "nonce": 1,
    }
    # OpenZeppelin emits TransferSingle for a one-id batch
    (given,) = swap.events(swap.token, receipt, "TransferSingle")
    (asked,) = swap.events(swap.token, receipt, "TransferBatch")
    assert (given["from"], given["to"], given["id"], given["value"]) == (MAKER, TAKER, CARD_A, 3)
    assert (asked["from"], asked["to"], list(asked["ids"])) == (TAKER, MAKER, [CARD_B, CARD_C])
    assert balances(swap, MAKER) == [7, 2, 1]
    assert balances(swap, TAKER) == [3, 8, 9]
    assert swap.exchange.functions.isNonceUsed(MAKER, 1).call()
    assert receipt["gasUsed"] < 200_000


def test_fill_with_eth_payment(swap: Chain) -> None:
    o = offer(swap, asked_ids=(), asked_amounts=(), asked_wei=10**18)
    before = swap.w3.eth.get_balance(MAKER)
    swap.send(swap.exchange, "fill", *signed(swap, o), sender=TAKER, value=10**18)
    assert swap.w3.eth.get_balance(MAKER) - before == 10**18
    assert swap.w3.eth.get_balance(swap.exchange.address) == 0
    assert balances(swap, TAKER)[0] == 3


def test_fill_cards_and_eth_for_a_named_taker(swap: Chain) -> None:
    o = offer(swap, asked_wei=7, taker=TAKER)
    swap.send(swap.exchange, "fill", *signed(swap, o), sender=TAKER, value=7)
    assert balances(swap, MAKER) == [7, 2, 1]


def test_refusals(swap: Chain) -> None:
    ex = swap.exchange
    other = swap.collectors[2]
    o = offer(swap, taker=TAKER)
    args = signed(swap, o)
    swap.assert_reverts(ex, "fill", args, other, "CardExchangeWrongTaker", TAKER, other)
    swap.assert_reverts(ex, "fill", args, TAKER, "CardExchangeWrongPayment", 0, 1, value=1)
    paid = offer(swap, asked_wei=100, nonce=2)
    swap.assert_reverts(
        ex, "fill", signed(swap, paid), TAKER, "CardExchangeWrongPayment", 100, 99, value=99
    )
    # signed by someone else, for another chain, for another contract, or altered after signing
    swap.assert_reverts(
        ex, "fill", signed(swap, o, key=TAKER_KEY), TAKER, "CardExchangeInvalidSignature", MAKER
    )
    d = swap.deployment
    for chain_id, address in ((1, d.card_exchange), (d.chain_id, d.match_ledger)):
        foreign = sign_offer(MAKER_KEY, o, chain_id, address)
        swap.assert_reverts(
            ex, "fill", (o.as_tuple(), foreign), TAKER, "CardExchangeInvalidSignature", MAKER
        )
    altered = offer(swap, taker=TAKER, given_amounts=(9,))
    swap.assert_reverts(
        ex, "fill", (altered.as_tuple(), args[1]), TAKER, "CardExchangeInvalidSignature", MAKER
    )
    swap.assert_reverts(
        ex, "fill", (o.as_tuple(), b"\x00" * 65), TAKER, "CardExchangeInvalidSignature", MAKER
    )


def test_refused_when_expired(swap: Chain) -> None:
    o = offer(swap, expiry=swap.now() + 60)
    args = signed(swap, o)
    swap.advance(120)
    swap.assert_reverts(swap.exchange, "fill", args, TAKER, "CardExchangeOfferExpired", o.expiry)


def test_refused_when_filled_twice(swap: Chain) -> None:
    args = signed(swap, offer(swap))
    swap.send(swap.exchange, "fill", *args, sender=TAKER)
    swap.assert_reverts(
        swap.exchange, "fill", args, TAKER, "CardExchangeNonceAlreadyUsed", MAKER, 1
    )


def test_cancel_one(swap: Chain) -> None:
    args = signed(swap, offer(swap, nonce=300))
    receipt = swap.send(swap.exchange, "cancel", 300, sender=MAKER)
    assert dict(swap.events(swap.exchange, receipt, "OfferCancelled")[0]) == {
        "maker": MAKER,
        "nonce": 300,
    }
    assert swap.exchange.functions.isNonceUsed(MAKER, 300).call()
    assert not swap.exchange.functions.isNonceUsed(MAKER, 301).call()
    swap.assert_reverts(
        swap.exchange, "fill", args, TAKER, "CardExchangeNonceAlreadyUsed", MAKER, 300
    )
    swap.assert_reverts(
        swap.exchange, "cancel", (300,), MAKER, "CardExchangeNonceAlreadyUsed", MAKER, 300
    )
    # a cancel by someone else spends only their own nonce
    swap.send(swap.exchange, "cancel", 301, sender=TAKER)
    swap.send(swap.exchange, "fill", *signed(swap, offer(swap, nonce=301)), sender=TAKER)


def test_cancel_all_below_a_nonce(swap: Chain) -> None:
    low, high = (
        signed(swap, offer(swap, nonce=4)),
        signed(swap, offer(swap, nonce=5, given_amounts=(1,))),
    )
    receipt = swap.send(swap.exchange, "invalidateNoncesBelow", 5, sender=MAKER)
    assert dict(swap.events(swap.exchange, receipt, "NoncesInvalidated")[0]) == {
        "maker": MAKER,
        "minNonce": 5,
    }
    assert swap.exchange.functions.minNonce(MAKER).call() == 5
    assert swap.exchange.functions.isNonceUsed(MAKER, 4).call()
    swap.assert_reverts(
        swap.exchange, "fill", low, TAKER, "CardExchangeNonceBelowMinimum", MAKER, 4, 5
    )
    swap.assert_reverts(
        swap.exchange, "cancel", (3,), MAKER, "CardExchangeNonceBelowMinimum", MAKER, 3, 5
    )
    swap.assert_reverts(
        swap.exchange,
        "invalidateNoncesBelow",
        (5,),
        MAKER,
        "CardExchangeMinNonceNotIncreased",
        5,
        5,
    )
    swap.send(swap.exchange, "fill", *high, sender=TAKER)


def test_all_or_nothing_when_one_leg_fails(swap: Chain) -> None:
    # the taker lacks the asked amount: the maker's leg is rolled back too
    o = offer(swap, asked_ids=(CARD_B,), asked_amounts=(11,))
    swap.assert_reverts(
        swap.exchange,
        "fill",
        signed(swap, o),
        TAKER,
        "ERC1155InsufficientBalance",
        TAKER,
        10,
        11,
        CARD_B,
    )
    assert balances(swap, MAKER) == [10, 0, 0] and balances(swap, TAKER) == [0, 10, 10]
    # the maker revoked the exchange's approval
    swap.send(swap.token, "setApprovalForAll", swap.exchange.address, False, sender=MAKER)
    swap.assert_reverts(
        swap.exchange,
        "fill",
        signed(swap, offer(swap, nonce=9)),
        TAKER,
        "ERC1155MissingApprovalForAll",
        swap.exchange.address,
        MAKER,
    )
    assert not swap.exchange.functions.isNonceUsed(MAKER, 9).call()


def test_eip1271_maker(swap: Chain) -> None:
    owner_key = ANVIL_DEV_KEYS[9]
    wallet = swap.deploy("ERC1271WalletMock", Account.from_key(owner_key).address)
    swap.send(swap.token, "mint", wallet.address, CARD_A, 5, b"", sender=swap.publisher)
    swap.send(
        wallet,
        "approve",
        swap.token.address,
        swap.exchange.address,
        sender=Account.from_key(owner_key).address,
    )
    o = offer(swap, maker=wallet.address, asked_wei=3)
    swap.send(swap.exchange, "fill", *signed(swap, o, key=owner_key), sender=TAKER, value=3)
    assert swap.token.functions.balanceOf(wallet.address, CARD_B).call() == 2
    assert swap.w3.eth.get_balance(wallet.address) == 3
    bad = offer(swap, maker=wallet.address, nonce=2)
    swap.assert_reverts(
        swap.exchange,
        "fill",
        signed(swap, bad, key="0x" + os.urandom(32).hex()),
        TAKER,
        "CardExchangeInvalidSignature",
        wallet.address,
    )


def test_eth_payment_refused_by_maker_reverts_everything(swap: Chain) -> None:
    owner_key = ANVIL_DEV_KEYS[9]
    owner = Account.from_key(owner_key).address
    wallet = swap.deploy("ERC1271WalletMock", owner)
    swap.send(swap.token, "mint", wallet.address, CARD_A, 5, b"", sender=swap.publisher)
    swap.send(wallet, "approve", swap.token.address, swap.exchange.address, sender=owner)
    swap.send(wallet, "setRejectsEth", True, sender=owner)
    o = offer(swap, maker=wallet.address, asked_ids=(), asked_amounts=(), asked_wei=5)
    swap.assert_reverts(
        swap.exchange, "fill", signed(swap, o, key=owner_key), TAKER, "FailedCall", value=5
    )
    assert swap.token.functions.balanceOf(wallet.address, CARD_A).call() == 5


def _reentrant_taker(swap: Chain) -> Any:
    attacker = swap.deploy("ReentrantTakerMock", swap.exchange.address)
    swap.send(
        swap.token,
        "mintBatch",
        attacker.address,
        [CARD_B, CARD_C],
        [10, 10],
        b"",
        sender=swap.publisher,
    )
    swap.send(attacker, "approve", swap.token.address, sender=TAKER)
    return attacker


def test_reentering_fill_with_the_same_offer_is_refused(swap: Chain) -> None:
    # fill spends the nonce before any transfer: a receiver hook can't fill the offer again
    attacker = _reentrant_taker(swap)
    first = signed(swap, offer(swap, nonce=1))
    reentry = swap.exchange.encode_abi("fill", list(first))
    swap.assert_reverts(
        attacker,
        "fillAndReenter",
        (*first, bytes.fromhex(reentry[2:])),
        TAKER,
        "CardExchangeNonceAlreadyUsed",
        MAKER,
        1,
    )
    assert balances(swap, MAKER) == [10, 0, 0]
    assert not swap.exchange.functions.isNonceUsed(MAKER, 1).call()
    assert not attacker.functions.reentered().call()


def test_reentering_fill_with_another_offer_is_just_a_second_fill(swap: Chain) -> None:
    # no reentrancy guard (contracts/SECURITY.md): a fill from a receiver hook is an ordinary
    # second fill with its own nonce, signature, cards and payment
    attacker = _reentrant_taker(swap)
    first, second = signed(swap, offer(swap, nonce=1)), signed(swap, offer(swap, nonce=2))
    reentry = swap.exchange.encode_abi("fill", list(second))
    receipt = swap.send(
        attacker, "fillAndReenter", *first, bytes.fromhex(reentry[2:]), sender=TAKER
    )
    assert attacker.functions.reentered().call()
    assert len(swap.events(swap.exchange, receipt, "OfferFilled")) == 2
    assert balances(swap, MAKER) == [4, 4, 2]
    assert balances(swap, attacker.address) == [6, 6, 8]
    assert all(swap.exchange.functions.isNonceUsed(MAKER, n).call() for n in (1, 2))


def test_open_offer_any_taker(swap: Chain) -> None:
    carol = swap.collectors[2]
    swap.send(swap.token, "mintBatch", carol, [CARD_B, CARD_C], [5, 5], b"", sender=swap.publisher)
    swap.send(swap.token, "setApprovalForAll", swap.exchange.address, True, sender=carol)
    o = offer(swap, taker=ZERO_ADDRESS)
    swap.send(swap.exchange, "fill", *signed(swap, o), sender=carol)
    assert swap.token.functions.balanceOf(carol, CARD_A).call() == 3
