"""`metaledger db ...` commands."""

from __future__ import annotations

import typer

from ledger.cli.options import DataDir, command_group, use_data_dir

app = command_group(no_args_is_help=True)


@app.command("upgrade")
def upgrade(
    revision: str = typer.Argument("head", help="target revision"),
    url: str | None = typer.Option(
        None, help="database URL (default: METALEDGER_DATABASE_URL or the SQLite file)"
    ),
    data_dir: DataDir = None,
) -> None:
    """Bring the database schema up to date (Alembic)."""
    from ledger.db.migrations import current
    from ledger.db.migrations import upgrade as do_upgrade

    use_data_dir(data_dir)
    do_upgrade(url, revision)
    typer.echo(f"database at revision {current(url)}")


@app.command("current")
def show_current(
    url: str | None = typer.Option(None, help="database URL"), data_dir: DataDir = None
) -> None:
    """Print the database's current revision."""
    from ledger.db.migrations import current

    use_data_dir(data_dir)
    typer.echo(current(url) or "(empty database)")
