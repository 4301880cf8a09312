"""Live updates of a wallet's collection as server-sent events (`text/event-stream`).

The stream first sends the collection exactly as `GET /wallets/{address}/cards` answers it (a
`cards` event), then again each time it changes, and a `book` event when news came but the cards
are the same (one of the wallet's offers changed status: cancelled, expired, unfillable). The
indexer publishes news of the wallets whose balances a pass changed and of the makers whose
offers changed status (`ledger.runtime.events.publish_wallet_news`, over the broker),
which wakes the streams of that wallet in every API process; a woken stream re-reads the
balances. At each keep-alive tick (METALEDGER_EVENTS_KEEPALIVE_SECONDS) it re-reads too, so a
message lost on the broker delays a change, never loses it. Public, like the collection."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Annotated

from fastapi import APIRouter, Path, Query
from fastapi.responses import StreamingResponse
from starlette.concurrency import run_in_threadpool

from api import ratelimit
from api.deps import Ctx
from api.routes.catalogue import collection_of
from api.sse import event_stream, join_stream, news_or_keepalive
from ledger.errors import MetaLedgerError
from ledger.protocol.addresses import parse_address
from ledger.runtime.events import wallet_key

router = APIRouter(tags=["catalogue"], dependencies=[ratelimit.PUBLIC])


@router.get(
    "/wallets/{address}/events",
    response_class=StreamingResponse,
    responses={200: {"content": {"text/event-stream": {}}, "description": "the event stream"}},
)
async def wallet_events(
    address: Annotated[str, Path(max_length=42)],
    ctx: Ctx,
    game: Annotated[str | None, Query(max_length=32)] = None,
) -> StreamingResponse:
    """The wallet's collection now and after each change (server-sent `cards` events, `data`
    as `GET /wallets/{address}/cards` answers)."""
    owner = parse_address(address, "address")
    waiter = join_stream(ctx, wallet_key(owner))
    try:  # a refusal (unknown game, no database) is a problem+json, not a stream
        first = await run_in_threadpool(collection_of, ctx, owner, game)
    except BaseException:
        waiter.close()
        raise

    async def stream() -> AsyncIterator[str]:
        current, sent, news = first, None, False
        try:
            yield f"retry: 2000\n: following the collection of {owner}\n\n"
            while True:
                cards = current.model_dump_json(include={"cards"})
                if cards != sent:
                    yield f"event: cards\ndata: {current.model_dump_json()}\n\n"
                    sent = cards
                elif news:  # the same cards: the news was of its offers (a status changed)
                    yield f"event: book\ndata: {json.dumps({'address': owner})}\n\n"
                news = await news_or_keepalive(waiter)
                if not news:
                    yield ": keep-alive\n\n"
                try:
                    current = await run_in_threadpool(collection_of, ctx, owner, game)
                except MetaLedgerError as exc:  # the database or chain went away: say why, end
                    yield f"event: error\ndata: {json.dumps(exc.problem())}\n\n"
                    return
        finally:
            waiter.close()

    return event_stream(stream())
