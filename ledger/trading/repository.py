"""The queries of the offer book: offers and their cards, the filters of the list, fills of a
wallet, a maker's highest nonce, and the card designs an offer names. Helpers never commit."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import ColumnElement, and_, func, or_
from sqlmodel import Session, col, select

from ledger.db.models import CardDesign
from ledger.db.models.trading import BookOffer, OfferFill, OfferItem


@dataclass(frozen=True)
class OfferFilter:
    """What `GET /offers` narrows the book to (None: any)."""

    status: str | None = "open"
    game: str | None = None
    card: str | None = None  # a token id as 0x-hex
    side: str | None = None  # "given" (the maker sells it) or "asked" (the maker wants it)
    maker: str | None = None
    taker: str | None = None


#: how the list is ordered: by arrival, or ETH offers by their asked wei
SORTS = ("newest", "oldest", "price_asc", "price_desc")


def designs_by_token(db: Session, token_ids: Sequence[str]) -> dict[str, CardDesign]:
    """token id (0x-hex) -> card design, for those of `token_ids` in the catalogue."""
    if not token_ids:
        return {}
    rows = db.exec(select(CardDesign).where(col(CardDesign.token_id).in_(set(token_ids)))).all()
    return {d.token_id: d for d in rows}


def offer_by_hash(db: Session, offer_hash: str) -> BookOffer | None:
    """The offer with EIP-712 digest `offer_hash` (0x-hex, lower case)."""
    return db.exec(select(BookOffer).where(col(BookOffer.offer_hash) == offer_hash)).first()


def add_offer(db: Session, offer: BookOffer, items: Sequence[OfferItem]) -> BookOffer:
    """Store an offer and its cards."""
    db.add(offer)
    db.flush()
    assert offer.id is not None
    for item in items:
        item.offer_id = offer.id
    db.add_all(items)
    db.flush()
    return offer


def set_status(db: Session, offer: BookOffer, status: str, reason: str | None) -> None:
    """Give `offer` a status and its reason."""
    offer.set_status(status, reason)
    db.add(offer)
    db.flush()


#: above this many cards of a game in the book, the game filter walks the offers in order and
#: probes each one's cards (EXISTS); below it, it collects the few matching offers first (IN)
_COMMON_GAME = 500


def _card_condition(db: Session, f: OfferFilter) -> list[ColumnElement[bool]]:
    conditions: list[ColumnElement[bool]] = []
    if f.card is not None:
        card = [col(OfferItem.token_id) == f.card]
        if f.side is not None:
            card.append(col(OfferItem.side) == f.side)
        conditions.append(col(BookOffer.id).in_(select(col(OfferItem.offer_id)).where(*card)))
    if f.game is not None:
        in_game = col(OfferItem.game) == f.game
        items = db.exec(
            select(func.count()).select_from(
                select(col(OfferItem.offer_id)).where(in_game).limit(_COMMON_GAME + 1).subquery()
            )
        ).one()
        if items > _COMMON_GAME:
            conditions.append(
                select(col(OfferItem.offer_id))
                .where(col(OfferItem.offer_id) == col(BookOffer.id), in_game)
                .exists()
            )
        else:
            conditions.append(col(BookOffer.id).in_(select(col(OfferItem.offer_id)).where(in_game)))
    return conditions


def list_offers(
    db: Session,
    f: OfferFilter,
    sort: str,
    after: tuple[str, int] | None,
    limit: int,
) -> list[BookOffer]:
    """One page of offers matching `f`, ordered by `sort`, after the cursor (sort key, id)."""
    query = select(BookOffer)
    if f.status is not None:
        query = query.where(col(BookOffer.status) == f.status)
    if f.maker is not None:
        query = query.where(col(BookOffer.maker) == f.maker)
    if f.taker is not None:
        query = query.where(col(BookOffer.taker) == f.taker)
    for condition in _card_condition(db, f):
        query = query.where(condition)
    offer_id, wei = col(BookOffer.id), col(BookOffer.asked_wei)
    order: tuple[Any, ...]
    if sort in ("price_asc", "price_desc"):
        query = query.where(wei > "0".zfill(78))
        if after is not None:
            key, last = after
            if sort == "price_asc":
                query = query.where(or_(wei > key, and_(wei == key, offer_id > last)))
            else:
                query = query.where(or_(wei < key, and_(wei == key, offer_id < last)))
        order = (wei, offer_id) if sort == "price_asc" else (wei.desc(), offer_id.desc())
    else:
        if after is not None:
            query = query.where(offer_id < after[1] if sort == "newest" else offer_id > after[1])
        order = (offer_id.desc(),) if sort == "newest" else (offer_id,)
    return list(db.exec(query.order_by(*order).limit(limit)).all())


def highest_nonce(db: Session, maker: str) -> int | None:
    """The highest nonce among `maker`'s offers in the book (None if it has none)."""
    value = db.exec(
        select(func.max(col(BookOffer.nonce))).where(col(BookOffer.maker) == maker)
    ).first()
    return None if value is None else int(value)


def fill_of(db: Session, offer_hash: str) -> OfferFill | None:
    """The indexed fill of an offer, if any."""
    return db.exec(select(OfferFill).where(col(OfferFill.offer_hash) == offer_hash)).first()


def fills_of_wallet(
    db: Session, address: str, after: tuple[int, int] | None, limit: int
) -> list[OfferFill]:
    """`address`'s fills as maker or taker, newest first, after the cursor (block, log index)."""
    query = select(OfferFill).where(
        or_(col(OfferFill.maker) == address, col(OfferFill.taker) == address)
    )
    if after is not None:
        block, log_index = after
        query = query.where(
            or_(
                col(OfferFill.block_number) < block,
                and_(col(OfferFill.block_number) == block, col(OfferFill.log_index) < log_index),
            )
        )
    order = (col(OfferFill.block_number).desc(), col(OfferFill.log_index).desc())
    return list(db.exec(query.order_by(*order).limit(limit)).all())
