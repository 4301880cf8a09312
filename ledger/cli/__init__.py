"""The `metaledger` command line. Each command group lives in its own module."""

from __future__ import annotations

import sys

import typer

from ledger.cli import audit, bench, chain, contracts, db, doctor, engine, play, stack

app = typer.Typer(
    name="metaledger",
    help="Verifiable trading-card ownership and match results.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)
app.add_typer(engine.app, name="engine", help="Play, replay and test matches on the rules engine.")
app.add_typer(chain.app, name="chain", help="The local Anvil chain: start, stop, deploy, seed.")
app.add_typer(
    contracts.app, name="contracts", help="Compile the Solidity contracts into artifacts."
)
app.add_typer(bench.app, name="bench", help="Benchmarks that print JSON.")
app.add_typer(audit.app, name="audit", help="Export match bundles for auditors.")
app.add_typer(db.app, name="db", help="Database migrations.")
app.command("verify")(audit.verify)
app.command("play")(play.play)
app.command("doctor")(doctor.doctor)
app.command("run")(stack.run)
app.command("api")(stack.api)
app.command("worker")(stack.worker)
app.command("beat")(stack.beat)


def main() -> None:
    """Entry point: run the CLI, turning expected errors into one-line messages."""
    from engine import EngineError
    from ledger.errors import MetaLedgerError

    try:
        app()
    except (MetaLedgerError, EngineError) as exc:
        typer.secho(f"error: {exc}", fg=typer.colors.RED, err=True)
        sys.exit(2)
    except KeyboardInterrupt:
        sys.exit(130)
