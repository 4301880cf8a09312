"""The engine fuzz: random matches of every game, every invariant checked after every action.

Match i of a game: the newest ruleset's starter decks (seats swapped on odd i), seed i, and
each action drawn uniformly from `legal_actions()` by a PRNG seeded with i (no bot
preferences, so stalling lines are explored too). Before the first action and after each one:

- `clone()` and `from_json(json(to_json()))` hash like the state, and the restored state lists
  the same legal actions;
- while running, some legal action exists, `current_player` is 0 or 1, and every legal action
  applies to a clone without an error; once over, none is listed;
- both players' and a spectator's observations are JSON objects that survive a JSON round
  trip unchanged; the current player's legal moves (in its ids) are plain JSON and each
  resolves back to its legal action;
- the game's own `invariant_breaks()` is empty, and `card_count()` never changes once set;
- at the end, the recorded transcript replays to the same final hash and outcome.

A broken check counts an invariant break (one per match at most: the match stops there); any
other exception a crash. The figures do not depend on `jobs`.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

from engine import VIEWERS, EngineError, GameState, Prng, Recorder, get_game, replay
from ledger.bench.pool import games_to_run, map_tasks
from ledger.errors import MetaLedgerError

#: matches per task handed to a worker process
_CHUNK = 50
#: examples of breaks and crashes kept per game
_EXAMPLES = 3


class InvariantBreak(Exception):
    """A check of the fuzz failed."""


def _require(ok: bool, message: str) -> None:
    if not ok:
        raise InvariantBreak(message)


def check_state(state: GameState, cards: int | None) -> int | None:
    """Every check on one state; returns the card count to hold the next state to."""
    h = state.hash_bytes()
    _require(state.clone().hash_bytes() == h, "clone() hashes differently")
    restored = type(state).from_json(json.loads(json.dumps(state.to_json())))
    _require(restored.hash_bytes() == h, "from_json(to_json()) hashes differently")
    legal = state.legal_actions()
    _require(restored.legal_actions() == legal, "the restored state lists other legal actions")
    if state.is_over:
        _require(not legal, "a finished match lists legal actions")
    else:
        _require(bool(legal), "a running match has no legal action")
        _require(state.current_player in (0, 1), f"current_player is {state.current_player}")
        for action in legal:
            try:
                state.clone().apply(action)
            except EngineError as exc:
                raise InvariantBreak(f"legal action {action} does not apply: {exc}") from exc
    for viewer in VIEWERS:
        obs = state.observation(viewer)
        _require(isinstance(obs, dict), "an observation is not an object")
        _require(json.loads(json.dumps(obs)) == obs, "an observation is not plain JSON")
    if legal:
        me = state.current_player
        moves = state.legal_moves(me)
        _require(json.loads(json.dumps(moves)) == moves, "the legal moves are not plain JSON")
        _require(
            [state.resolve(m["action"], me) for m in moves] == legal,
            "a legal move does not resolve to its action",
        )
    breaks = state.invariant_breaks()
    _require(not breaks, "; ".join(breaks))
    count = state.card_count()
    if cards is not None:
        _require(count == cards, f"card count went from {cards} to {count}")
    return count if count is not None else cards


def fuzz_range(game: str, start: int, stop: int) -> tuple[int, int, int, list[str]]:
    """Matches start..stop-1 of one game: (played, invariant breaks, crashes, examples)."""
    g = get_game(game)
    d0, d1 = g.starter_decks
    breaks = crashes = 0
    examples: list[str] = []
    for i in range(start, stop):
        decks = (d1, d0) if i % 2 else (d0, d1)
        try:
            rec = Recorder(g.name, decks, i)
            state = rec.state
            pick = Prng(i)
            cards = check_state(state, None)
            while not state.is_over:
                legal = state.legal_actions()
                rec.apply(legal[pick.below(len(legal))])
                cards = check_state(state, cards)
            t = rec.finish()
            result = replay(t.to_json())
            _require(result.final_hash == t.final_hash, "the replay ends in another state")
            _require(result.winner == t.winner, "the replay has another winner")
        except InvariantBreak as exc:
            breaks += 1
            if len(examples) < _EXAMPLES:
                examples.append(f"match {i}: {exc}")
        except Exception as exc:  # a crash of any kind is what this counts
            crashes += 1
            if len(examples) < _EXAMPLES:
                examples.append(f"match {i}: crash {type(exc).__name__}: {exc}")
    return stop - start, breaks, crashes, examples


def _tasks(first: int, games: int, names: list[str]) -> Iterator[tuple[str, int, int]]:
    stop = first + games
    for name in names:
        for start in range(first, stop, _CHUNK):
            yield name, start, min(stop, start + _CHUNK)


def run(games: int = 100, jobs: int = 1, only: str | None = None, first: int = 0) -> dict[str, Any]:
    """Fuzz matches `first`..`first + games - 1` of each game on `jobs` processes; return the
    counts per game (a long run can be split into ranges that add up)."""
    names = games_to_run(games, jobs, only)
    if first < 0:
        raise MetaLedgerError("first must be at least 0")
    tasks = list(_tasks(first, games, names))
    start = time.perf_counter()
    results = map_tasks(fuzz_range, tasks, jobs)
    out: dict[str, Any] = {"jobs": jobs, "first": first}
    for name in names:
        played = broken = crashed = 0
        examples: list[str] = []
        for (task_game, _, _), (n, b, c, ex) in zip(tasks, results, strict=True):
            if task_game == name:
                played, broken, crashed = played + n, broken + b, crashed + c
                examples += ex
        out[name] = {
            "games": played,
            "invariant_breaks": broken,
            "crashes": crashed,
            "examples": examples[:_EXAMPLES],
            "ruleset": get_game(name).ruleset_version,
        }
    out["seconds"] = round(time.perf_counter() - start, 1)
    return out
