"""Turn service rows into response bodies."""

from __future__ import annotations

from typing import Any

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
from ledger.matches.service import entry_count
from ledger.protocol.hexcodec import to_hex
from ledger.results import service as results

#: secrets and the seed are disclosed only once the match is over: during play they would let a
#: player compute the shuffle (hidden information)
_OVER = (MatchStatus.FINISHED, MatchStatus.CANCELLED)
_STARTED = (MatchStatus.ACTIVE, MatchStatus.FINISHED)


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
    return schemas.MatchOut(
        id=row.id,
        game=row.game,
        ruleset_version=row.ruleset_version,
        status=row.status,
        version=row.version,
        current_player=row.current_player,
        turn_deadline=row.turn_deadline,
        operator_commit=row.operator_commit,
        operator_secret=row.operator_secret if over else None,
        seed=row.seed if over else None,
        ownership_block=row.ownership_block,
        ownership_block_hash=row.ownership_block_hash,
        winner_seat=row.winner_seat,
        end_reason=row.end_reason,
        head_hash=row.head_hash,
        genesis_hash=row.genesis_hash,
        entries=entry_count(row),
        forfeit_entry=row.forfeit_entry,
        domain=domain,
        receipt_signer=receipt_signer,
        options=row.options,
        seats=[
            schemas.SeatOut(
                seat=s.seat,
                address=s.address,
                is_bot=s.is_bot,
                deck_hash=s.deck_hash,
                deck_id=s.deck_id,
                seed_commit=s.seed_commit,
                revealed=s.seed_secret is not None and (started or not s.is_bot),
                seed_secret=s.seed_secret if over else None,
                session_key=s.session_key,
                authorization_expiry=s.authorization_expiry,
                authorization=s.authorization,
                acknowledged=s.end_acknowledgement is not None,
            )
            for s in seats
        ],
        your_seat=your_seat,
        created_at=row.created_at,
        started_at=row.started_at,
        finished_at=row.finished_at,
    )


def result(row: MatchResult, batch_id: int | None) -> schemas.ResultOut:
    """A signed result with its EIP-712 typed data."""
    fields = row.model_dump(include=set(schemas.ResultOut.model_fields))
    return schemas.ResultOut.model_validate(
        {**fields, "typed_data": results.typed_data(row), "batch_id": batch_id}
    )


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
