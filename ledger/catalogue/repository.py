"""The queries of the catalogue: stored card designs, and the indexer's balances a collection is read from."""

from __future__ import annotations

from collections.abc import Sequence

from sqlmodel import Session, col, select

from ledger.db.models import (
    CardDesign,
)
from ledger.db.models.indexing import IndexerCursor, TokenBalance


def card_designs(db: Session, game: str) -> Sequence[CardDesign]:
    """Every card design of `game`, by card id."""
    return db.exec(
        select(CardDesign).where(col(CardDesign.game) == game).order_by(col(CardDesign.card_id))
    ).all()


def card_design(db: Session, token_id: str) -> CardDesign | None:
    """The card design of a token id (0x-hex, lower case)."""
    return db.get(CardDesign, token_id)


def all_card_designs(db: Session) -> Sequence[CardDesign]:
    """Every card design of every game."""
    return db.exec(select(CardDesign).order_by(col(CardDesign.game), col(CardDesign.card_id))).all()


def card_design_hashes(db: Session) -> dict[str, str]:
    """game -> catalogue hash of the stored designs."""
    rows = db.exec(select(CardDesign.game, CardDesign.catalogue_hash).distinct()).all()
    return {game: h for game, h in rows}


def delete_card_designs(db: Session, game: str) -> None:
    """Remove the stored designs of `game` (before re-syncing a changed catalogue)."""
    for row in db.exec(select(CardDesign).where(col(CardDesign.game) == game)).all():
        db.delete(row)
    db.flush()


def add_card_designs(db: Session, rows: Sequence[CardDesign]) -> None:
    """Store card designs."""
    db.add_all(rows)
    db.flush()


def indexer_block(db: Session, contract: str) -> int | None:
    """The last block the indexer has read for `contract`, or None if it never ran."""
    cursor = db.get(IndexerCursor, contract)
    return None if cursor is None else int(cursor.last_block)


def indexed_holdings(db: Session, owner: str, game: str | None) -> list[tuple[CardDesign, int]]:
    """(design, balance) of every card design `owner` holds according to the indexer."""
    query = (
        select(CardDesign, TokenBalance.amount)
        .join(TokenBalance, col(TokenBalance.token_id) == col(CardDesign.token_id))
        .where(col(TokenBalance.owner) == owner, col(TokenBalance.amount) > 0)
        .order_by(col(CardDesign.game), col(CardDesign.card_id))
    )
    if game is not None:
        query = query.where(col(CardDesign.game) == game)
    return [(d, int(a)) for d, a in db.exec(query).all()]
