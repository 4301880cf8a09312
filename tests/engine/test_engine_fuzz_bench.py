"""`metaledger bench fuzz-engine` and `bench balance`: a small run of each (the CLI as a
subprocess), and the fuzz catches a planted fault."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from engine import game_names
from engine.metax.encoding import MetaXState
from ledger.bench import balance, fuzz_engine
from ledger.errors import MetaLedgerError

ROOT = Path(__file__).parents[2]


def _cli(*args: str) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-m", "ledger.cli", "bench", *args, "--json"],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert isinstance(result, dict)
    return result


def test_fuzz_engine_runs_every_game_without_a_break() -> None:
    result = _cli("fuzz-engine", "--games", "6")
    for name in game_names():
        figures = result[name]
        assert isinstance(figures, dict)
        assert figures["games"] == 6
        assert (figures["invariant_breaks"], figures["crashes"]) == (0, 0), figures["examples"]


def test_fuzz_engine_counts_a_planted_fault(monkeypatch: pytest.MonkeyPatch) -> None:
    clone = MetaXState.clone

    def lossy_clone(self: MetaXState) -> MetaXState:
        copy = clone(self)
        copy.mp = [self.mp[0] + 1, self.mp[1]]  # a clone that is not the state
        return copy

    monkeypatch.setattr(MetaXState, "clone", lossy_clone)
    played, breaks, crashes, examples = fuzz_engine.fuzz_range("metax", 0, 3)
    assert (played, breaks, crashes) == (3, 3, 0)
    assert "clone() hashes differently" in examples[0]


def test_fuzz_engine_counts_a_crash(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(self: MetaXState, player: int) -> dict[str, object]:
        raise RuntimeError("observation failed")

    monkeypatch.setattr(MetaXState, "observation", broken)
    _, breaks, crashes, examples = fuzz_engine.fuzz_range("metax", 0, 2)
    assert (breaks, crashes) == (0, 2) and "crash RuntimeError" in examples[0]


def test_balance_reports_every_game_and_bot_pair() -> None:
    result = _cli("balance", "--games", "4", "--jobs", "2")
    for name in game_names():
        for bot in balance.BOT_PAIRS:
            rate = result[f"{name}_{bot}_deck0_win_rate"]
            assert isinstance(rate, float) and 0 <= rate <= 1
        assert result[f"{name}_ended_by_rules_pct"] == 100.0
    assert result["games"] == 4


def test_balance_is_the_same_on_one_process_or_two() -> None:
    def figures(jobs: int) -> dict[str, object]:
        result = balance.run(games=6, jobs=jobs, only="metax")
        return {k: v for k, v in result.items() if k not in ("seconds", "jobs")}

    assert figures(1) == figures(2)


def test_bad_arguments_are_refused() -> None:
    for run in (balance.run, fuzz_engine.run):
        with pytest.raises(MetaLedgerError):
            run(games=0)
        with pytest.raises(MetaLedgerError):
            run(games=1, jobs=0)
        with pytest.raises(MetaLedgerError):
            run(games=1, only="chess")
    with pytest.raises(MetaLedgerError):
        fuzz_engine.run(games=1, first=-1)


def test_fuzz_engine_ranges_add_up() -> None:
    def counts(result: dict[str, object]) -> tuple[object, ...]:
        figures = result["metaversus"]
        assert isinstance(figures, dict)
        return figures["games"], figures["invariant_breaks"], figures["crashes"]

    whole = fuzz_engine.run(games=4, only="metaversus")
    halves = [fuzz_engine.run(games=2, only="metaversus", first=f) for f in (0, 2)]
    assert [h["first"] for h in halves] == [0, 2]
    assert counts(whole) == (4, 0, 0)
    assert [counts(h) for h in halves] == [(2, 0, 0), (2, 0, 0)]


def test_fuzz_engine_counts_a_move_that_does_not_resolve(monkeypatch: pytest.MonkeyPatch) -> None:
    resolve = MetaXState.resolve

    def off_by_one(self: MetaXState, move: object, viewer: int) -> object:
        action = resolve(self, move, viewer)
        return action._replace(args=tuple(a + 1 for a in action.args)) if action.args else action

    monkeypatch.setattr(MetaXState, "resolve", off_by_one)
    _, breaks, _, examples = fuzz_engine.fuzz_range("metax", 0, 2)
    assert breaks == 2 and "a legal move does not resolve to its action" in examples[0]
