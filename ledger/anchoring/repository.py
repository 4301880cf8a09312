"""The queries of anchoring: the outbox of signed results, batches and their on-chain states,
and each result's proof. Status changes are compare-and-set (`... WHERE status = <expected>`), so
two workers never both move one batch; helpers never commit, the unit of work does."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import delete, func, insert, select, text, update
from sqlmodel import Session, col

from ledger.db.models.anchoring import AnchorTransaction, Batch, BatchStatus, ResultProof, utcnow
from ledger.db.models.results import MatchResult, OutboxEntry

#: statuses of a batch on its way: closed (built), signed (transaction recorded), mined
UNFINISHED = (BatchStatus.CLOSED, BatchStatus.SIGNED, BatchStatus.MINED)
#: "MLANCH": the PostgreSQL advisory lock of the anchoring critical sections
_LOCK_KEY = 0x4D4C_414E_4348


def lock_anchoring(db: Session) -> None:
    """Serialise anchoring critical sections across workers (SQLite: BEGIN IMMEDIATE already does)."""
    if db.get_bind().dialect.name == "postgresql":
        db.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": _LOCK_KEY})


def _aware(value: datetime) -> datetime:
    """Timestamps without a zone are UTC (SQLite keeps no offset)."""
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


# -- the outbox ------------------------------------------------------------------------------


def unbatched(db: Session, limit: int) -> list[tuple[int, int, datetime, str]]:
    """(outbox id, result id, queued at, digest) of the oldest results not yet in a batch."""
    rows = db.execute(
        select(
            col(OutboxEntry.id),
            col(OutboxEntry.result_id),
            col(OutboxEntry.created_at),
            col(MatchResult.digest),
        )
        .join(MatchResult, col(MatchResult.id) == col(OutboxEntry.result_id))
        .where(col(OutboxEntry.batch_id).is_(None))
        .order_by(col(OutboxEntry.id))
        .limit(limit)
    ).all()
    return [(int(o), int(r), _aware(at), str(d)) for o, r, at, d in rows]


def pending_count(db: Session) -> int:
    """Results in the outbox not yet in a batch."""
    return int(
        db.execute(
            select(func.count()).select_from(OutboxEntry).where(col(OutboxEntry.batch_id).is_(None))
        ).scalar_one()
    )


def claim(db: Session, outbox_ids: Sequence[int], batch_id: int) -> int:
    """Put the outbox rows into `batch_id` where they are in no batch yet; how many were."""
    result: Any = db.execute(
        update(OutboxEntry)
        .where(col(OutboxEntry.id).in_(list(outbox_ids)))
        .where(col(OutboxEntry.batch_id).is_(None))
        .values(batch_id=batch_id)
    )
    return int(result.rowcount)


def backlog(db: Session) -> tuple[int, datetime | None]:
    """Results not yet in a confirmed batch (in the outbox, or in a batch still on its way),
    and when the oldest of them was queued."""
    unbatched_rows = select(func.count(), func.min(OutboxEntry.created_at)).where(
        col(OutboxEntry.batch_id).is_(None)
    )
    in_flight = (
        select(func.count(), func.min(OutboxEntry.created_at))
        .join(Batch, col(Batch.id) == col(OutboxEntry.batch_id))
        .where(col(Batch.status).in_(UNFINISHED))
    )
    count, oldest = 0, None
    for n, first in (db.execute(unbatched_rows).one(), db.execute(in_flight).one()):
        count += int(n)
        if first is not None:
            oldest = _aware(first) if oldest is None else min(oldest, _aware(first))
    return count, oldest


# -- batches ---------------------------------------------------------------------------------


def has_batches(db: Session) -> bool:
    """Whether any batch was ever closed."""
    return db.scalars(select(col(Batch.id)).limit(1)).first() is not None


def last_batch(db: Session) -> Batch | None:
    """The batch with the highest id."""
    return db.scalars(select(Batch).order_by(col(Batch.id).desc()).limit(1)).first()


def get_batch(db: Session, batch_id: int) -> Batch:
    """A batch by id (it exists: only ids read from the table are asked for)."""
    batch = db.get(Batch, batch_id)
    assert batch is not None, f"batch {batch_id} vanished"
    return batch


def recorded_mined_after(db: Session, block_number: int) -> int:
    """Batches recorded as mined or confirmed in a block after `block_number`."""
    return int(
        db.execute(
            select(func.count())
            .select_from(Batch)
            .where(
                col(Batch.status).in_((BatchStatus.MINED, BatchStatus.CONFIRMED)),
                col(Batch.block_number) > block_number,
            )
        ).scalar_one()
    )


def unfinished_count(db: Session) -> int:
    """Batches not yet confirmed."""
    return int(
        db.execute(
            select(func.count()).select_from(Batch).where(col(Batch.status).in_(UNFINISHED))
        ).scalar_one()
    )


def next_unfinished(db: Session) -> Batch | None:
    """The unfinished batch with the lowest id (one transaction in flight at a time)."""
    return db.scalars(
        select(Batch).where(col(Batch.status).in_(UNFINISHED)).order_by(col(Batch.id)).limit(1)
    ).first()


def add_batch(db: Session, batch: Batch, proofs: list[dict[str, Any]]) -> None:
    """Store a closed batch and the proofs of its results."""
    db.add(batch)
    db.flush()
    db.execute(insert(ResultProof), proofs)


def _set_if(db: Session, batch_id: int, where: Sequence[Any], **values: Any) -> bool:
    result: Any = db.execute(
        update(Batch).where(col(Batch.id) == batch_id, *where).values(**values)
    )
    return bool(result.rowcount)


def _record_transaction(
    db: Session, batch_id: int, nonce: int, raw_tx: str, tx_hash: str, fees: tuple[int, int]
) -> None:
    db.execute(
        insert(AnchorTransaction).values(
            batch_id=batch_id,
            nonce=nonce,
            tx_hash=tx_hash,
            raw_tx=raw_tx,
            max_fee_per_gas=fees[0],
            max_priority_fee_per_gas=fees[1],
            created_at=utcnow(),
        )
    )


def mark_signed(
    db: Session,
    batch_id: int,
    *,
    anchorer: str,
    nonce: int,
    raw_tx: str,
    tx_hash: str,
    fees: tuple[int, int],
) -> bool:
    """Record the signed anchor transaction (max fee, tip) of a closed batch; False if another
    worker did."""
    claimed = _set_if(
        db,
        batch_id,
        [col(Batch.status) == BatchStatus.CLOSED],
        status=BatchStatus.SIGNED,
        anchorer=anchorer,
        nonce=nonce,
        raw_tx=raw_tx,
        tx_hash=tx_hash,
        attempts=col(Batch.attempts) + 1,
        signed_at=utcnow(),
    )
    if claimed:
        _record_transaction(db, batch_id, nonce, raw_tx, tx_hash, fees)
    return claimed


def record_replacement(
    db: Session, batch_id: int, replaces: str, *, raw_tx: str, tx_hash: str, fees: tuple[int, int]
) -> bool:
    """Record a replacement (same nonce, higher fees) of the batch's transaction `replaces`;
    False if the batch moved on meanwhile (another worker replaced it, or it was mined)."""
    batch = get_batch(db, batch_id)
    replaced = _set_if(
        db,
        batch_id,
        [col(Batch.status) == BatchStatus.SIGNED, col(Batch.tx_hash) == replaces],
        raw_tx=raw_tx,
        tx_hash=tx_hash,
        attempts=col(Batch.attempts) + 1,
        signed_at=utcnow(),
    )
    if replaced:
        assert batch.nonce is not None
        _record_transaction(db, batch_id, batch.nonce, raw_tx, tx_hash, fees)
    return replaced


def transactions_of(db: Session, batch_id: int) -> list[AnchorTransaction]:
    """Every anchor transaction recorded for a batch, oldest first."""
    return list(
        db.scalars(
            select(AnchorTransaction)
            .where(col(AnchorTransaction.batch_id) == batch_id)
            .order_by(col(AnchorTransaction.id))
        )
    )


def unsign(db: Session, batch_id: int, tx_hash: str) -> None:
    """A recorded transaction that can never land: the batch is closed again (to be re-signed)."""
    _set_if(db, batch_id, [col(Batch.tx_hash) == tx_hash], status=BatchStatus.CLOSED)


def mark_mined(
    db: Session,
    batch_id: int,
    *,
    block_number: int,
    block_hash: str,
    tx_hash: str,
    gas_used: int | None = None,
) -> None:
    """Record where the batch's anchor transaction was mined (one of its recorded transactions
    becomes the batch's current one: the bytes re-sent should a reorg drop it)."""
    batch = get_batch(db, batch_id)
    batch.status = BatchStatus.MINED
    batch.block_number, batch.block_hash, batch.tx_hash = block_number, block_hash, tx_hash
    mined = db.scalars(
        select(AnchorTransaction).where(col(AnchorTransaction.tx_hash) == tx_hash)
    ).first()
    if mined is not None and mined.batch_id == batch_id:
        batch.raw_tx, batch.nonce = mined.raw_tx, mined.nonce
    if gas_used is not None:
        batch.gas_used = gas_used


def mark_confirmed(db: Session, batch_id: int, block_hash: str) -> bool:
    """Confirm a mined batch still in block `block_hash`; False if it changed meanwhile."""
    return _set_if(
        db,
        batch_id,
        [col(Batch.status) == BatchStatus.MINED, col(Batch.block_hash) == block_hash],
        status=BatchStatus.CONFIRMED,
        confirmed_at=utcnow(),
    )


def record_reorg(db: Session, batch_id: int, mined_again: tuple[int, str] | None) -> None:
    """The batch's block left the canonical chain: mined again at (number, hash), or back to
    signed (its recorded transaction is re-sent)."""
    batch = get_batch(db, batch_id)
    batch.reorgs += 1
    if mined_again is not None:
        batch.status = BatchStatus.MINED
        batch.block_number, batch.block_hash = mined_again
    else:
        batch.status = BatchStatus.SIGNED
        batch.block_number = batch.block_hash = None
        batch.confirmed_at = None


def supersede_from(db: Session, batch_id: int) -> list[int]:
    """Drop batch `batch_id` and every later one; their results go back to the outbox. The
    ids dropped."""
    lock_anchoring(db)
    ids = list(db.scalars(select(col(Batch.id)).where(col(Batch.id) >= batch_id)))
    db.execute(update(OutboxEntry).where(col(OutboxEntry.batch_id).in_(ids)).values(batch_id=None))
    db.execute(delete(ResultProof).where(col(ResultProof.batch_id).in_(ids)))
    db.execute(delete(AnchorTransaction).where(col(AnchorTransaction.batch_id).in_(ids)))
    db.execute(delete(Batch).where(col(Batch.id).in_(ids)))
    return ids


def recheck_candidates(db: Session, head: int, depth: int) -> list[Batch]:
    """Confirmed batches in the last `depth` blocks, and mined or confirmed ones recorded above
    the head (a reorg may have cut the chain below them), by id."""
    recent = list(
        db.scalars(
            select(Batch)
            .where(col(Batch.status) == BatchStatus.CONFIRMED)
            .where(col(Batch.block_number) >= head - depth)
            .order_by(col(Batch.id))
        )
    )
    beyond = db.scalars(
        select(Batch)
        .where(col(Batch.status).in_((BatchStatus.CONFIRMED, BatchStatus.MINED)))
        .where(col(Batch.block_number) > head)
    )
    seen = {b.id for b in recent}
    return recent + [b for b in beyond if b.id not in seen]


# -- proofs ----------------------------------------------------------------------------------


def confirmed_proof(db: Session, result_id: int) -> tuple[ResultProof, Batch] | None:
    """A result's proof and batch, once the batch is confirmed on-chain."""
    row = db.execute(
        select(ResultProof, Batch)
        .join(Batch, col(Batch.id) == col(ResultProof.batch_id))
        .where(col(ResultProof.result_id) == result_id)
        .where(col(Batch.status) == BatchStatus.CONFIRMED)
    ).first()
    return None if row is None else (row[0], row[1])


def proof_status(db: Session, result_id: int) -> str | None:
    """The status of the batch holding a result (None while it waits in the outbox)."""
    return db.scalars(
        select(col(Batch.status))
        .join(ResultProof, col(ResultProof.batch_id) == col(Batch.id))
        .where(col(ResultProof.result_id) == result_id)
    ).first()


def batch_leaves(db: Session, batch_id: int) -> list[tuple[ResultProof, MatchResult]]:
    """Every result of a batch with its proof row, by tree index."""
    rows = db.execute(
        select(ResultProof, MatchResult)
        .join(MatchResult, col(MatchResult.id) == col(ResultProof.result_id))
        .where(col(ResultProof.batch_id) == batch_id)
        .order_by(col(ResultProof.tree_index))
    ).all()
    return [(proof, result) for proof, result in rows]


def find_batch(db: Session, batch_id: int) -> Batch | None:
    """A batch by id, if there is one."""
    return db.get(Batch, batch_id)
