"""The engine state of a match in an API process: the process's cached state of the match,
brought forward with the actions applied since (by this process or another), else the state
snapshot plus the actions after it. The cache is only a cache: any process may serve any match."""

from __future__ import annotations

from engine import Action, GameState
from ledger.catalogue.service import load_game
from ledger.db import DB
from ledger.errors import MatchNotActive
from ledger.matches import repository as repo
from ledger.matches.repository import AnyMatch
from ledger.runtime.context import Context

#: a full state snapshot is written at least every this many actions
SNAPSHOT_EVERY = 64


def load_state(db: DB, ctx: Context, match: AnyMatch, *, take: bool) -> GameState:
    """The engine state at `match.version`: the process's cached state of the match (brought
    forward with the actions applied since, by this process or another), else the snapshot plus
    the later actions. `take`: the caller owns the state (it is no longer cached)."""
    if not take:
        peeked = ctx.cache.peek(match.id, match.version)
        if peeked is not None:
            return peeked.clone()
    held = ctx.cache.take(match.id)
    if held is not None and 0 <= match.version - held[0] <= SNAPSHOT_EVERY:
        since, state = held
    else:
        snapshot, since = repo.snapshot(db, match.id)
        if snapshot is None:
            raise MatchNotActive("the match has not started")
        state = load_game(match.game).state_class.from_json(snapshot)
    if since < match.version:
        for action in repo.action_rows(db, match.id, since=since, limit=match.version - since):
            state.apply(Action.from_json(action))
    if not take:
        ctx.cache.put(match.id, match.version, state.clone())
    return state
