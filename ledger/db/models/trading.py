"""The offer book: makers' signed CardExchange offers, their cards by side, and indexed fills.

uint256 values that are compared or sorted (asked wei, nonces) are stored as 78-digit
zero-padded decimal strings, so that text order is numeric order on every database; token ids
are 0x-prefixed 64-digit hex (as `card_designs.token_id`); addresses checksummed.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, BigInteger, Column, Index, Text, UniqueConstraint
from sqlmodel import Field, SQLModel

from ledger.db.models.base import utcnow
from ledger.protocol.eip712 import Offer

#: digits of the largest uint256 (2**256 - 1 has 78)
UINT256_DIGITS = 78


def uint256_key(value: int) -> str:
    """A uint256 as the zero-padded decimal string it is stored and ordered by."""
    return str(value).zfill(UINT256_DIGITS)


class BookOffer(SQLModel, table=True):
    """One signed offer in the book. `id` is the order of arrival (the pagination cursor)."""

    __tablename__ = "offers"
    __table_args__ = (
        Index("ix_offers_status_id", "status", "id"),
        Index("ix_offers_status_price", "status", "asked_wei", "id"),
        Index("ix_offers_maker_status", "maker", "status", "id"),
        Index("ix_offers_taker_status", "taker", "status", "id"),
        Index("ix_offers_maker_nonce", "maker", "nonce"),
    )

    id: int | None = Field(default=None, primary_key=True)
    offer_hash: str = Field(max_length=66, unique=True)
    chain_id: int
    exchange: str = Field(max_length=42)
    maker: str = Field(max_length=42)
    #: the zero address when anyone may fill it
    taker: str = Field(max_length=42)
    asked_wei: str = Field(max_length=UINT256_DIGITS)
    expiry: int = Field(sa_column=Column(BigInteger, nullable=False))
    nonce: str = Field(max_length=UINT256_DIGITS)
    signature: str = Field(sa_column=Column(Text, nullable=False))
    maker_is_contract: bool = False
    #: [[token id, amount], ...] in the signed order
    given: list[Any] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    asked: list[Any] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    #: open, filled, cancelled, withdrawn, expired, unfillable (docs/trading.md)
    status: str = Field(max_length=16)
    status_reason: str | None = Field(default=None, max_length=32)
    created_at: datetime = Field(default_factory=utcnow)
    updated_at: datetime = Field(default_factory=utcnow)

    def signed_offer(self) -> Offer:
        """The EIP-712 struct the maker signed."""
        return Offer(
            maker=self.maker,
            taker=self.taker,
            given_ids=tuple(int(t, 16) for t, _ in self.given),
            given_amounts=tuple(int(n) for _, n in self.given),
            asked_ids=tuple(int(t, 16) for t, _ in self.asked),
            asked_amounts=tuple(int(n) for _, n in self.asked),
            asked_wei=int(self.asked_wei),
            expiry=int(self.expiry),
            nonce=int(self.nonce),
        )

    def message(self) -> dict[str, Any]:
        """The signed EIP-712 message, as `Offer.as_message()` gives it, from the stored
        (canonical) values without re-deriving checksums."""
        return {
            "maker": self.maker,
            "taker": self.taker,
            "givenIds": [str(int(t, 16)) for t, _ in self.given],
            "givenAmounts": [str(n) for _, n in self.given],
            "askedIds": [str(int(t, 16)) for t, _ in self.asked],
            "askedAmounts": [str(n) for _, n in self.asked],
            "askedWei": str(int(self.asked_wei)),
            "expiry": int(self.expiry),
            "nonce": str(int(self.nonce)),
        }

    def set_status(self, status: str, reason: str | None) -> bool:
        """Give the offer a status and its reason; whether that changed anything."""
        if (self.status, self.status_reason) == (status, reason):
            return False
        self.status, self.status_reason, self.updated_at = status, reason, utcnow()
        return True


class OfferItem(SQLModel, table=True):
    """One card of an offer, on the side the maker gives or asks for (the card and game
    filters of the book)."""

    __tablename__ = "offer_items"
    __table_args__ = (
        Index("ix_offer_items_card", "token_id", "side", "offer_id"),
        Index("ix_offer_items_game", "game", "offer_id"),
    )

    offer_id: int = Field(foreign_key="offers.id", primary_key=True)
    side: str = Field(primary_key=True, max_length=5)  # "given" or "asked"
    token_id: str = Field(primary_key=True, max_length=66)
    amount: int = Field(sa_column=Column(BigInteger, nullable=False))
    game: str = Field(max_length=32)


class OfferFill(SQLModel, table=True):
    """An OfferFilled event, with what each side gave (from the book; None for an offer the
    book never held)."""

    __tablename__ = "offer_fills"
    __table_args__ = (UniqueConstraint("tx_hash", "log_index", name="uq_offer_fills_log"),)

    id: int | None = Field(default=None, primary_key=True)
    offer_hash: str = Field(index=True, max_length=66)
    maker: str = Field(index=True, max_length=42)
    taker: str = Field(index=True, max_length=42)
    nonce: str = Field(max_length=UINT256_DIGITS)
    block_number: int = Field(index=True)
    block_hash: str = Field(max_length=66)
    tx_hash: str = Field(max_length=66)
    log_index: int
    maker_gave: list[Any] | None = Field(default=None, sa_column=Column(JSON, nullable=True))
    taker_gave: list[Any] | None = Field(default=None, sa_column=Column(JSON, nullable=True))
    wei: str | None = Field(default=None, max_length=UINT256_DIGITS)
