"""`metaledger db ...` commands."""

from __future__ import annotations

import typer

app = typer.Typer(no_args_is_help=True)


@app.command("upgrade")
def upgrade(
    revision: str = typer.Argument("head", help="target revision"),
    url: str | None = typer.Option(
        None, help="database URL (default: METALEDGER_DATABASE_URL or the SQLite file)"
    ),
) -> None:
    """Bring the database schema up to date (Alembic)."""
    from ledger.migrations import current
    from ledger.migrations import upgrade as do_upgrade

    do_upgrade(url, revision)
    typer.echo(f"database at revision {current(url)}")


@app.command("current")
def show_current(url: str | None = typer.Option(None, help="database URL")) -> None:
    """Print the database's current revision."""
    from ledger.migrations import current

    typer.echo(current(url) or "(empty database)")
