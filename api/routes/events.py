"""Live updates of a match as server-sent events (`text/event-stream`).

Each event is one entry of the action log exactly as `GET /matches/{id}/actions` returns it for
the same viewer (the same service call), with the entry's index as the event id; a reconnecting
client sends `Last-Event-ID` (or `?since=`) and gets what it missed. A stream wakes when any API
process commits a change to the match (`ledger.runtime.events`) and re-reads the database, and
sends a keep-alive comment every METALEDGER_EVENTS_KEEPALIVE_SECONDS; it ends with an `end`
event once the match is over."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Header, Path, Query
from fastapi.responses import StreamingResponse
from fastapi.security import HTTPAuthorizationCredentials
from sqlmodel import Session
from starlette.concurrency import run_in_threadpool

from api.deps import Ctx, bearer, run
from api.routes.matches import viewer_entries
from api.sse import event_stream, join_stream, news_or_keepalive
from ledger.auth import service as auth
from ledger.db.models import MatchStatus
from ledger.errors import InvalidInput, MetaLedgerError, Unauthorized
from ledger.protocol.untrusted import INT64_MAX
from ledger.runtime.context import Context

router = APIRouter(prefix="/matches", tags=["matches"])
MatchId = Annotated[
    str, Path(pattern=r"^0x[0-9a-f]{64}$", description="the match id (the EIP-712 matchId)")
]
#: entries read from the database at a time
PAGE = 200
_OVER = (MatchStatus.FINISHED, MatchStatus.CANCELLED)


class _Page:
    """Entries of the viewer from one read, and the match's status then."""

    def __init__(self, entries: list[tuple[int, str]], match: dict[str, Any]) -> None:
        self.entries = entries
        self.match = match


def _reader(ctx: Context, match_id: str, token: str) -> Any:
    def read(since: int) -> _Page:
        def work(db: Session) -> _Page:
            caller = auth.authenticate(db, token, ctx)
            shown, match = viewer_entries(db, match_id, caller, since, PAGE, ctx)
            entries = [(entry.index, entry.model_dump_json()) for entry in shown]
            state = {
                "status": match.status,
                "version": match.version,
                "winner_seat": match.winner_seat,
                "end_reason": match.end_reason,
            }
            return _Page(entries, state)

        return run(ctx, work, write=False)

    return read


def _first_index(since: int | None, last_event_id: str | None) -> int:
    if last_event_id is None:
        return since or 0
    if not last_event_id.isdigit() or int(last_event_id) >= INT64_MAX:
        raise InvalidInput("Last-Event-ID must be the index of an entry", field="Last-Event-ID")
    return int(last_event_id) + 1


@router.get(
    "/{match_id}/events",
    response_class=StreamingResponse,
    responses={200: {"content": {"text/event-stream": {}}, "description": "the event stream"}},
)
async def events(
    match_id: MatchId,
    ctx: Ctx,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)],
    since: Annotated[int | None, Query(ge=0, le=INT64_MAX, description="first index")] = None,
    token: Annotated[
        str | None,
        Query(
            max_length=256,
            description="the session token, for clients that cannot send headers (it then "
            "appears in URLs and logs: prefer the Authorization header)",
        ),
    ] = None,
    last_event_id: Annotated[str | None, Header(max_length=20)] = None,
) -> StreamingResponse:
    """Your entries of the match's action log as they are appended (server-sent events):
    `id` is the entry's index, `data` the entry as `GET /matches/{id}/actions` shows it."""
    bearer_token = credentials.credentials if credentials else None
    session = bearer_token or token
    if not session:
        raise Unauthorized("send Authorization: Bearer <token> (or ?token=) to follow a match")
    first = _first_index(since, last_event_id)
    waiter = join_stream(ctx, match_id)
    read = _reader(ctx, match_id, session)
    try:
        page = await run_in_threadpool(read, first)  # a refusal is a problem+json, not a stream
    except BaseException:
        waiter.close()
        raise

    async def stream() -> AsyncIterator[str]:
        current, nxt = page, first
        try:
            yield f"retry: 2000\n: following match {match_id}\n\n"
            while True:
                for index, data in current.entries:
                    yield f"id: {index}\nevent: action\ndata: {data}\n\n"
                    nxt = index + 1
                if len(current.entries) < PAGE:
                    if current.match["status"] in _OVER:
                        yield f"event: end\ndata: {json.dumps(current.match)}\n\n"
                        return
                    if not await news_or_keepalive(waiter):
                        yield ": keep-alive\n\n"
                try:
                    current = await run_in_threadpool(read, nxt)
                except MetaLedgerError as exc:  # e.g. signed out meanwhile: say why, then end
                    yield f"event: error\ndata: {json.dumps(exc.problem())}\n\n"
                    return
        finally:
            waiter.close()

    return event_stream(stream())
