"""The starter-deck balance benchmark: each game's two starter decks against each other.

For every game G and bot pair B (random-vs-random, greedy-vs-greedy) it plays `games` matches
of the newest ruleset's starter decks, seats swapped on every other match (match i: seed i,
deck 0 in seat i % 2, bots seeded 2i + 1 and 2i + 2, as `metaledger engine play` seeds them),
and reports how often deck 0 won (`G_B_deck0_win_rate`, draws count as not won) and how many
matches ended by a rule of the game rather than an engine limit (`G_ended_by_rules_pct` over
both pairs, `G_B_ended_by_rules_pct` per pair). The figures do not depend on `jobs`.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

from engine import EngineError, get_game, make_bot, play_match
from ledger.bench.pool import games_to_run, map_tasks

BOT_PAIRS = ("random", "greedy")
#: matches per task handed to a worker process
_CHUNK = 100


def play_range(game: str, bot: str, start: int, stop: int) -> tuple[int, int, int, int]:
    """Matches start..stop-1 of one game and bot pair: (played, deck 0 wins, draws, by rules)."""
    g = get_game(game)
    d0, d1 = g.starter_decks
    wins = draws = by_rules = 0
    for i in range(start, stop):
        swapped = i % 2 == 1
        decks = (d1, d0) if swapped else (d0, d1)
        bots = (make_bot(bot, g, 2 * i + 1), make_bot(bot, g, 2 * i + 2))
        try:
            state, _ = play_match(g, decks, i, bots)
        except EngineError:  # the bots' action cap: neither a rule nor a result
            draws += 1
            continue
        by_rules += not state.ended_by_engine_limit
        winner = state.winner
        if winner is None:
            draws += 1
        elif (winner == 1) == swapped:
            wins += 1
    return stop - start, wins, draws, by_rules


def _tasks(games: int, names: list[str]) -> Iterator[tuple[str, str, int, int]]:
    for name in names:
        for bot in BOT_PAIRS:
            for start in range(0, games, _CHUNK):
                yield name, bot, start, min(games, start + _CHUNK)


def run(games: int = 2000, jobs: int = 1, only: str | None = None) -> dict[str, Any]:
    """Play `games` matches per game and bot pair on `jobs` processes; return the figures."""
    names = games_to_run(games, jobs, only)
    tasks = list(_tasks(games, names))
    start = time.perf_counter()
    results = map_tasks(play_range, tasks, jobs)
    totals: dict[tuple[str, str], list[int]] = {}
    for (name, bot, _, _), counts in zip(tasks, results, strict=True):
        acc = totals.setdefault((name, bot), [0, 0, 0, 0])
        for k, v in enumerate(counts):
            acc[k] += v
    out: dict[str, Any] = {"games": games, "jobs": jobs}
    for name in names:
        rules = played = 0
        for bot in BOT_PAIRS:
            n, wins, draws, by_rules = totals[(name, bot)]
            out[f"{name}_{bot}_deck0_win_rate"] = round(wins / n, 4)
            out[f"{name}_{bot}_draws"] = draws
            out[f"{name}_{bot}_ended_by_rules_pct"] = round(100 * by_rules / n, 2)
            rules += by_rules
            played += n
        out[f"{name}_ended_by_rules_pct"] = round(100 * rules / played, 2)
        out[f"{name}_ruleset"] = get_game(name).ruleset_version
    out["seconds"] = round(time.perf_counter() - start, 1)
    return out
