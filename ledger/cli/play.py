"""`metaledger play ...` commands."""

from __future__ import annotations

import typer

app = typer.Typer(no_args_is_help=True)


def play() -> None:
    """Sign in and play a match through the API (not built yet)."""
    raise typer.Exit(3)
