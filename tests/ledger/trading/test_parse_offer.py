"""The offer parser: every field checked, each refusal naming its field."""

from __future__ import annotations

from typing import Any

import pytest

from ledger.errors import InvalidInput
from ledger.protocol.eip712 import ZERO_ADDRESS
from ledger.trading.service import MAX_IDS_PER_SIDE, parse_offer

MAKER = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"
TAKER = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"


def message(**changes: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "maker": MAKER,
        "taker": ZERO_ADDRESS,
        "givenIds": ["5"],
        "givenAmounts": [2],
        "askedIds": ["0x07"],
        "askedAmounts": ["1"],
        "askedWei": "0",
        "expiry": 2_000_000_000,
        "nonce": "1",
    }
    base.update(changes)
    return base


def test_a_good_offer_parses_with_numbers_in_any_accepted_form() -> None:
    offer = parse_offer(message(maker=MAKER.lower(), askedWei=str(10**30)))
    assert offer.maker == MAKER and offer.given_ids == (5,) and offer.asked_ids == (7,)
    assert offer.asked_wei == 10**30 and offer.given_amounts == (2,)


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"givenAmounts": [0]}, "offer.givenAmounts[0]"),
        ({"givenIds": ["5", "5"], "givenAmounts": [1, 1]}, "offer.givenIds[1]"),
        ({"givenIds": ["5", "6"]}, "offer.givenAmounts"),
        ({"givenIds": [], "givenAmounts": []}, "offer.givenIds"),
        ({"askedIds": ["5"]}, "offer.askedIds[0]"),
        ({"askedIds": [], "askedAmounts": []}, "offer.askedIds"),
        ({"givenIds": [str(i) for i in range(MAX_IDS_PER_SIDE + 1)]}, "offer.givenIds"),
        ({"givenIds": [str(2**256)]}, "offer.givenIds[0]"),
        ({"givenIds": ["-1"]}, "offer.givenIds[0]"),
        ({"givenIds": ["007"]}, "offer.givenIds[0]"),
        ({"givenAmounts": [2**63]}, "offer.givenAmounts[0]"),
        ({"askedWei": "1.5"}, "offer.askedWei"),
        ({"expiry": 0}, "offer.expiry"),
        ({"expiry": 2**63}, "offer.expiry"),
        ({"nonce": True}, "offer.nonce"),
        ({"maker": "0x123"}, "offer.maker"),
        ({"maker": "0xF39Fd6e51aad88F6F4ce6aB8827279cffFb92266"}, "offer.maker"),
        ({"taker": MAKER}, "offer.taker"),
    ],
)
def test_each_refusal_names_its_field(changes: dict[str, Any], field: str) -> None:
    with pytest.raises(InvalidInput) as refused:
        parse_offer(message(**changes))
    assert refused.value.extra["field"] == field


def test_a_named_taker() -> None:
    assert parse_offer(message(taker=TAKER.lower())).taker == TAKER
