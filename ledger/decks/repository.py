"""The queries of deck commitments, and the copies an owner has committed to live matches."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import bindparam, func, insert, literal_column, or_, update
from sqlalchemy import select as select_columns
from sqlalchemy.orm.util import identity_key
from sqlmodel import Session, col, select

from ledger.db import DB, orm
from ledger.db.models import (
    DeckCommitment,
    Match,
    MatchSeat,
    Wallet,
)
from ledger.db.models.matches import LIVE_STATUSES, MatchStatus
from ledger.db.prepared import Prepared, attach

_DECK_TABLE = DeckCommitment.__table__  # type: ignore[attr-defined]
_INSERT_DECK = Prepared(insert(_DECK_TABLE))  # every column, bound by its name
_DECK_COLUMNS = tuple(c.name for c in _DECK_TABLE.columns)


def add_deck(db: DB, deck: DeckCommitment) -> None:
    """Store a deck commitment (one prepared INSERT, without the ORM's unit-of-work flush: a
    registration stores one row and reads it back from nowhere)."""
    _INSERT_DECK.execute(db, {name: getattr(deck, name) for name in _DECK_COLUMNS})


_DECK_ROW = Prepared(select_columns(*_DECK_TABLE.c).where(_DECK_TABLE.c.id == bindparam("deck_id")))


def get_deck(db: DB, deck_id: str) -> DeckCommitment | None:
    """A deck commitment by id: one prepared statement, the row attached to the unit's Session
    as the ORM would load it (Session.get costs 4x more), or the Session's if it holds it."""
    session = orm(db)
    if identity_key(DeckCommitment, deck_id) in session.identity_map:
        return session.get(DeckCommitment, deck_id)
    row = _DECK_ROW.first(db, {"deck_id": deck_id})
    if row is None:
        return None
    return attach(session, DeckCommitment, dict(zip(_DECK_COLUMNS, row, strict=True)))


def decks_of(db: Session, owner: str, limit: int = 100) -> Sequence[DeckCommitment]:
    """The newest deck commitments of `owner`."""
    return db.exec(
        select(DeckCommitment)
        .where(col(DeckCommitment.owner) == owner)
        .order_by(col(DeckCommitment.created_at).desc())
        .limit(limit)
    ).all()


#: the live statuses as bound values (a prepared statement binds every value it compares)
_LIVE = {f"live_{i}": status.value for i, status in enumerate(LIVE_STATUSES)}
# Prepared once (the deck registration runs both on every request, the match start and the
# seat checks too): each call is the driver's, in the unit of work's transaction.
_LIVE_SEAT_CARDS = Prepared(
    select_columns(col(MatchSeat.cards))
    .join(Match, col(Match.id) == col(MatchSeat.match_id))
    .where(
        col(MatchSeat.address) == bindparam("owner"),
        col(MatchSeat.live) == bindparam("live"),  # the index (address, live): not the history
        col(MatchSeat.is_bot).is_(False),
        col(Match.game) == bindparam("game"),
        or_(*(col(Match.status) == bindparam(name) for name in _LIVE)),
        col(Match.id) != bindparam("exclude_match"),
    )
)
_STARTED_SEAT_CARDS = Prepared(
    select_columns(
        col(Match.id),
        col(MatchSeat.address),
        col(Match.ownership_block),
        col(Match.ownership_block_hash),
        col(MatchSeat.cards),
    )
    .join(Match, col(Match.id) == col(MatchSeat.match_id))
    .where(
        col(MatchSeat.is_bot).is_(False),
        col(Match.game) == bindparam("game"),
        col(Match.status) == bindparam("active"),
        col(Match.ownership_block).is_not(None),
    )
)


_OLDEST_STARTED_PIN = Prepared(
    select_columns(func.min(col(Match.ownership_block))).where(
        col(Match.game) == bindparam("game"),
        col(Match.status) == bindparam("active"),
        col(Match.ownership_block).is_not(None),
        col(Match.id) != bindparam("exclude_match"),
    )
)


def oldest_started_pin(db: DB, *, game: str, exclude_match: str | None = None) -> int | None:
    """The lowest pinned block of an active match of `game` (other than `exclude_match`), or
    None: no hold is older (one aggregate, however many matches are live)."""
    params = {
        "game": game,
        "active": MatchStatus.ACTIVE.value,
        "exclude_match": exclude_match or "",
    }
    row = _OLDEST_STARTED_PIN.first(db, params)
    return None if row is None or row[0] is None else int(row[0])


def live_seat_cards(
    db: DB, owner: str, *, game: str, exclude_match: str | None = None
) -> list[dict[str, int]]:
    """The deck lists (card id -> copies) `owner` has in live matches of `game`."""
    params = {"owner": owner, "live": True, "game": game, "exclude_match": exclude_match or ""}
    params |= _LIVE
    return [dict(cards) for (cards,) in _LIVE_SEAT_CARDS.all(db, params)]


_WALLETS = Wallet.__table__  # type: ignore[attr-defined]
_LOCK_WALLET = Prepared(
    update(_WALLETS)
    .where(_WALLETS.c.address == bindparam("address"))
    .values(lock_version=_WALLETS.c.lock_version + literal_column("1"))  # no anonymous bind
)


def lock_wallet(db: Session, address: str) -> None:
    """Serialise this transaction with every other one committing `address`'s copies (one
    prepared UPDATE of the wallet's row: the ORM's bulk UPDATE, which would also synchronise
    loaded Wallet objects, costs ten times more)."""
    db.flush()  # as Session.execute would: the UPDATE runs after this unit's pending writes
    _LOCK_WALLET.execute(db, {"address": address})


def started_seat_cards(db: DB, *, game: str) -> list[tuple[str, str, int, str, dict[str, int]]]:
    """(match id, address, pinned block number, its hash, deck list) of every human seat of an
    active (started, so pinned) match of `game`."""
    return [
        (str(m), str(a), int(n), str(h), dict(cards))
        for m, a, n, h, cards in _STARTED_SEAT_CARDS.all(
            db, {"game": game, "active": MatchStatus.ACTIVE.value}
        )
    ]
