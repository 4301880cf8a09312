"""The shared frame of the match benchmarks (`bench balance`, `bench fuzz-engine`): which games
to run, and match ranges spread over worker processes."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from typing import Any, TypeVar

from engine import EngineError, game_names, get_game
from ledger.errors import MetaLedgerError

T = TypeVar("T")


def games_to_run(games: int, jobs: int, only: str | None) -> list[str]:
    """The game names a run covers (every game, or `only`); MetaLedgerError for bad arguments."""
    if games < 1:
        raise MetaLedgerError("games must be at least 1")
    if jobs < 1:
        raise MetaLedgerError("jobs must be at least 1")
    names = game_names() if only is None else [only]
    for name in names:
        try:
            get_game(name)
        except EngineError as exc:
            raise MetaLedgerError(str(exc)) from exc
    return names


def map_tasks(run: Callable[..., T], tasks: Sequence[tuple[Any, ...]], jobs: int) -> list[T]:
    """`run(*task)` for every task, in order: in this process, or on `jobs` spawned processes
    (`run` must be a module-level function)."""
    if jobs == 1:
        return [run(*task) for task in tasks]
    with ProcessPoolExecutor(jobs, mp_context=get_context("spawn")) as pool:
        return list(pool.map(run, *zip(*tasks, strict=True)))
