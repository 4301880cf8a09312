"""The queries of the offer book's indexer: fills, and the offers whose status it keeps. Helpers
never commit; the indexer commits the cursor with the fills it covers."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from sqlalchemy import delete
from sqlmodel import Session, col, select

from ledger.db.models.trading import BookOffer, OfferFill


def remove_fills_from(db: Session, block: int) -> set[str]:
    """Delete the fills of `block` and later (they are read again); the makers they named."""
    makers = set(db.exec(select(OfferFill.maker).where(col(OfferFill.block_number) >= block)).all())
    if makers:
        db.execute(delete(OfferFill).where(col(OfferFill.block_number) >= block))
    return makers


def add_fill(db: Session, fill: OfferFill) -> None:
    """Store one fill."""
    db.add(fill)
    db.flush()


def filled_hashes(db: Session, offer_hashes: Iterable[str]) -> set[str]:
    """Those of `offer_hashes` that have an indexed fill."""
    wanted = set(offer_hashes)
    if not wanted:
        return set()
    return set(
        db.exec(select(OfferFill.offer_hash).where(col(OfferFill.offer_hash).in_(wanted))).all()
    )


def book_offer(db: Session, offer_hash: str) -> BookOffer | None:
    """The book's offer with this hash, if the book holds it."""
    return db.exec(select(BookOffer).where(col(BookOffer.offer_hash) == offer_hash)).first()


def offers_of(db: Session, makers: Iterable[str], statuses: Sequence[str]) -> list[BookOffer]:
    """Every offer of `makers` in one of `statuses`."""
    wanted = set(makers)
    if not wanted:
        return []
    return list(
        db.exec(
            select(BookOffer).where(
                col(BookOffer.maker).in_(wanted), col(BookOffer.status).in_(statuses)
            )
        ).all()
    )


def offers_with_nonce(db: Session, maker: str, nonce_key: str) -> list[BookOffer]:
    """`maker`'s offers with this nonce (stored form)."""
    return list(
        db.exec(
            select(BookOffer).where(
                col(BookOffer.maker) == maker, col(BookOffer.nonce) == nonce_key
            )
        ).all()
    )


def expirable(db: Session, now: int, statuses: Sequence[str]) -> list[BookOffer]:
    """Offers in one of `statuses` whose expiry is at or before `now`."""
    return list(
        db.exec(
            select(BookOffer).where(
                col(BookOffer.status).in_(statuses), col(BookOffer.expiry) <= now
            )
        ).all()
    )


def mark(db: Session, offer: BookOffer, status: str, reason: str | None) -> bool:
    """Give `offer` a status and reason; whether that changed anything."""
    changed = offer.set_status(status, reason)
    db.add(offer)
    return changed
