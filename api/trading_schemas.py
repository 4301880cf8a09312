"""Request and response bodies of the offer book (docs/trading.md, docs/api.md).

uint256 values (token ids, amounts, wei, nonces) are decimal strings in answers; requests may
send them as JSON integers (up to 2**63 - 1) or decimal strings (token ids also as 0x-hex).
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

from api.schemas import FROM_ROWS, STRICT_INPUT
from ledger.protocol.eip712 import ZERO_ADDRESS
from ledger.protocol.untrusted import INT64_MAX
from ledger.trading.service import MAX_IDS_PER_SIDE, CardAmount, FillView, OfferView

#: a uint256 in a request: a JSON integer, a decimal string, or (token ids) 0x-hex
Uint = (
    Annotated[str, Field(min_length=1, max_length=80, pattern=r"^(0x[0-9a-fA-F]{1,64}|[0-9]+)$")]
    | Annotated[int, Field(ge=0, le=INT64_MAX)]
)
Address = Annotated[str, Field(max_length=42)]
IdList = Annotated[list[Uint], Field(max_length=MAX_IDS_PER_SIDE)]


class DomainIn(BaseModel):
    """The EIP-712 domain the offer was signed in (must be this exchange's: GET /exchange)."""

    model_config = STRICT_INPUT
    name: str = Field(max_length=64)
    version: str = Field(max_length=16)
    chainId: int = Field(ge=0, le=INT64_MAX)
    verifyingContract: Address


class OfferMessageIn(BaseModel):
    """The EIP-712 `Offer` message, field for field as signed."""

    model_config = STRICT_INPUT
    maker: Address
    taker: Address = Field(ZERO_ADDRESS, description="the zero address: anyone may fill it")
    givenIds: IdList
    givenAmounts: IdList
    askedIds: IdList = Field(default_factory=list)
    askedAmounts: IdList = Field(default_factory=list)
    askedWei: Uint = "0"
    expiry: Uint = Field(description="unix seconds; the offer can be filled up to and at it")
    nonce: Uint


class OfferIn(BaseModel):
    """A maker's signed offer."""

    model_config = STRICT_INPUT
    domain: DomainIn
    offer: OfferMessageIn
    signature: str = Field(
        pattern=r"^0x[0-9a-fA-F]*$",
        max_length=10_000,
        description="the maker's EIP-712 signature (65 bytes r,s,v for a key; any for EIP-1271)",
    )


class WithdrawalIn(BaseModel):
    """The maker's EIP-712 signature of `OfferWithdrawal(bytes32 offerHash)`."""

    model_config = STRICT_INPUT
    signature: str = Field(pattern=r"^0x[0-9a-fA-F]*$", max_length=10_000)


class CardAmountOut(CardAmount):
    """Copies of one card design (game, card and name null for an id outside the catalogue)."""

    model_config = FROM_ROWS


class FillOut(FillView):
    """An indexed fill: who, where on the chain, and what each side gave (null when the book
    never held the offer)."""

    model_config = FROM_ROWS
    maker_gave: list[CardAmountOut] | None
    taker_gave: list[CardAmountOut] | None
    wei: str | None = Field(description="wei the taker paid, as a decimal string")


class OfferOut(OfferView):
    """An offer of the book."""

    model_config = FROM_ROWS
    given: list[CardAmountOut] = Field(description="the cards the maker gives")
    asked: list[CardAmountOut] = Field(description="the cards the maker asks for")
    fill: FillOut | None = None


class OfferPageOut(BaseModel):
    """A page of the book; pass `next_cursor` as `cursor` for the next (null at the end)."""

    offers: list[OfferOut]
    next_cursor: str | None


class TradesOut(BaseModel):
    """A wallet's fills, newest first."""

    address: str
    trades: list[FillOut]
    next_cursor: str | None


class TransactionOut(BaseModel):
    """A transaction for the collector's own wallet to sign and send (value in wei, decimal)."""

    model_config = ConfigDict(populate_by_name=True)
    sender: str | None = Field(None, alias="from")
    to: str
    data: str
    value: str


class LegOut(BaseModel):
    """What one side gives or gets."""

    cards: list[CardAmountOut]
    wei: str


class RevertOut(BaseModel):
    """A custom error by name, with its arguments by name."""

    name: str
    args: dict[str, Any]


class SimulationOut(BaseModel):
    """A dry run of the transaction at the latest block."""

    ok: bool
    error: RevertOut | None


class ApprovalOut(BaseModel):
    """Whether the taker must first approve the exchange (CardToken.setApprovalForAll)."""

    needed: bool
    transaction: TransactionOut | None


class FillTransactionOut(BaseModel):
    """The fill a taker sends, and what each side gives and gets."""

    offer_hash: str
    status: str
    chain_id: int
    transaction: TransactionOut
    taker_gives: LegOut
    taker_gets: LegOut
    maker_gives: LegOut
    maker_gets: LegOut
    approval: ApprovalOut
    simulation: SimulationOut


class CancelTransactionOut(BaseModel):
    """The on-chain cancel the maker sends (`CardExchange.cancel(nonce)`)."""

    offer_hash: str
    chain_id: int
    transaction: TransactionOut


class WithdrawnOut(BaseModel):
    """The offer, now withdrawn from the book, and the on-chain cancel that also stops anyone
    holding the signed offer from filling it."""

    offer: OfferOut
    cancel_transaction: TransactionOut


class OfferNonceOut(BaseModel):
    """A nonce for a maker's next offer."""

    maker: str
    min_nonce: str
    next_nonce: str


class ExchangeOut(BaseModel):
    """What a wallet needs to sign offers here."""

    chain_id: int
    exchange: str
    card_token: str
    domain: dict[str, Any]
    types: dict[str, Any]
    max_ids_per_side: int
    statuses: list[str]
    approval_transaction: TransactionOut
