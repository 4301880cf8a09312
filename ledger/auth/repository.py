"""The queries of sign-in: wallets, single-use nonces and sessions (only token hashes are stored)."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import bindparam, delete, func, update
from sqlalchemy import select as sa_select
from sqlmodel import Session, col, select

from ledger.db.models import Session as SessionRow
from ledger.db.models import (
    SigninNonce,
    Wallet,
)


def upsert_wallet(db: Session, address: str, *, is_contract: bool, now: datetime) -> Wallet:
    """Create or touch the wallet row of `address`."""
    wallet = db.get(Wallet, address)
    if wallet is None:
        wallet = Wallet(address=address, is_contract=is_contract, created_at=now, last_seen_at=now)
        db.add(wallet)
    else:
        wallet.last_seen_at = now
        wallet.is_contract = is_contract
    db.flush()
    return wallet


def add_nonce(db: Session, nonce: str, *, now: datetime, expires_at: datetime) -> SigninNonce:
    """Store a fresh sign-in nonce."""
    row = SigninNonce(nonce=nonce, created_at=now, expires_at=expires_at)
    db.add(row)
    db.flush()
    return row


def consume_nonce(db: Session, nonce: str, *, now: datetime) -> bool:
    """Mark `nonce` used if it exists, is unused and unexpired; True if this call consumed it."""
    result = db.execute(
        update(SigninNonce)
        .where(
            col(SigninNonce.nonce) == nonce,
            col(SigninNonce.used_at).is_(None),
            col(SigninNonce.expires_at) > now,
        )
        .values(used_at=now)
    )
    return bool(getattr(result, "rowcount", 0) == 1)


def get_nonce(db: Session, nonce: str) -> SigninNonce | None:
    """The nonce row, if any."""
    return db.get(SigninNonce, nonce)


def purge_nonces(db: Session, *, now: datetime) -> int:
    """Delete every expired nonce, used or not (a replayed message then names an unknown
    nonce, which is refused all the same); the number deleted."""
    result = db.execute(delete(SigninNonce).where(col(SigninNonce.expires_at) <= now))
    return int(getattr(result, "rowcount", 0) or 0)


def count_nonces(db: Session) -> int:
    """How many nonce rows are stored."""
    return int(db.exec(select(func.count()).select_from(SigninNonce)).one())


def add_session(db: Session, row: SessionRow) -> None:
    """Store a session."""
    db.add(row)


_SESSIONS = SessionRow.__table__  # type: ignore[attr-defined]


_GET_SESSION = sa_select(_SESSIONS.c.address, _SESSIONS.c.expires_at, _SESSIONS.c.revoked).where(
    _SESSIONS.c.token_hash == bindparam("token_hash")
)


def get_session(db: Session, token_hash: str) -> SessionRow | None:
    """The session with this token hash, if any."""
    return db.get(SessionRow, token_hash)


def session_owner(db: Session, token_hash: str) -> tuple[str, datetime, bool] | None:
    """(address, expires_at, revoked) of a session, with a plain Core query (the hot path)."""
    row = db.connection().execute(_GET_SESSION, {"token_hash": token_hash}).first()
    if row is None:
        return None
    expires = row.expires_at
    if expires.tzinfo is None:  # SQLite keeps no offset; the column stores UTC
        expires = expires.replace(tzinfo=UTC)
    return str(row.address), expires, bool(row.revoked)
