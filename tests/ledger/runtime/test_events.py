"""The live-update hub with a real Redis: news reaches another process's streams only if that
process follows the match, a process alone on a match sends nothing, the play channels' news
handed over in-process, and a muted stream (the mover's own channel) is not woken by its move."""

from __future__ import annotations

import asyncio
import secrets
import time

import pytest

from ledger.runtime.events import FOLLOWERS_PREFIX, MatchEvents

MATCH = "0x" + "11" * 32
OTHER = "0x" + "22" * 32


async def _woken(waiter: object, seconds: float = 3.0) -> bool:
    try:
        await asyncio.wait_for(waiter.news.wait(), seconds)  # type: ignore[attr-defined]
        return True
    except TimeoutError:
        return False


async def _until(check: object, seconds: float = 5.0) -> None:
    deadline = time.monotonic() + seconds
    while not check():  # type: ignore[operator]
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.02)


def _match_id() -> str:
    """A match id of this test alone (the broker's sets outlive a test)."""
    return "0x" + secrets.token_hex(32)


def test_news_reaches_only_the_processes_following_the_match(broker_url: str) -> None:
    import redis

    a, b = MatchEvents(broker_url, 8), MatchEvents(broker_url, 8)
    a.start()
    b.start()
    client = redis.Redis.from_url(broker_url)
    try:

        async def scenario() -> None:
            match, other = _match_id(), _match_id()
            await _until(lambda: client.pubsub_numsub(b.inbox)[0][1] == 1)  # B listens
            on_b = b.join(match)
            assert on_b is not None
            key = FOLLOWERS_PREFIX + match
            await _until(lambda: client.sismember(key, b.origin))
            assert await _woken(on_b)  # listed: B's stream reads what it may have missed
            await asyncio.sleep(0.2)
            on_b.news.clear()
            a.publish(match)  # a commit in process A: B's stream hears of it
            await _until(lambda: b.received == 1)
            assert await _woken(on_b) and a.published == 1
            on_b.news.clear()
            a.publish(other)  # nobody follows it: nothing is sent
            await asyncio.sleep(0.3)
            assert a.published == 1 and not on_b.news.is_set()
            on_b.close()  # B leaves: no longer listed, A sends nothing more
            await _until(lambda: not client.sismember(key, b.origin))
            a.publish(match)
            await asyncio.sleep(0.3)
            assert a.published == 1

        asyncio.run(scenario())
    finally:
        a.stop()
        b.stop()
        client.close()


def test_a_process_alone_on_a_match_sends_nothing_and_hears_no_echo(broker_url: str) -> None:
    hub = MatchEvents(broker_url, 8)
    hub.start()
    try:

        async def scenario() -> None:
            match = _match_id()
            waiter = hub.join(match)
            assert waiter is not None
            await asyncio.sleep(0.3)
            waiter.news.clear()
            received = hub.received
            for _ in range(20):
                hub.publish(match)
            await asyncio.sleep(0.3)
            assert hub.published == 0 and hub.received == received
            assert waiter.news.is_set()  # woken locally, at once
            waiter.close()

        asyncio.run(scenario())
    finally:
        hub.stop()


def test_news_handed_over_and_a_muted_stream() -> None:
    hub = MatchEvents(None, 8)

    async def scenario() -> None:
        mover, opponent, viewer = hub.join(MATCH), hub.join(MATCH), hub.join(MATCH)
        assert mover is not None and opponent is not None and viewer is not None
        mover.seat, opponent.seat = 0, 1  # play channels, once they know their seats
        mover.muted = True  # the mover's own channel during its move
        hub.publish(MATCH)
        mover.muted = False
        assert not mover.news.is_set() and opponent.news.is_set() and viewer.news.is_set()
        hub.push_local(MATCH, lambda s: None if s.seat is None else {"seat": s.seat})
        assert list(opponent.pushed) == [{"seat": 1}] and not viewer.pushed
        assert list(mover.pushed) == [{"seat": 0}]
        for w in (mover, opponent, viewer):
            w.news.clear()
        hub.tick()  # the keep-alive tick wakes every stream, marked as such
        assert all(w.news.is_set() and w.ticked for w in (mover, opponent, viewer))
        for w in (mover, opponent, viewer):
            w.close()
        assert hub.open_streams == 0 and not hub.has_local(MATCH)

    asyncio.run(scenario())


@pytest.mark.parametrize("slots", [1])
def test_the_slots_bound_the_streams(slots: int) -> None:
    hub = MatchEvents(None, slots)

    async def scenario() -> None:
        first = hub.join(MATCH)
        assert first is not None and hub.join(OTHER) is None
        first.close()
        again = hub.join(OTHER)
        assert again is not None
        again.close()

    asyncio.run(scenario())
