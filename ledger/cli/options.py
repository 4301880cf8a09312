"""What the commands share: the Typer app they are declared on, and the options of the commands
that need local state."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer


def command_group(**settings: Any) -> typer.Typer:
    """A Typer app of this CLI: help and usage errors as click prints them, without rich (whose
    import, about a quarter of a second, would otherwise come before `metaledger verify --help`
    or any usage error)."""
    return typer.Typer(rich_markup_mode=None, **settings)


DataDir = Annotated[
    Path | None,
    typer.Option(
        "--data-dir",
        help="the local state directory (default: METALEDGER_DATA_DIR, or .metaledger here)",
        show_default=False,
    ),
]


def use_data_dir(path: Path | None) -> None:
    """Make `--data-dir` (when given) the settings' data directory for this process."""
    from ledger.settings import override_settings

    override_settings(data_dir=path)
