"""Live-update fan-out: "match M has new entries" reaches every stream of M in every API process.

A process that commits a change to a match calls `publish(M)`: its own streams of M wake at once
and the news goes, through the broker, to the other processes that hold a stream of M (from a
background thread: a move never waits for Redis). Each process has an inbox channel
(`metaledger:inbox:<origin>`) and, while it holds a stream of M, is listed in the broker's set
`metaledger:followers:M`; the publisher gathers news for PUBLISH_WINDOW_SECONDS, reads the
followers of each match in one round trip and publishes the match id to each other follower's
inbox. A process alone on a match (one API process, or a match whose players are on one process)
sends nothing and hears no echo. The news carries no data: a woken stream reads its viewer's
entries from the database, from the index it has sent so far, so a message lost on the way
(Redis down, a reconnect, a follower listed a moment late) only delays entries until the next
message or the stream's keep-alive tick; a process that (re)registers as a follower wakes its
streams of that match, which read what they may have missed meanwhile.

The same hub carries wallets' balance news: the indexer (in the worker), after committing transfers
that change a wallet's balances, publishes `metaledger:wallet:<address>` (`publish_wallet_news`);
the API's streams of that wallet's collection (`wallet_key`) wake and re-read its balances.

A change committed by a move in this process can also hand its streams the news itself
(`push_local`): a play channel (`api.routes.play`) then sends it without reading the database.
A wake with nothing handed over (another process's change, a timeout, a resignation) is read
from the database as before.

`slots` bounds the streams one process holds open (the API answers 503 past it)."""

from __future__ import annotations

import asyncio
import logging
import queue
import threading
import uuid
from collections import deque
from collections.abc import Callable
from contextlib import suppress
from typing import Any

log = logging.getLogger(__name__)

INBOX_PREFIX = "metaledger:inbox:"
FOLLOWERS_PREFIX = "metaledger:followers:"
#: a followers set outlives a process that died without leaving by this long at most
FOLLOWERS_TTL_SECONDS = 3600
#: how long the publisher gathers news before one round trip to the broker: other processes'
#: streams hear of a change this much later, and a busy process sends a match's news once a window
PUBLISH_WINDOW_SECONDS = 0.01
#: what one stream keeps of the news handed to it and not yet sent (older news is dropped: the
#: stream then reads what it missed from the database)
PUSHED_MAX = 64
WALLET_CHANNEL_PREFIX = "metaledger:wallet:"


WALLET_KEY_PREFIX = "wallet:"
FOLLOW, LEAVE = "follow", "leave"


def wallet_key(address: str) -> str:
    """The hub's key of the streams following `address`'s balances."""
    return WALLET_KEY_PREFIX + address.lower()


def _key_of(message: dict[str, Any]) -> str:
    """The hub's key a broker message names: a match id sent to this process's inbox, or a
    wallet's key from the wallet channel it came on."""
    channel, data = message.get("channel", b""), message.get("data", b"")
    channel = channel.decode() if isinstance(channel, bytes) else str(channel)
    if channel.startswith(WALLET_CHANNEL_PREFIX):
        return wallet_key(channel.removeprefix(WALLET_CHANNEL_PREFIX))
    return data.decode() if isinstance(data, bytes) else str(data)


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
        #: the seat of a play channel, set once it knows it (its news is handed over as that
        #: seat sees it); None for other streams
        self.seat: int | None = None
        self.loop = asyncio.get_running_loop()
        self.thread = threading.get_ident()
        self.news = asyncio.Event()
        #: wakes from the loop's own thread are ignored (a play channel's own move: its answer
        #: says what changed); those from other threads still wake it
        self.muted = False
        #: woken by the keep-alive tick (`MatchEvents.tick`)
        self.ticked = False
        #: news handed over by `MatchEvents.push_local`, oldest first
        self.pushed: deque[Any] = deque(maxlen=PUSHED_MAX)

    def wake(self) -> None:
        """Set the event from any thread (at once on the loop's own: no wake-up of the loop)."""
        if threading.get_ident() == self.thread:
            if not self.muted:
                self.news.set()
            return
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
        #: news to announce (a match id), registrations ((FOLLOW or LEAVE, match id)), or None
        self._outbox: queue.SimpleQueue[str | tuple[str, str] | None] = queue.SimpleQueue()
        #: this process's name on the broker (its inbox channel, its entry in followers sets)
        self.origin = uuid.uuid4().hex
        self.inbox = INBOX_PREFIX + self.origin
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
            first = match_id not in self._waiters
            self._waiters.setdefault(match_id, set()).add(waiter)
        if first and self._threads and not match_id.startswith(WALLET_KEY_PREFIX):
            self._outbox.put((FOLLOW, match_id))
        return waiter

    def _leave(self, waiter: StreamWaiter) -> None:
        with self._lock:
            streams = self._waiters.get(waiter.match_id)
            if streams is None or waiter not in streams:
                return
            streams.discard(waiter)
            last = not streams
            if last:
                del self._waiters[waiter.match_id]
            self._open -= 1
        if last and self._threads and not waiter.match_id.startswith(WALLET_KEY_PREFIX):
            self._outbox.put((LEAVE, waiter.match_id))

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

    def tick(self) -> None:
        """The keep-alive tick: wake every stream of this process, marked as ticked (call on
        the event loop's thread)."""
        with self._lock:
            streams = [w for waiters in self._waiters.values() for w in waiters]
        for waiter in streams:
            waiter.ticked = True
            waiter.news.set()

    def push_local(self, match_id: str, news_for: Callable[[StreamWaiter], Any]) -> None:
        """Hand each of this process's streams of `match_id` its news, `news_for(stream)` (call
        on the event loop's thread, right after the commit whose `publish` woke them); None is
        no news for that stream."""
        with self._lock:
            streams = list(self._waiters.get(match_id, ()))
        for waiter in streams:
            news = news_for(waiter)
            if news is not None:
                waiter.pushed.append(news)

    def has_local(self, match_id: str) -> bool:
        """Whether this process holds a stream of `match_id`."""
        return match_id in self._waiters

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
            first = self._outbox.get()
            if first is None:
                break
            # news is only a wake-up: what comes within the gathering window goes in one round
            # trip, each match once (a busy process announces per window, not per move)
            self._stopping.wait(PUBLISH_WINDOW_SECONDS)
            news, registrations, stop = self._gathered(first)
            try:
                self._register(client, registrations)
                self._announce(client, news)
                pause, down = 0.5, False
            except redis.RedisError as exc:  # the streams re-read on their next tick
                if not down:
                    log.warning("live updates: cannot publish to the broker (%s)", exc)
                down = True
                self._drop_queued()  # news is only a wake-up: what waited is stale anyway
                self._stopping.wait(pause)
                pause = min(pause * 2, 10.0)
                self._follow_again()  # registrations may have been dropped with it
            if stop:
                break

    def _register(self, client: Any, registrations: list[tuple[str, str]]) -> None:
        """List or unlist this process as a follower of matches; then wake the streams of the
        matches it now follows, to read what they may have missed while it was not listed."""
        if not registrations:
            return
        with client.pipeline(transaction=False) as pipe:
            for verb, match_id in registrations:
                key = FOLLOWERS_PREFIX + match_id
                if verb == FOLLOW:
                    pipe.sadd(key, self.origin)
                    pipe.expire(key, FOLLOWERS_TTL_SECONDS)
                else:
                    pipe.srem(key, self.origin)
            pipe.execute()
        for verb, match_id in registrations:
            if verb == FOLLOW:
                self.wake_local(match_id)

    def _announce(self, client: Any, news: dict[str, None]) -> None:
        """Publish each match id to the inbox of every other process following it."""
        if not news:
            return
        matches = list(news)
        with client.pipeline(transaction=False) as pipe:
            for match_id in matches:
                pipe.smembers(FOLLOWERS_PREFIX + match_id)
            followers = pipe.execute()
        sends = [
            (INBOX_PREFIX + other.decode(), match_id)
            for match_id, members in zip(matches, followers, strict=True)
            for other in members
            if other.decode() != self.origin
        ]
        if not sends:
            return
        with client.pipeline(transaction=False) as pipe:
            for inbox, match_id in sends:
                pipe.publish(inbox, match_id)
            heard = pipe.execute()
        self.published += len(sends)
        gone = [(i, m) for (i, m), n in zip(sends, heard, strict=True) if n == 0]
        if gone:  # a process that died without leaving: no longer listed
            with client.pipeline(transaction=False) as pipe:
                for inbox, match_id in gone:
                    pipe.srem(FOLLOWERS_PREFIX + match_id, inbox.removeprefix(INBOX_PREFIX))
                pipe.execute()

    def _gathered(
        self, first: str | tuple[str, str]
    ) -> tuple[dict[str, None], list[tuple[str, str]], bool]:
        """The news queued from `first` on (each match once, in order), the registrations in
        order, and whether a stop request was among them."""
        news: dict[str, None] = {}
        registrations: list[tuple[str, str]] = []
        item: str | tuple[str, str] | None = first
        while True:
            if item is None:
                return news, registrations, True
            if isinstance(item, tuple):
                registrations.append(item)
            else:
                news[item] = None
            try:
                item = self._outbox.get_nowait()
            except queue.Empty:
                return news, registrations, False

    def _follow_again(self) -> None:
        """List this process again as a follower of every match it holds a stream of (after
        the listener (re)connected: the broker may have restarted empty)."""
        with self._lock:
            held = [k for k in self._waiters if not k.startswith(WALLET_KEY_PREFIX)]
        for match_id in held:
            self._outbox.put((FOLLOW, match_id))

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
                pubsub.subscribe(self.inbox)
                pubsub.psubscribe(WALLET_CHANNEL_PREFIX + "*")
                self._follow_again()
                pause = 0.5
                while not self._stopping.is_set():
                    message = pubsub.get_message(timeout=1.0)
                    if message is None:
                        continue
                    self.received += 1
                    self.wake_local(_key_of(message))
            except redis.RedisError as exc:
                if pause == 0.5:
                    log.warning("live updates: broker listener lost (%s); reconnecting", exc)
                self._stopping.wait(pause)
                pause = min(pause * 2, 10.0)
