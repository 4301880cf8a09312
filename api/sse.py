"""What the API's server-sent event streams share: a slot of the process's live-update hub (503
problem+json past METALEDGER_EVENTS_MAX_STREAMS), the wait for news or the keep-alive tick, and
the `text/event-stream` response."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from fastapi.responses import StreamingResponse

from ledger.errors import ServiceUnavailable
from ledger.runtime.context import Context
from ledger.runtime.events import StreamWaiter


def join_stream(ctx: Context, key: str) -> StreamWaiter:
    """A waiter for news of `key` (a match id or a wallet's key), or 503 if every slot is taken."""
    waiter = ctx.events.join(key)
    if waiter is None:
        raise ServiceUnavailable(
            f"this API process already serves {ctx.settings.events_max_streams} live-update "
            "streams; retry shortly",
            limit="events_max_streams",
            max=ctx.settings.events_max_streams,
        )
    return waiter


async def news_or_keepalive(waiter: StreamWaiter) -> bool:
    """Wait for news (True) or the process's keep-alive tick (False: `keepalive_ticks`); then
    be ready for the next. No timer a wait: one ticker wakes every stream."""
    if not waiter.news.is_set():
        await waiter.news.wait()
    waiter.news.clear()
    ticked, waiter.ticked = waiter.ticked, False
    return not ticked


async def keepalive_ticks(ctx: Context) -> None:
    """Tick every live-update stream of this process every METALEDGER_EVENTS_KEEPALIVE_SECONDS
    (the app runs it for its lifetime)."""
    while True:
        await asyncio.sleep(ctx.settings.events_keepalive_seconds)
        ctx.events.tick()


def event_stream(stream: AsyncIterator[str]) -> StreamingResponse:
    """The `text/event-stream` answer of `stream`, not cached nor buffered by proxies."""
    return StreamingResponse(
        stream,
        media_type="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )
