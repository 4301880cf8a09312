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

if TYPE_CHECKING:
    from engine import GameState
    from ledger.settings import Settings


class StateCache:
    """A bounded LRU of engine states by (match id, version). Only a cache: the database
    (snapshot + actions) can always rebuild a state, so any process may serve any match."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._items: OrderedDict[tuple[str, int], GameState] = OrderedDict()
        self._lock = threading.Lock()

    def take(self, match_id: str, version: int) -> GameState | None:
        """Remove and return the state at (match, version), if cached."""
        with self._lock:
            return self._items.pop((match_id, version), None)

    def peek(self, match_id: str, version: int) -> GameState | None:
        """The cached state at (match, version) without removing it (callers must not mutate it)."""
        with self._lock:
            state = self._items.get((match_id, version))
            if state is not None:
                self._items.move_to_end((match_id, version))
            return state

    def put(self, match_id: str, version: int, state: GameState) -> None:
        """Cache a state (evicting the least recently used beyond `size`)."""
        if self.size <= 0:
            return
        with self._lock:
            self._items[(match_id, version)] = state
            self._items.move_to_end((match_id, version))
            while len(self._items) > self.size:
                self._items.popitem(last=False)

    def __len__(self) -> int:
        return len(self._items)


@dataclass
class Context:
    """Everything a service needs besides the request's database session."""

    db: Engine
    chain: ChainClient
    settings: Settings
    signer: Signer
    cache: StateCache = field(default_factory=lambda: StateCache(256))
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
        )

    @property
    def chain_id(self) -> int:
        """The chain id of the deployment (checked against the node at start)."""
        return self.chain.addresses.chain_id

    @property
    def bot_address(self) -> str:
        """The address that plays the operator's bot seat (the result signer's address)."""
        return str(self.signer.address)
