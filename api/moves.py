"""A signed move applied and answered (`POST /matches/{id}/actions` and the play channel share
this), and the change handed to the process's play channels of the match (`api.routes.play`)
as each one's seat sees it, so that they send it without reading the database."""

from __future__ import annotations

from typing import Any

from api import present, schemas
from api.deps import run_hot
from api.metrics import BOT_ACTIONS, PLAYER_ACTIONS, RESULTS
from ledger.auth import service as auth
from ledger.db import Transaction
from ledger.db.models import MatchStatus
from ledger.matches import service as matches
from ledger.matches.outcomes import MoveOutcome
from ledger.runtime.context import Context
from ledger.runtime.events import StreamWaiter


def apply_move(
    ctx: Context,
    match_id: str,
    token: str,
    body: schemas.ActionIn,
    source: StreamWaiter | None = None,
) -> dict[str, Any]:
    """The signed move of the holder of `token` applied in one transaction on the event loop's
    thread (CPU-bound, one short local transaction: a hand-over to a worker thread costs more
    than the move under load); its answer (`schemas.ActionOut`). `source` is the mover's play
    channel, if the move came through one."""

    def work(db: Transaction) -> tuple[dict[str, Any], MoveOutcome]:
        caller = auth.authenticate(db, token, ctx)  # in the same transaction (the hot path)
        outcome = matches.submit_action(
            db, ctx, match_id, caller, list(body.action), body.salt, body.signature, body.version
        )
        assert outcome.state is not None
        seat = next(a.seat for a in outcome.applied if not a.by_bot)
        out = _turn(outcome, seat)
        out["observation"] = outcome.state.observation(seat) if body.include_view else None
        return out, outcome

    if source is None:
        out, outcome = run_hot(ctx, work)
    else:  # the commit wakes the match's streams but the mover's channel: its answer says it
        source.muted = True
        try:
            out, outcome = run_hot(ctx, work)
        finally:
            source.muted = False
    PLAYER_ACTIONS.inc()
    if len(outcome.applied) > 1:
        BOT_ACTIONS.inc(len(outcome.applied) - 1)
    if out["status"] == MatchStatus.FINISHED:
        RESULTS.inc()
    if ctx.events.has_local(match_id):
        hand_over(ctx, match_id, outcome, source)
    return out


def hand_over(
    ctx: Context, match_id: str, outcome: MoveOutcome, source: StreamWaiter | None
) -> None:
    """Give this process's play channels of the match but the mover's own the change as their
    seat sees it (built now, once a seat: the cached state moves on with the next move). Other
    streams get nothing (they read the database when woken)."""
    built: dict[int, dict[str, Any]] = {}

    def news_for(stream: StreamWaiter) -> Any:
        if stream is source or stream.seat is None:
            return None
        update = built.get(stream.seat)
        if update is None:
            update = _turn(outcome, stream.seat, kind="update")
            built[stream.seat] = update
        return update

    ctx.events.push_local(match_id, news_for)


def _turn(outcome: MoveOutcome, seat: int, kind: str | None = None) -> dict[str, Any]:
    """The change as `seat` sees it (`present.turn`)."""
    assert outcome.state is not None
    entries = [present.applied(a, seat) for a in outcome.applied]
    return present.turn(outcome.match, seat, entries, outcome.state.legal_moves(seat), kind=kind)
