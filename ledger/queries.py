"""Every database query of the API's services. Helpers never commit; the request does."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import bindparam, delete, func, insert, update
from sqlalchemy import select as sa_select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import defer
from sqlmodel import Session, col, select

from ledger.db.models import (
    CardDesign,
    DeckCommitment,
    Match,
    MatchAction,
    MatchResult,
    MatchSeat,
    OutboxEntry,
    RateLimitWindow,
    SigninNonce,
    Wallet,
)
from ledger.db.models import Session as SessionRow
from ledger.db.models.matches import LIVE_STATUSES

# -- wallets, nonces, sessions -------------------------------------------------------------


def get_wallet(db: Session, address: str) -> Wallet | None:
    """The wallet row of `address`, if it ever signed in."""
    return db.get(Wallet, address)


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


def lock_wallet(db: Session, address: str) -> None:
    """Serialise this transaction with every other one committing `address`'s copies."""
    db.execute(
        update(Wallet)
        .where(col(Wallet.address) == address)
        .values(lock_version=Wallet.lock_version + 1)
    )


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


# -- rate limits ---------------------------------------------------------------------------


def count_request(db: Session, key: str, window_start: int) -> int:
    """Add one request to `key`'s window starting at `window_start`; the window's count so far."""
    dialect = db.get_bind().dialect.name
    insert_of = postgresql.insert if dialect == "postgresql" else sqlite.insert
    table = RateLimitWindow.__table__  # type: ignore[attr-defined]
    statement = (
        insert_of(table)
        .values(key=key, window_start=window_start, hits=1)
        .on_conflict_do_update(
            index_elements=["key", "window_start"], set_={"hits": table.c.hits + 1}
        )
        .returning(table.c.hits)
    )
    return int(db.execute(statement).scalar_one())


def purge_rate_windows(db: Session, *, before: int) -> None:
    """Delete every rate-limit window that started before `before`."""
    db.execute(delete(RateLimitWindow).where(col(RateLimitWindow.window_start) < before))


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


# -- card designs --------------------------------------------------------------------------


def card_designs(db: Session, game: str) -> Sequence[CardDesign]:
    """Every card design of `game`, by card id."""
    return db.exec(
        select(CardDesign).where(col(CardDesign.game) == game).order_by(col(CardDesign.card_id))
    ).all()


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


# -- decks ---------------------------------------------------------------------------------


def add_deck(db: Session, deck: DeckCommitment) -> None:
    """Store a deck commitment."""
    db.add(deck)
    db.flush()


def get_deck(db: Session, deck_id: str) -> DeckCommitment | None:
    """A deck commitment by id."""
    return db.get(DeckCommitment, deck_id)


def decks_of(db: Session, owner: str, limit: int = 100) -> Sequence[DeckCommitment]:
    """The newest deck commitments of `owner`."""
    return db.exec(
        select(DeckCommitment)
        .where(col(DeckCommitment.owner) == owner)
        .order_by(col(DeckCommitment.created_at).desc())
        .limit(limit)
    ).all()


def live_seat_cards(
    db: Session, owner: str, *, game: str, exclude_match: str | None = None
) -> list[dict[str, int]]:
    """The deck lists (card id -> copies) `owner` has in live matches of `game`."""
    query = (
        select(MatchSeat.cards)
        .join(Match, col(Match.id) == col(MatchSeat.match_id))
        .where(
            col(MatchSeat.address) == owner,
            col(MatchSeat.is_bot).is_(False),
            col(Match.game) == game,
            col(Match.status).in_([s.value for s in LIVE_STATUSES]),
        )
    )
    if exclude_match is not None:
        query = query.where(col(Match.id) != exclude_match)
    return [dict(cards) for cards in db.exec(query).all()]


# -- matches -------------------------------------------------------------------------------


def add(db: Session, *rows: Any) -> None:
    """Stage rows for insertion and flush."""
    db.add_all(rows)
    db.flush()


# the state snapshot is loaded only when a state must be rebuilt (cache miss)
_GET_MATCH = (
    select(Match).where(col(Match.id) == bindparam("match_id")).options(defer(Match.state))  # type: ignore[arg-type]
)
_SEATS = (
    select(MatchSeat)
    .where(col(MatchSeat.match_id) == bindparam("match_id"))
    .order_by(col(MatchSeat.seat))
)


def get_match(db: Session, match_id: str) -> Match | None:
    """A match by id (fresh from the database)."""
    return db.exec(
        _GET_MATCH.execution_options(populate_existing=True), params={"match_id": match_id}
    ).first()


def seats(db: Session, match_id: str) -> list[MatchSeat]:
    """The seats of a match, by seat number."""
    return list(db.exec(_SEATS, params={"match_id": match_id}).all())


def open_matches(db: Session, game: str | None, limit: int = 50) -> Sequence[Match]:
    """Matches waiting for an opponent, newest first."""
    query = select(Match).where(col(Match.status) == "open")
    if game is not None:
        query = query.where(col(Match.game) == game)
    return db.exec(query.order_by(col(Match.created_at).desc()).limit(limit)).all()


def matches_of(db: Session, address: str, limit: int = 50) -> Sequence[Match]:
    """Matches `address` sits in, newest first."""
    query = (
        select(Match)
        .join(MatchSeat, col(Match.id) == col(MatchSeat.match_id))
        .where(col(MatchSeat.address) == address, col(MatchSeat.is_bot).is_(False))
        .order_by(col(Match.created_at).desc())
        .limit(limit)
    )
    return db.exec(query).all()


_MATCHES = Match.__table__  # type: ignore[attr-defined]


def update_match_if_version(
    db: Session, match_id: str, version: int, values: dict[str, Any]
) -> bool:
    """Write `values` only if the match is still at `version`; False if someone else moved first."""
    result = db.execute(
        update(_MATCHES)
        .where(_MATCHES.c.id == match_id, _MATCHES.c.version == version)
        .values(**values)
    )
    return bool(getattr(result, "rowcount", 0) == 1)


def update_match_if_status(db: Session, match_id: str, status: str, values: dict[str, Any]) -> bool:
    """Write `values` only if the match still has `status`."""
    result = db.execute(
        update(_MATCHES)
        .where(_MATCHES.c.id == match_id, _MATCHES.c.status == status)
        .values(**values)
    )
    return bool(getattr(result, "rowcount", 0) == 1)


def insert_actions(db: Session, rows: list[dict[str, Any]]) -> None:
    """Insert action rows (one statement; the primary key refuses an index applied twice)."""
    if rows:
        db.execute(insert(MatchAction.__table__), rows)  # type: ignore[attr-defined]


def match_actions(
    db: Session, match_id: str, *, since: int = 0, limit: int | None = None
) -> Sequence[MatchAction]:
    """The actions of a match in order, from index `since` (clamped to the 64-bit range the
    database compares)."""
    since = max(0, min(since, 2**63 - 1))
    query = (
        select(MatchAction)
        .where(col(MatchAction.match_id) == match_id, col(MatchAction.index) >= since)
        .order_by(col(MatchAction.index))
    )
    if limit is not None:
        query = query.limit(limit)
    return db.exec(query).all()


def action_rows(db: Session, match_id: str) -> list[list[Any]]:
    """Just the action JSON values of a match, in order."""
    query = (
        select(MatchAction.action)
        .where(col(MatchAction.match_id) == match_id)
        .order_by(col(MatchAction.index))
    )
    return [list(a) for a in db.exec(query).all()]


def expired_matches(db: Session, now: datetime, limit: int = 100) -> Sequence[str]:
    """Ids of live matches whose turn deadline has passed."""
    query = (
        select(Match.id)
        .where(
            col(Match.status).in_([s.value for s in LIVE_STATUSES]), col(Match.turn_deadline) < now
        )
        .limit(limit)
    )
    return db.exec(query).all()


# -- results and outbox --------------------------------------------------------------------


def add_result_with_outbox(db: Session, result: MatchResult) -> OutboxEntry:
    """Insert a signed result and its outbox row (same transaction, the caller's)."""
    db.add(result)
    db.flush()
    assert result.id is not None
    entry = OutboxEntry(result_id=result.id, created_at=result.created_at)
    db.add(entry)
    db.flush()
    return entry


def result_of(db: Session, match_id: str) -> MatchResult | None:
    """The signed result of a match, if it ended."""
    return db.exec(select(MatchResult).where(col(MatchResult.match_id) == match_id)).first()


def outbox_entry(db: Session, result_id: int) -> OutboxEntry | None:
    """The outbox row of a result."""
    return db.exec(select(OutboxEntry).where(col(OutboxEntry.result_id) == result_id)).first()


def pending_outbox(db: Session, limit: int) -> Sequence[tuple[OutboxEntry, MatchResult]]:
    """Oldest outbox rows not yet in a batch, with their results (for the anchoring worker)."""
    query = (
        select(OutboxEntry, MatchResult)
        .join(MatchResult, col(MatchResult.id) == col(OutboxEntry.result_id))
        .where(col(OutboxEntry.batch_id).is_(None))
        .order_by(col(OutboxEntry.id))
        .limit(limit)
    )
    return [(o, r) for o, r in db.exec(query).all()]


def count_results(db: Session) -> int:
    """How many results were signed."""
    return int(db.exec(select(func.count()).select_from(MatchResult)).one())


def tokens_of_designs(db: Session, token_ids: Iterable[str]) -> Sequence[CardDesign]:
    """Card designs by token id hex."""
    ids = list(token_ids)
    if not ids:
        return []
    return db.exec(select(CardDesign).where(col(CardDesign.token_id).in_(ids))).all()


# -- indexed collections (tables filled by the indexer worker) ----------------------------


def indexer_block(db: Session, contract: str) -> int | None:
    """The last block the indexer has read for `contract`, or None if it never ran."""
    from ledger.db.models.indexing import IndexerCursor

    cursor = db.get(IndexerCursor, contract)
    return None if cursor is None else int(cursor.last_block)


def indexed_holdings(db: Session, owner: str, game: str | None) -> list[tuple[CardDesign, int]]:
    """(design, balance) of every card design `owner` holds according to the indexer."""
    from ledger.db.models.indexing import TokenBalance

    query = (
        select(CardDesign, TokenBalance.amount)
        .join(TokenBalance, col(TokenBalance.token_id) == col(CardDesign.token_id))
        .where(col(TokenBalance.owner) == owner, col(TokenBalance.amount) > 0)
        .order_by(col(CardDesign.game), col(CardDesign.card_id))
    )
    if game is not None:
        query = query.where(col(CardDesign.game) == game)
    return [(d, int(a)) for d, a in db.exec(query).all()]
