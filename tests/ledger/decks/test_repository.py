"""The decks repository's prepared read of a deck is what the ORM reads of the same row, on
SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import Engine
from sqlmodel import Session

from ledger.db import lean_unit, unit_of_work
from ledger.db.models import DeckCommitment, Wallet
from ledger.decks import repository as repo

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
