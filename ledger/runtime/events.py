"""Live-update fan-out: "match M has new entries" reaches every stream of M in every API process.

A process that commits a change to a match calls `publish(M)`: its own streams of M wake at once
and the news goes out on the broker's pub/sub channel `metaledger:match:M` (from a background
thread: a move never waits for Redis). Each process listens on `metaledger:match:*` and wakes its
streams of the match named. The news carries no data: a woken stream reads its viewer's entries
from the database, from the index it has sent so far, so a message lost on the way (Redis down,
a reconnect) only delays entries until the next message or the stream's keep-alive tick.

The same hub carries wallets' balance news: the indexer (in the worker), after committing transfers
that change a wallet's balances, publishes `metaledger:wallet:<address>` (`publish_wallet_news`);
the API's streams of that wallet's collection (`wallet_key`) wake and re-read its balances.

`slots` bounds the streams one process holds open (the API answers 503 past it)."""

from __future__ import annotations

import asyncio
import logging
import queue
import threading
from contextlib import suppress

log = logging.getLogger(__name__)

CHANNEL_PREFIX = "metaledger:match:"
WALLET_CHANNEL_PREFIX = "metaledger:wallet:"


def wallet_key(address: str) -> str:
    """The hub's key of the streams following `address`'s balances."""
    return "wallet:" + address.lower()


def key_of_channel(channel: str) -> str:
    """The hub's key named by a broker channel (a match id, or a wallet's key)."""
    if channel.startswith(WALLET_CHANNEL_PREFIX):
        return wallet_key(channel.removeprefix(WALLET_CHANNEL_PREFIX))
    return channel.removeprefix(CHANNEL_PREFIX)


def publish_wallet_news(broker_url: str | None, addresses: list[str]) -> int:
    """Tell every API process that these wallets' balances changed (after the commit); how many
    messages went out (0 without a broker or when it does not answer: streams re-read at their
    keep-alive tick)."""
    if not addresses or not broker_url or not broker_url.startswith("redis"):
        return 0
    import redis

    try:
        client = redis.Redis.from_url(broker_url, socket_connect_timeout=2, socket_timeout=2)
        with client.pipeline(transaction=False) as pipe:
            for address in addresses:
                pipe.publish(WALLET_CHANNEL_PREFIX + address.lower(), b"1")
            pipe.execute()
        client.close()
    except redis.RedisError as exc:
        log.warning("live updates: cannot publish wallet news to the broker (%s)", exc)
        return 0
    return len(addresses)


class StreamWaiter:
    """One open stream: an asyncio event set (on its loop) when its match has news."""

    def __init__(self, hub: MatchEvents, match_id: str) -> None:
        self.hub = hub
        self.match_id = match_id
        self.loop = asyncio.get_running_loop()
        self.news = asyncio.Event()

    def wake(self) -> None:
        """Set the event from any thread."""
        with suppress(RuntimeError):  # the loop has closed: the stream is gone
            self.loop.call_soon_threadsafe(self.news.set)

    def close(self) -> None:
        """Stop listening and give the slot back."""
        self.hub._leave(self)


class MatchEvents:
    """The process's registry of open streams, its publisher and its broker listener."""

    def __init__(self, broker_url: str | None, slots: int) -> None:
        self.broker_url = broker_url
        self.slots = slots
        self._lock = threading.Lock()
        self._waiters: dict[str, set[StreamWaiter]] = {}
        self._open = 0
        self._outbox: queue.SimpleQueue[str | None] = queue.SimpleQueue()
        self._stopping = threading.Event()
        self._threads: list[threading.Thread] = []
        self.published = 0
        self.received = 0

    # -- streams ---------------------------------------------------------------------------

    def join(self, match_id: str) -> StreamWaiter | None:
        """A waiter for a new stream of `match_id`, or None if every slot is taken."""
        waiter = StreamWaiter(self, match_id)
        with self._lock:
            if self._open >= self.slots:
                return None
            self._open += 1
            self._waiters.setdefault(match_id, set()).add(waiter)
        return waiter

    def _leave(self, waiter: StreamWaiter) -> None:
        with self._lock:
            streams = self._waiters.get(waiter.match_id)
            if streams is None or waiter not in streams:
                return
            streams.discard(waiter)
            if not streams:
                del self._waiters[waiter.match_id]
            self._open -= 1

    @property
    def open_streams(self) -> int:
        """How many streams this process holds open."""
        return self._open

    def wake_local(self, match_id: str) -> None:
        """Wake this process's streams of `match_id`."""
        with self._lock:
            streams = list(self._waiters.get(match_id, ()))
        for waiter in streams:
            waiter.wake()

    # -- publishing ------------------------------------------------------------------------

    def publish(self, match_id: str) -> None:
        """Announce new entries of `match_id` (call after the commit): local streams at once, the
        other processes through the broker."""
        self.wake_local(match_id)
        if self._threads:
            self._outbox.put(match_id)

    def start(self) -> None:
        """Start the publisher and the listener threads (no broker URL: local streams only)."""
        if self.broker_url is None or self._threads or not self.broker_url.startswith("redis"):
            return
        for target, name in ((self._publish_loop, "publisher"), (self._listen_loop, "listener")):
            thread = threading.Thread(target=target, name=f"match-events-{name}", daemon=True)
            thread.start()
            self._threads.append(thread)

    def stop(self) -> None:
        """Stop the threads."""
        self._stopping.set()
        self._outbox.put(None)
        for thread in self._threads:
            thread.join(timeout=2)
        self._threads = []

    def _client(self) -> object:
        import redis

        return redis.Redis.from_url(
            str(self.broker_url), socket_connect_timeout=2, health_check_interval=10
        )

    def _publish_loop(self) -> None:
        import redis

        client: redis.Redis = self._client()  # type: ignore[assignment]
        pause, down = 0.5, False
        while not self._stopping.is_set():
            match_id = self._outbox.get()
            if match_id is None:
                break
            try:
                client.publish(CHANNEL_PREFIX + match_id, b"1")
                self.published += 1
                pause, down = 0.5, False
            except redis.RedisError as exc:  # the streams re-read on their next tick
                if not down:
                    log.warning("live updates: cannot publish to the broker (%s)", exc)
                down = True
                self._drop_queued()  # news is only a wake-up: what waited is stale anyway
                self._stopping.wait(pause)
                pause = min(pause * 2, 10.0)

    def _drop_queued(self) -> None:
        """Forget the news waiting to be published (keeping a stop request)."""
        while True:
            try:
                item = self._outbox.get_nowait()
            except queue.Empty:
                return
            if item is None:
                self._outbox.put(None)
                return

    def _listen_loop(self) -> None:
        import redis

        pause = 0.5
        while not self._stopping.is_set():
            try:
                client: redis.Redis = self._client()  # type: ignore[assignment]
                pubsub = client.pubsub(ignore_subscribe_messages=True)  # type: ignore[no-untyped-call]
                pubsub.psubscribe(CHANNEL_PREFIX + "*", WALLET_CHANNEL_PREFIX + "*")
                pause = 0.5
                while not self._stopping.is_set():
                    message = pubsub.get_message(timeout=1.0)
                    if message is None:
                        continue
                    channel = message.get("channel", b"")
                    if isinstance(channel, bytes):
                        channel = channel.decode()
                    self.received += 1
                    self.wake_local(key_of_channel(str(channel)))
            except redis.RedisError as exc:
                if pause == 0.5:
                    log.warning("live updates: broker listener lost (%s); reconnecting", exc)
                self._stopping.wait(pause)
                pause = min(pause * 2, 10.0)
