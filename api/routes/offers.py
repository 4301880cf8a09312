"""The offer book: signed CardExchange offers, their fill and cancel transactions, a wallet's
trades (docs/trading.md). No session: every write is authorised by the maker's signature."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Path, Query, Response
from fastapi.responses import JSONResponse

from api import ratelimit
from api import trading_schemas as schemas
from api.deps import Ctx, run
from ledger.protocol.addresses import parse_address
from ledger.trading import service as trading

router = APIRouter(tags=["trading"], dependencies=[ratelimit.PUBLIC])

OfferHash = Annotated[
    str, Path(pattern=r"^0x[0-9a-fA-F]{64}$", description="the offer's EIP-712 digest")
]
WalletAddress = Annotated[str, Path(max_length=42)]
AddressQuery = Annotated[str | None, Query(max_length=42)]


@router.get("/exchange", response_model=schemas.ExchangeOut)
def exchange(ctx: Ctx) -> Any:
    """The CardExchange domain, the EIP-712 types of `Offer` and `OfferWithdrawal`, the limits,
    and the approval transaction a maker sends once."""
    return trading.exchange_info(ctx)


@router.post("/offers", response_model=schemas.OfferOut, status_code=201)
def submit(body: schemas.OfferIn, ctx: Ctx, response: Response) -> Any:
    """Check a maker's signed offer (shape, domain, expiry, signature, nonce, the maker's cards
    and approval) and put it on the book; 200 with the stored offer if it is already there."""
    view, created = trading.submit_offer(
        ctx, body.domain.model_dump(), body.offer.model_dump(), body.signature
    )
    if not created:
        response.status_code = 200
    return view


@router.get("/offers", response_model=schemas.OfferPageOut)
def book(
    ctx: Ctx,
    status: Annotated[str, Query(max_length=16, description="a status, or any")] = "open",
    game: Annotated[str | None, Query(max_length=32)] = None,
    card: Annotated[str | None, Query(max_length=80, description="a token id")] = None,
    side: Annotated[
        Literal["selling", "asking"] | None,
        Query(description="with card: offers selling it or asking for it"),
    ] = None,
    maker: AddressQuery = None,
    taker: AddressQuery = None,
    sort: Annotated[
        Literal["newest", "oldest", "price_asc", "price_desc"],
        Query(description="price_*: offers asking wei only, by askedWei"),
    ] = "newest",
    cursor: Annotated[str | None, Query(max_length=200)] = None,
    limit: Annotated[int, Query(ge=1, le=trading.MAX_PAGE)] = 20,
) -> Any:
    """The book, filtered and paginated (newest first unless sorted by price)."""
    f = trading.offer_filter(
        status=status, game=game, card=card, side=side, maker=maker, taker=taker
    )
    page = run(ctx, lambda db: trading.list_offers(db, ctx, f, sort, cursor, limit), write=False)
    # sent as built (the hot list): the service's views already have the answer's shape
    return JSONResponse({"offers": trading.plain(page.items), "next_cursor": page.next_cursor})


@router.get("/offers/{offer_hash}", response_model=schemas.OfferOut)
def one(offer_hash: OfferHash, ctx: Ctx) -> Any:
    """One offer, with its fill once filled."""
    return run(ctx, lambda db: trading.get_offer(db, ctx, offer_hash), write=False)


@router.delete("/offers/{offer_hash}", response_model=schemas.WithdrawnOut)
def withdraw(offer_hash: OfferHash, body: schemas.WithdrawalIn, ctx: Ctx) -> Any:
    """Withdraw an offer from the book with the maker's signature of
    `OfferWithdrawal(offerHash)`; the answer carries the on-chain cancel, without which anyone
    holding the signed offer can still fill it."""
    view = trading.withdraw_offer(ctx, offer_hash, body.signature)
    return {
        "offer": view,
        "cancel_transaction": trading.cancel_transaction(ctx, offer_hash)["transaction"],
    }


@router.get("/offers/{offer_hash}/fill", response_model=schemas.FillTransactionOut)
def fill(offer_hash: OfferHash, ctx: Ctx, taker: Annotated[str, Query(max_length=42)]) -> Any:
    """The transaction `taker` sends to fill the offer, what each side gives and gets, the
    taker's approval if needed, and a dry run naming the error it would revert with."""
    return trading.fill_transaction(ctx, offer_hash, taker)


@router.get("/offers/{offer_hash}/cancel", response_model=schemas.CancelTransactionOut)
def cancel(offer_hash: OfferHash, ctx: Ctx) -> Any:
    """The maker's on-chain cancel of the offer (`CardExchange.cancel(nonce)`)."""
    return trading.cancel_transaction(ctx, offer_hash)


@router.get("/wallets/{address}/trades", response_model=schemas.TradesOut)
def trades(
    address: WalletAddress,
    ctx: Ctx,
    cursor: Annotated[str | None, Query(max_length=200)] = None,
    limit: Annotated[int, Query(ge=1, le=trading.MAX_PAGE)] = 20,
) -> Any:
    """A wallet's fills as maker or taker, newest first, with block, transaction and both legs."""
    page = run(ctx, lambda db: trading.trades(db, ctx, address, cursor, limit), write=False)
    owner = parse_address(address, "address")
    return {"address": owner, "trades": page.items, "next_cursor": page.next_cursor}


@router.get("/wallets/{address}/offer-nonce", response_model=schemas.OfferNonceOut)
def offer_nonce(address: WalletAddress, ctx: Ctx) -> Any:
    """A nonce for the wallet's next offer (unused on-chain, above its offers in the book)."""
    return run(ctx, lambda db: trading.next_nonce(db, ctx, address), write=False)
