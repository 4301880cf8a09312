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


async def news_or_keepalive(waiter: StreamWaiter, keepalive: float) -> bool:
    """Wait for news (True) or until the keep-alive tick (False); then be ready for the next."""
    try:
        await asyncio.wait_for(waiter.news.wait(), keepalive)
        return True
    except TimeoutError:
        return False
    finally:
        waiter.news.clear()


def event_stream(stream: AsyncIterator[str]) -> StreamingResponse:
    """The `text/event-stream` answer of `stream`, not cached nor buffered by proxies."""
    return StreamingResponse(
        stream,
        media_type="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )
