"""The matches repository's lean reads return what the ORM reads of the same rows."""

from __future__ import annotations

from dataclasses import asdict, fields

from sqlalchemy import Engine, inspect

from ledger.db import lean_unit, unit_of_work
from ledger.db.models import MatchAction, MatchSeat, TranscriptRow
from ledger.db.models.wallets import Wallet
from ledger.matches import repository as repo
from tests.ledger.match_support import match_row

MATCH_ID = "0x" + "ab" * 32
CREATOR = "0x" + "11" * 20


def _store_actions(engine: Engine, count: int) -> None:
    with unit_of_work(engine) as db:
        repo.add(db, Wallet(address=CREATOR))
        repo.add(db, match_row(MATCH_ID, CREATOR))
        # stored out of order, with bot entries (no signature) and odd JSON among them
        for index in reversed(range(count)):
            by_bot = index % 3 == 2
            repo.add(
                db,
                MatchAction(
                    match_id=MATCH_ID,
                    index=index,
                    seat=index % 2,
                    action=["play", index, {"target": "é\u2028", "n": 2**53 + index}],
                    label=f"move {index}",
                    by_bot=by_bot,
                    move=f'["play",{index}]',
                    salt=None if by_bot else f"0x{index:064x}",
                    signature=None if by_bot else "0x" + f"{index:02x}" * 65,
                    entry_hash=f"0x{index + 1:064x}",
                    receipt="0x" + "44" * 65,
                    views=[["hidden"], ["hidden"], ["spectator"]],
                ),
            )


def test_transcript_rows_are_the_orm_rows_in_order_without_their_views(engine: Engine) -> None:
    _store_actions(engine, 25)
    with unit_of_work(engine, write=False) as db:
        orm_rows = repo.match_actions(db, MATCH_ID)
        expected = [
            {f.name: getattr(row, f.name) for f in fields(TranscriptRow)} for row in orm_rows
        ]
        through_the_session = [asdict(r) for r in repo.transcript_rows(db, MATCH_ID)]
    with lean_unit(engine, write=False) as tx:
        lean = [asdict(r) for r in repo.transcript_rows(tx, MATCH_ID)]
    assert [e["index"] for e in expected] == list(range(25))
    assert through_the_session == expected and lean == expected
    assert all(type(r["by_bot"]) is bool for r in lean)
    assert "views" not in lean[0]


def test_a_match_without_actions_has_no_transcript_rows(engine: Engine) -> None:
    with lean_unit(engine, write=False) as tx:
        assert repo.transcript_rows(tx, MATCH_ID) == []


def test_a_seat_column_is_set_once_and_the_instance_holds_it_as_loaded(engine: Engine) -> None:
    _store_actions(engine, 0)
    with unit_of_work(engine) as db:
        repo.add(
            db, MatchSeat(match_id=MATCH_ID, seat=0, address=CREATOR, deck_hash="0x", cards={})
        )
    commit = "0x" + "55" * 32
    with unit_of_work(engine) as db:
        seat = repo.seats(db, MATCH_ID)[0]
        values = {"seed_commit": commit, "session_key": CREATOR, "authorization_expiry": 2**40}
        assert repo.set_seat_once(db, seat, "seed_commit", values)
        assert seat.seed_commit == commit and seat.authorization_expiry == 2**40
        assert not db.dirty  # written by the statement, not pending for a flush
        again = {"seed_commit": "0x" + "66" * 32}
        assert not repo.set_seat_once(db, seat, "seed_commit", again)  # the guard: already set
        assert seat.seed_commit == commit
    with unit_of_work(engine, write=False) as db:
        stored = repo.seats(db, MATCH_ID)[0]
        assert (stored.seed_commit, stored.session_key, stored.seed_secret) == (
            commit,
            CREATOR,
            None,
        )


def test_detached_seats_are_the_orms_rows_bound_to_no_session(engine: Engine) -> None:
    _store_actions(engine, 0)
    with unit_of_work(engine) as db:
        repo.add(
            db,
            *(
                MatchSeat(
                    match_id=MATCH_ID, seat=n, address=CREATOR, deck_hash="0x", cards={"é": n}
                )
                for n in (1, 0)
            ),
        )
    with unit_of_work(engine, write=False) as db:
        by_orm = [s.model_dump() for s in repo.seats(db, MATCH_ID)]
    with lean_unit(engine, write=False) as tx:
        seats = repo.detached_seats(tx, MATCH_ID)
        assert tx._session is None  # no ORM Session was made for them
    assert [s.model_dump() for s in seats] == by_orm and [s.seat for s in seats] == [0, 1]
    assert all(inspect(s).detached or inspect(s).transient for s in seats)


def _live_flags(engine: Engine) -> list[bool]:
    with unit_of_work(engine, write=False) as db:
        return [s.live for s in repo.seats(db, MATCH_ID)]


def test_a_match_that_ends_has_its_seats_no_longer_live(engine: Engine) -> None:
    _store_actions(engine, 0)
    with unit_of_work(engine) as db:
        repo.add(
            db,
            *(
                MatchSeat(match_id=MATCH_ID, seat=n, address=CREATOR, deck_hash="0x", cards={})
                for n in (0, 1)
            ),
        )
    assert _live_flags(engine) == [True, True]
    for was, now in (("open", "seeding"), ("seeding", "active")):  # still live
        with unit_of_work(engine) as db:
            assert repo.update_match_if_status(db, MATCH_ID, was, {"status": now})
        assert _live_flags(engine) == [True, True]
    with unit_of_work(engine) as db:  # a guard that fails changes nothing
        assert not repo.update_match_if_status(db, MATCH_ID, "open", {"status": "cancelled"})
    assert _live_flags(engine) == [True, True]
    with unit_of_work(engine) as db:
        assert repo.update_match_if_status(db, MATCH_ID, "active", {"status": "finished"})
    assert _live_flags(engine) == [False, False]
