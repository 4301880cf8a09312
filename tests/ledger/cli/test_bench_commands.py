"""`metaledger bench ...`: the commands that hand their options to their bench's `run` by name
name only arguments that `run` takes, and a command prints the bench's JSON."""

from __future__ import annotations

import importlib
import inspect
import json
import subprocess
import sys

import pytest
import typer

from ledger.cli.bench import app

#: the commands whose options are their bench's keyword arguments, as they are
PASSED_THROUGH = ("engine", "gas", "api", "anchor", "fuzz", "verify", "scale", "trade")


@pytest.mark.parametrize("name", PASSED_THROUGH)
def test_every_option_is_an_argument_of_the_bench(name: str) -> None:
    group = typer.main.get_command(app)
    assert isinstance(group, typer.core.TyperGroup)
    command = group.commands[name]
    options = {p.name: p.default for p in command.params if p.name != "as_json"}
    run = importlib.import_module(f"ledger.bench.{name}").run
    bound = inspect.signature(run).bind(**options)
    assert set(bound.arguments) == set(options)


def test_bench_engine_prints_one_json_object() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "ledger.cli", "bench", "engine", "--seconds", "0.5", "--json"],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    result = json.loads(done.stdout)
    assert result["game"] == "metax" and result["matches"] >= 1
