"""Turn service rows into response bodies."""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel
from sqlmodel import SQLModel

from api import schemas
from ledger.db.models import (
    DeckCommitment,
    Match,
    MatchAction,
    MatchResult,
    MatchSeat,
    MatchStatus,
)
from ledger.matches.outcomes import AppliedAction
from ledger.matches.repository import LiveMatch
from ledger.matches.service import entry_count
from ledger.protocol.hexcodec import to_hex
from ledger.results import service as results

#: secrets and the seed are disclosed only once the match is over: during play they would let a
#: player compute the shuffle (hidden information)
_OVER = (MatchStatus.FINISHED, MatchStatus.CANCELLED)
_STARTED = (MatchStatus.ACTIVE, MatchStatus.FINISHED)

Body = TypeVar("Body", bound=BaseModel)


def _from_row(schema: type[Body], row: SQLModel, **computed: Any) -> Body:
    """`schema` filled from the row's columns of the same names, `computed` (what the row
    does not say as it is, secrets withheld included) over them."""
    columns = row.model_dump(include=set(schema.model_fields))
    return schema.model_validate({**columns, **computed})


def deck(row: DeckCommitment) -> schemas.DeckOut:
    """A deck commitment."""
    return schemas.DeckOut.model_validate(row)


def match(
    row: Match,
    seats: list[MatchSeat],
    caller: str | None = None,
    domain: dict[str, Any] | None = None,
    receipt_signer: str | None = None,
) -> schemas.MatchOut:
    """A match's public state (secrets and seed disclosed only once it is over)."""
    started = row.status in _STARTED
    over = row.status in _OVER
    your_seat = next(
        (s.seat for s in seats if caller is not None and s.address == caller and not s.is_bot), None
    )
    return _from_row(
        schemas.MatchOut,
        row,
        operator_secret=row.operator_secret if over else None,
        seed=row.seed if over else None,
        entries=entry_count(row),
        domain=domain,
        receipt_signer=receipt_signer,
        seats=[
            _from_row(
                schemas.SeatOut,
                s,
                revealed=s.seed_secret is not None and (started or not s.is_bot),
                seed_secret=s.seed_secret if over else None,
                acknowledged=s.end_acknowledgement is not None,
            )
            for s in seats
        ],
        your_seat=your_seat,
    )


def result(row: MatchResult, batch_id: int | None) -> schemas.ResultOut:
    """A signed result with its EIP-712 typed data."""
    return _from_row(schemas.ResultOut, row, typed_data=results.typed_data(row), batch_id=batch_id)


#: an action row stored before entries were projected: nothing of it for a reader of a live match
_UNPROJECTED = {"label": "", "action": None}


def reader_index(seat: int | None) -> int:
    """Which of an entry's stored views a reader gets: its seat's, or the spectator's (2)."""
    return 2 if seat is None else seat


def applied(entry: AppliedAction, reader: int | None) -> dict[str, Any]:
    """An entry applied in this request as `reader` (a seat, None for a spectator) may read it
    (a `schemas.AppliedOut` as plain values, for the move's answer)."""
    view = entry.views[reader_index(reader)]
    return {
        "index": entry.index,
        "seat": entry.seat,
        "by_bot": entry.by_bot,
        "label": view["label"],
        "action": view["action"],
        "entry_hash": to_hex(entry.entry.entry_hash),
        "receipt": entry.entry.receipt,
    }


def turn(
    match: Match | LiveMatch,
    seat: int,
    entries: list[dict[str, Any]],
    legal: list[dict[str, Any]],
    *,
    kind: str | None = None,
) -> dict[str, Any]:
    """The match's turn as `seat` sees it, with `entries` (as that seat may read them) and its
    legal actions (empty unless it is to act): the fields of `schemas.ActionOut` but
    `observation`, and `type` and `seat` when `kind` names a play-channel message."""
    your_turn = match.status == MatchStatus.ACTIVE and match.current_player == seat
    out: dict[str, Any] = {} if kind is None else {"type": kind, "seat": seat}
    out.update(
        version=match.version,
        status=match.status,
        current_player=match.current_player,
        your_turn=your_turn,
        winner_seat=match.winner_seat,
        end_reason=match.end_reason,
        head_hash=match.head_hash,
        applied=entries,
        legal_actions=legal if your_turn else [],
    )
    return out


def logged(row: MatchAction, reader: int | None, over: bool) -> schemas.AppliedOut:
    """A stored entry as `reader` may read it; once the match is over, its real action."""
    views: list[Any] | None = row.views
    view = views[reader_index(reader)] if views else _UNPROJECTED
    return schemas.AppliedOut(
        index=row.index,
        seat=row.seat,
        by_bot=row.by_bot,
        label=view["label"] or (row.label if over else ""),
        action=list(row.action) if over else view["action"],
        entry_hash=row.entry_hash,
        receipt=row.receipt,
    )
