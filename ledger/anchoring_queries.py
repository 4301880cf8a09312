"""Queries of the anchoring work: batches, proofs and what a match bundle needs."""

from __future__ import annotations

from sqlalchemy import select
from sqlmodel import Session, col

from ledger.db.models.anchoring import Batch, BatchStatus, ResultProof
from ledger.db.models.matches import Match, MatchSeat
from ledger.db.models.results import MatchResult


def result_of_match(session: Session, match_id: str) -> MatchResult | None:
    """The signed result of a match."""
    return session.scalars(select(MatchResult).where(col(MatchResult.match_id) == match_id)).first()


def match_and_seats(session: Session, match_id: str) -> tuple[Match | None, list[MatchSeat]]:
    """A match and its seats by seat number."""
    match = session.get(Match, match_id)
    seats = list(
        session.scalars(
            select(MatchSeat)
            .where(col(MatchSeat.match_id) == match_id)
            .order_by(col(MatchSeat.seat))
        )
    )
    return match, seats


def confirmed_proof(session: Session, result_id: int) -> tuple[ResultProof, Batch] | None:
    """A result's proof and batch, once the batch is confirmed on-chain."""
    row = session.execute(
        select(ResultProof, Batch)
        .join(Batch, col(Batch.id) == col(ResultProof.batch_id))
        .where(col(ResultProof.result_id) == result_id)
        .where(col(Batch.status) == BatchStatus.CONFIRMED)
    ).first()
    return None if row is None else (row[0], row[1])


def proof_status(session: Session, result_id: int) -> str | None:
    """The status of the batch holding a result (None while it waits in the outbox)."""
    return session.scalars(
        select(col(Batch.status))
        .join(ResultProof, col(ResultProof.batch_id) == col(Batch.id))
        .where(col(ResultProof.result_id) == result_id)
    ).first()
