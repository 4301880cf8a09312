"""`metaledger keys ...`: make encrypted keystore files (a new key, or one typed in) and read a
keystore's address. Passwords and keys are read from a file or a hidden prompt, never taken as
command-line arguments."""

from __future__ import annotations

from pathlib import Path

import typer

from ledger.cli.options import command_group
from ledger.errors import ConfigurationError

app = command_group(no_args_is_help=True)

PasswordFile = typer.Option(
    None,
    "--password-file",
    help="a file holding the password (default: asked twice, hidden)",
    show_default=False,
)


def _password(path: Path | None) -> str:
    from ledger.keys.keystore import read_password_file

    if path is not None:
        return read_password_file(path)
    password = str(typer.prompt("keystore password", hide_input=True, confirmation_prompt=True))
    if not password:
        raise ConfigurationError("a keystore needs a non-empty password")
    return password


@app.command("new")
def new(
    out: Path = typer.Argument(..., help="the keystore file to create (never overwritten)"),
    password_file: Path | None = PasswordFile,
) -> None:
    """Create a keystore holding a new random key; prints its address."""
    from ledger.keys.keystore import write_keystore

    address = write_keystore(out, _password(password_file))
    typer.echo(f"{address} {out}")


@app.command("import")
def import_key(
    out: Path = typer.Argument(..., help="the keystore file to create (never overwritten)"),
    password_file: Path | None = PasswordFile,
) -> None:
    """Encrypt an existing private key (typed at a hidden prompt, or piped on stdin) into a
    keystore; prints its address."""
    from ledger.keys.keystore import write_keystore

    key = str(typer.prompt("private key (hex)", hide_input=True)).strip()
    address = write_keystore(out, _password(password_file), key)
    typer.echo(f"{address} {out}")


@app.command("address")
def address(keystore: Path = typer.Argument(..., help="a keystore file")) -> None:
    """Print the address a keystore holds (no password needed)."""
    from ledger.keys.keystore import keystore_address

    typer.echo(keystore_address(keystore))
