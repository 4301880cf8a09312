"""The decks repository's prepared read of a deck is what the ORM reads of the same row, and an
owner's live seats are read through the (address, live) index, on SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import Engine
from sqlmodel import Session

from ledger.db import lean_unit, unit_of_work
from ledger.db.models import DeckCommitment, MatchSeat, Wallet
from ledger.decks import repository as repo
from ledger.matches import repository as matches_repo
from tests.ledger.match_support import match_row

OWNER = "0x" + "11" * 20
DECK = DeckCommitment(
    id="5b0c7a4e-0000-4000-8000-000000000001",
    owner=OWNER,
    game="metax",
    ruleset_version="r1",
    deck_hash="0x" + "ab" * 32,
    cards={"é-card\u2028": 3, "b": 2},
    required={"a": 3},
    held={"0x01": 2**70},
    block_number=12,
    block_hash="0x" + "cd" * 32,
    created_at=datetime(2026, 12, 6, 3, 0, 1, 250, tzinfo=UTC),
)


def _columns(deck: DeckCommitment) -> dict[str, object]:
    return {c: getattr(deck, c) for c in DeckCommitment.model_fields}


def _store(engine: Engine) -> None:
    with unit_of_work(engine) as db:
        db.add(Wallet(address=OWNER))
        db.flush()
        repo.add_deck(db, DECK)


def test_a_deck_read_is_the_orms_row_attached_to_the_session(engine: Engine) -> None:
    _store(engine)
    with unit_of_work(engine, write=False) as db:
        by_orm = _columns(db.get(DeckCommitment, DECK.id))  # type: ignore[arg-type]
    with lean_unit(engine, write=False) as tx:
        deck = repo.get_deck(tx, DECK.id)
        assert deck is not None and deck in tx.orm and not tx.orm.dirty
        assert _columns(deck) == by_orm == _columns(DECK)
        assert repo.get_deck(tx, DECK.id) is deck  # held by the Session: the same instance
        assert repo.get_deck(tx, "5b0c7a4e-0000-4000-8000-00000000ffff") is None


def test_a_deck_the_session_holds_is_that_instance(engine: Engine) -> None:
    _store(engine)
    with unit_of_work(engine, write=False) as db:
        held = db.get(DeckCommitment, DECK.id)
        assert isinstance(db, Session) and repo.get_deck(db, DECK.id) is held


def _match(match_id: str, status: str, cards: dict[str, int]) -> list[object]:
    match = match_row(match_id, OWNER, status)
    seat = MatchSeat(match_id=match_id, seat=0, address=OWNER, deck_hash="0x", cards=cards)
    return [match, seat]


def test_live_seat_cards_are_those_of_the_owners_live_matches_only(engine: Engine) -> None:
    ids = [f"0x{n:064x}" for n in range(1, 5)]
    with unit_of_work(engine) as db:
        matches_repo.add(db, Wallet(address=OWNER))
        matches_repo.add(db, *_match(ids[0], "active", {"a": 1}))
        matches_repo.add(db, *_match(ids[1], "active", {"b": 2}))  # ends below
        matches_repo.add(db, *_match(ids[2], "open", {"c": 3}))
        matches_repo.add(db, *_match(ids[3], "seeding", {"d": 4}))
    with unit_of_work(engine) as db:
        assert matches_repo.update_match_if_status(db, ids[1], "active", {"status": "finished"})
    with lean_unit(engine, write=False) as tx:
        found = repo.live_seat_cards(tx, OWNER, game="metax")
        others = repo.live_seat_cards(tx, OWNER, game="metax", exclude_match=ids[2])
        elsewhere = repo.live_seat_cards(tx, OWNER, game="metamasters")
    assert sorted(found, key=str) == [{"a": 1}, {"c": 3}, {"d": 4}]
    assert sorted(others, key=str) == [{"a": 1}, {"d": 4}] and elsewhere == []


def test_live_seats_are_found_by_the_address_live_index_not_the_history(engine: Engine) -> None:
    compiled = repo._LIVE_SEAT_CARDS.statement.compile(dialect=engine.dialect)
    values = {"owner": OWNER, "live": True, "game": "metax", "exclude_match": "", **repo._LIVE}
    sqlite = engine.dialect.name == "sqlite"
    params = tuple(values[n] for n in compiled.positiontup or ()) if sqlite else values
    with engine.connect() as conn:
        if not sqlite:  # on a table this small PostgreSQL would scan it: is the index usable?
            conn.exec_driver_sql("SET enable_seqscan = off")
        explain = "EXPLAIN QUERY PLAN " if sqlite else "EXPLAIN "
        plan = " | ".join(
            str(row[-1]) for row in conn.exec_driver_sql(explain + str(compiled), params)
        )
    if sqlite:
        assert "match_seats USING INDEX ix_match_seats_address_live (address=? AND live=?)" in plan
    else:
        assert "ix_match_seats_address_live on match_seats" in plan, plan
