"""`metaledger contracts ...`: build the Solidity contracts into artifacts, or check they are fresh.

Both commands work on a source checkout (they read contracts/); the installed package only reads
the artifacts that `build` wrote.
"""

from __future__ import annotations

import typer

from ledger.cli.options import command_group

app = command_group(no_args_is_help=True)


@app.command("build")
def build() -> None:
    """Compile contracts/ with forge; rewrite ledger/chain/artifacts/ and tests/contracts/artifacts/."""
    from ledger.devstack.compile import build_artifacts

    for artifact_set, result in build_artifacts():
        typer.echo(
            f"built {len(result.contracts)} artifacts in {artifact_set.out}, "
            f"source hash {result.source_hash}"
        )


@app.command("check")
def check() -> None:
    """Fail if any artifact is missing or was built from other sources (no compiler run)."""
    from ledger.devstack.compile import check_artifacts

    for artifact_set, source_hash in check_artifacts():
        typer.echo(f"{artifact_set.sources}: artifacts are up to date (source hash {source_hash})")
