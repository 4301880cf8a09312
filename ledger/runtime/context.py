"""The per-process context the services run in: database engine, chain client, signer, caches."""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from sqlalchemy import Engine

from ledger.chain.client import ChainClient
from ledger.keys.roles import Role, load_signer
from ledger.keys.signer import Signer
from ledger.runtime.events import MatchEvents
from ledger.runtime.sessions import SessionCache

if TYPE_CHECKING:
    from engine import GameState
    from ledger.db.models import MatchSeat
    from ledger.settings import Settings


class StateCache:
    """A bounded LRU of the latest engine state this process holds of each match, with its
    version and, when the move path wrote it, the match's row at that version. Only a cache:
    the database (snapshot + actions) can always rebuild a state, and a state behind the
    match's version is brought forward with the actions applied since (by another process,
    say), so any process may serve any match."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._items: OrderedDict[str, tuple[int, GameState, object | None]] = OrderedDict()
        self._lock = threading.Lock()

    def take(self, match_id: str) -> tuple[int, GameState] | None:
        """Remove and return the cached (version, state) of a match, if any (its row goes too)."""
        with self._lock:
            item = self._items.pop(match_id, None)
        return None if item is None else (item[0], item[1])

    def peek(self, match_id: str, version: int) -> GameState | None:
        """The cached state of a match if it is at `version`, without removing it (callers
        must not mutate it)."""
        with self._lock:
            item = self._items.get(match_id)
            if item is None or item[0] != version:
                return None
            self._items.move_to_end(match_id)
            return item[1]

    def row(self, match_id: str, version: int) -> object | None:
        """The match's row as the move path last wrote it, if the cache holds the match at
        `version` (callers must not mutate it)."""
        with self._lock:
            item = self._items.get(match_id)
        return None if item is None or item[0] != version else item[2]

    def put(self, match_id: str, version: int, state: GameState, row: object | None = None) -> None:
        """Cache the state of a match at `version`, and its row at that version if given (a
        row already held for that version is kept); evicts the least recently used beyond
        `size`; an older version than the one cached is ignored."""
        if self.size <= 0:
            return
        with self._lock:
            held = self._items.get(match_id)
            if held is not None:
                if held[0] > version:
                    return
                if row is None and held[0] == version:
                    row = held[2]
            self._items[match_id] = (version, state, row)
            self._items.move_to_end(match_id)
            while len(self._items) > self.size:
                self._items.popitem(last=False)

    def __len__(self) -> int:
        return len(self._items)


class SeatCache:
    """A bounded LRU of the seats of started matches by match id. Seats do not change once a
    match has started, so this process may reuse them instead of reading them again."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._items: OrderedDict[str, list[MatchSeat]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, match_id: str) -> list[MatchSeat] | None:
        """The seats of a started match, if cached."""
        with self._lock:
            seats = self._items.get(match_id)
            if seats is not None:
                self._items.move_to_end(match_id)
            return seats

    def put(self, match_id: str, seats: list[MatchSeat]) -> None:
        """Remember the seats of a started match."""
        if self.size <= 0:
            return
        with self._lock:
            self._items[match_id] = seats
            while len(self._items) > self.size:
                self._items.popitem(last=False)


@dataclass
class Context:
    """Everything a service needs besides the request's database session."""

    db: Engine
    chain: ChainClient
    settings: Settings
    signer: Signer
    cache: StateCache = field(default_factory=lambda: StateCache(256))
    sessions: SessionCache = field(default_factory=lambda: SessionCache(0.0))
    seats: SeatCache = field(default_factory=lambda: SeatCache(256))
    events: MatchEvents = field(default_factory=lambda: MatchEvents(None, 256))
    _chain_id: int | None = None

    @classmethod
    def create(cls, settings: Settings, db: Engine, chain: ChainClient | None = None) -> Context:
        """A context from settings (chain client from the deployment file unless given) with the
        result signer's key (the one key of the API process)."""
        chain = chain or ChainClient.from_settings(settings)
        signer = load_signer(settings, Role.RESULT_SIGNER, chain.addresses.chain_id)
        return cls(
            db=db,
            chain=chain,
            settings=settings,
            signer=signer,
            cache=StateCache(settings.match_cache_size),
            sessions=SessionCache(settings.session_cache_seconds),
            seats=SeatCache(settings.match_cache_size),
            events=MatchEvents(settings.resolved_broker_url, settings.events_max_streams),
        )

    @property
    def chain_id(self) -> int:
        """The chain id of the deployment (checked against the node at start)."""
        return self.chain.addresses.chain_id

    @property
    def bot_address(self) -> str:
        """The address that plays the operator's bot seat (the result signer's address)."""
        return str(self.signer.address)
