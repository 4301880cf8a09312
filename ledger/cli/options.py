"""Options shared by the commands that need local state."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

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
