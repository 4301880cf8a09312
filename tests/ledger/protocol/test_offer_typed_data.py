"""The Offer and OfferWithdrawal typed data agree with eth-account's generic EIP-712 signer, and an
offer's message round-trips (uint256 values as decimal strings)."""

from __future__ import annotations

from eth_account import Account

from ledger.protocol import eip712

KEY = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"
EXCHANGE = "0x5FbDB2315678afecb367f032d93F642f64180aa3"


def test_offer_message_round_trips_and_signs_as_wallets_do() -> None:
    offer = eip712.Offer(
        maker=Account.from_key(KEY).address,
        given_ids=(2**255 + 7,),
        given_amounts=(3,),
        asked_wei=10**24,
        nonce=2**200,
        expiry=2_000_000_000,
    )
    typed = eip712.offer_typed_data(offer, 31337, EXCHANGE)
    assert typed["message"]["givenIds"] == [str(2**255 + 7)] and typed["message"][
        "askedWei"
    ] == str(10**24)
    assert eip712.Offer.from_message(typed["message"]) == offer
    wallet = bytes(Account.sign_typed_data(KEY, full_message=typed).signature)
    assert wallet == eip712.sign_offer(KEY, offer, 31337, EXCHANGE)


def test_withdrawal_signs_as_wallets_do_and_binds_the_domain() -> None:
    withdrawal = eip712.OfferWithdrawal("0x" + "ab" * 32)
    typed = eip712.typed_data(withdrawal, 31337, EXCHANGE)
    assert typed["primaryType"] == "OfferWithdrawal"
    assert typed["domain"]["name"] == "MetaLedger CardExchange"
    wallet = bytes(Account.sign_typed_data(KEY, full_message=typed).signature)
    assert wallet == eip712.sign(KEY, withdrawal, 31337, EXCHANGE)
    assert eip712.digest(withdrawal, 1, EXCHANGE) != eip712.digest(withdrawal, 31337, EXCHANGE)
