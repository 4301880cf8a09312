"""`metaledger bench ...`: benchmarks that print one JSON object."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType
from typing import Any

import typer
from rich.console import Console
from rich.table import Table

from ledger.cli.options import command_group

app = command_group(no_args_is_help=True)

#: every benchmark's --json flag
AsJson = typer.Option(False, "--json", help="print one JSON object")


def _run(ctx: typer.Context, bench: ModuleType) -> None:
    """Run `bench.run` with the command's options as its keyword arguments of the same names,
    then print the result (`--json`: one JSON object)."""
    options = dict(ctx.params)
    as_json = options.pop("as_json")
    _emit(bench.run(**options), as_json)


def _emit(result: dict[str, Any], as_json: bool) -> None:
    if as_json:
        typer.echo(json.dumps(result, sort_keys=True))
        return
    table = Table("metric", "value")
    for key, value in result.items():
        table.add_row(key, json.dumps(value))
    Console().print(table)


@app.command("engine")
def bench_engine(
    ctx: typer.Context,
    game: str = typer.Option("metax", help="metax, metamasters or metaversus"),
    seconds: float = typer.Option(10.0, help="how long to play random-vs-random matches"),
    as_json: bool = AsJson,
) -> None:
    """Random-vs-random matches on one core: throughput, replay speed, state size, memory."""
    from ledger.bench import engine as bench

    _run(ctx, bench)


@app.command("balance")
def bench_balance(
    games: int = typer.Option(
        2000, help="matches per game and bot pair (seats swapped every other)"
    ),
    jobs: int = typer.Option(1, help="worker processes"),
    game: str = typer.Option("", help="only this game (default: every game)"),
    as_json: bool = AsJson,
) -> None:
    """Starter deck against starter deck, random-vs-random and greedy-vs-greedy, per game."""
    from ledger.bench import balance as bench

    _emit(bench.run(games=games, jobs=jobs, only=game or None), as_json)


@app.command("fuzz-engine")
def bench_fuzz_engine(
    games: int = typer.Option(100, help="random matches per game"),
    first: int = typer.Option(0, help="index (and seed) of the first match: runs split in ranges"),
    jobs: int = typer.Option(1, help="worker processes"),
    game: str = typer.Option("", help="only this game (default: every game)"),
    as_json: bool = AsJson,
) -> None:
    """Random matches of every game with every invariant checked after every action: clone,
    hash and JSON round trips, legal actions, observations and moves, card counts, replay."""
    from ledger.bench import fuzz_engine as bench

    _emit(bench.run(games=games, jobs=jobs, only=game or None, first=first), as_json)


@app.command("gas")
def bench_gas(ctx: typer.Context, as_json: bool = AsJson) -> None:
    """Deploy to a fresh Anvil and measure gas of the main contract operations."""
    from ledger.bench import gas as bench

    _run(ctx, bench)


@app.command("api")
def bench_api(
    ctx: typer.Context,
    seconds: float = typer.Option(30.0, help="duration of the open-loop deck phase"),
    rate: float = typer.Option(100.0, help="open-loop deck registrations per second"),
    clients: int = typer.Option(50, help="closed-loop clients for the max-throughput deck phase"),
    minutes: float = typer.Option(10.0, help="length of the soak whose RSS growth is reported"),
    processes: int = typer.Option(2, min=1, help="API processes of the multi-process phase"),
    match_clients: int = typer.Option(4, min=1, help="load-generator clients (baseline, matches)"),
    postgres: bool = typer.Option(True, help="also measure moves on PostgreSQL"),
    profile: Path | None = typer.Option(None, help="write py-spy flame graphs (SVG) here"),
    as_json: bool = AsJson,
) -> None:
    """Run the API against a real Anvil: a bare baseline, moves per second (SQLite, several
    processes, PostgreSQL), deck verification latency and throughput, memory over a soak."""
    from ledger.bench import api as bench

    _run(ctx, bench)


@app.command("anchor")
def bench_anchor(
    ctx: typer.Context,
    results: int = typer.Option(100_000, help="signed results to anchor for the memory figure"),
    as_json: bool = AsJson,
) -> None:
    """Feed signed results through outbox, worker and chain: throughput, gas, memory."""
    from ledger.bench import anchor as bench

    _run(ctx, bench)


@app.command("fuzz")
def bench_fuzz(
    ctx: typer.Context,
    requests: int = typer.Option(10_000, help="schemathesis requests before the hostile corpus"),
    verify: bool = typer.Option(True, help="also run the hostile bundle corpus through verify"),
    as_json: bool = AsJson,
) -> None:
    """Fuzz a local stack it starts: schemathesis over the whole OpenAPI, then the hostile corpus
    on every endpoint and on `metaledger verify`; 5xx answers, crashes and API memory."""
    from ledger.bench import fuzz as bench

    _run(ctx, bench)


@app.command("verify")
def bench_verify(
    ctx: typer.Context,
    bundles: int = typer.Option(1000, min=1, help="anchored bundles to make and verify"),
    jobs: int = typer.Option(0, min=0, help="verify worker processes (0: one per core)"),
    as_json: bool = AsJson,
) -> None:
    """Make anchored bundles the real way (matches, signed results, batches), then time
    `metaledger verify FOLDER --rpc URL` over them: bundles per second."""
    from ledger.bench import verify as bench

    _run(ctx, bench)


@app.command("scale")
def bench_scale(
    ctx: typer.Context,
    results: int = typer.Option(20_000, help="play until this many signed results are in"),
    api_processes: int = typer.Option(2, help="API processes (at least 2)"),
    workers: int = typer.Option(2, help="Celery workers (at least 2)"),
    players: int = typer.Option(24, help="concurrent players"),
    as_json: bool = AsJson,
) -> None:
    """Scale-out with faults: PostgreSQL, Redis, several API processes and workers, one beat,
    a log-limited RPC proxy; SIGKILLs, a reorg and a fee spike; counts results anchored."""
    from ledger.bench import scale as bench

    _run(ctx, bench)


@app.command("trade")
def bench_trade(
    ctx: typer.Context,
    offers: int = typer.Option(10_000, help="signed offers posted before the list is timed"),
    requests: int = typer.Option(2_000, help="GET /offers requests timed, one at a time"),
    clients: int = typer.Option(8, help="concurrent clients posting offers"),
    as_json: bool = AsJson,
) -> None:
    """The offer book on a real Anvil: offers created per second, GET /offers p99 latency."""
    from ledger.bench import trade as bench

    _run(ctx, bench)
