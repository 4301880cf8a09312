"""The `metaledger` command line, a leaf: each command's module is imported only when it runs.

So `metaledger verify` loads the verifier and nothing of the database, the API or the local
stack, and `metaledger verify --help` starts quickly."""

from __future__ import annotations

import importlib
import sys
from typing import Any

import typer
from typer.core import TyperGroup

from ledger.cli.options import command_group

#: command -> (module, attribute: a Typer app or a command function, help of a command group)
COMMANDS: dict[str, tuple[str, str, str | None]] = {
    "verify": ("ledger.cli.audit", "verify", None),
    "play": ("ledger.cli.play", "play", None),
    "trade": (
        "ledger.cli.trade",
        "app",
        "Trade cards through the offer book: list, offer, fill, cancel, history.",
    ),
    "doctor": ("ledger.cli.doctor", "doctor", None),
    "run": ("ledger.cli.stack", "run", None),
    "api": ("ledger.cli.stack", "api", None),
    "worker": ("ledger.cli.stack", "worker", None),
    "beat": ("ledger.cli.stack", "beat", None),
    "engine": ("ledger.cli.engine", "app", "Play, replay and test matches on the rules engine."),
    "chain": (
        "ledger.cli.chain",
        "app",
        "The chain: start, stop, deploy, seed, status; the result signers.",
    ),
    "keys": ("ledger.cli.keys", "app", "Encrypted keystore files of the operator's keys."),
    "contracts": ("ledger.cli.contracts", "app", "Compile the Solidity contracts into artifacts."),
    "bench": ("ledger.cli.bench", "app", "Benchmarks that print JSON."),
    "audit": ("ledger.cli.audit", "app", "Export match bundles for auditors."),
    "db": ("ledger.cli.db", "app", "Database migrations."),
}


class LazyCommands(TyperGroup):
    """The top-level group: lists every command, imports a command's module on first use."""

    def list_commands(self, ctx: Any) -> list[str]:
        """Every command, in the order of COMMANDS."""
        return list(COMMANDS)

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        """The click command `cmd_name`, built from its module when first asked for."""
        if cmd_name not in self.commands and cmd_name in COMMANDS:
            module, attribute, group_help = COMMANDS[cmd_name]
            target = getattr(importlib.import_module(module), attribute)
            if isinstance(target, typer.Typer):
                command: Any = typer.main.get_group(target)
            else:
                single = command_group(add_completion=False)
                single.command(cmd_name)(target)
                command = typer.main.get_command(single)
            command.name = cmd_name
            if group_help is not None:
                command.help = group_help
            self.commands[cmd_name] = command
        return self.commands.get(cmd_name)


app = command_group(
    name="metaledger",
    cls=LazyCommands,
    help="Verifiable trading-card ownership and match results.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)


@app.callback()
def _root() -> None:
    """Verifiable trading-card ownership and match results."""


def main() -> None:
    """Entry point: run the CLI, turning expected errors into one-line messages."""
    try:
        app()
    except KeyboardInterrupt:
        sys.exit(130)
    except Exception as exc:
        from engine import EngineError
        from ledger.errors import MetaLedgerError

        if not isinstance(exc, MetaLedgerError | EngineError):
            raise
        typer.secho(f"error: {exc}", fg=typer.colors.RED, err=True)
        sys.exit(2)
