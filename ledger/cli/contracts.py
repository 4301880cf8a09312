"""`metaledger contracts ...`: build the Solidity contracts into artifacts, or check they are fresh."""

from __future__ import annotations

from pathlib import Path

import typer

from ledger.errors import MetaLedgerError

app = typer.Typer(no_args_is_help=True)

ARTIFACTS_DIR = Path(__file__).resolve().parents[1] / "artifacts"


class StaleArtifactsError(MetaLedgerError):
    """The committed artifacts don't match the Solidity sources."""


@app.command("build")
def build() -> None:
    """Recompile contracts/src with solcjs and rewrite ledger/artifacts/*.json."""
    from ledger.artifacts import artifact_json
    from ledger.solc import compile_contracts

    result = compile_contracts()
    for old in ARTIFACTS_DIR.glob("*.json"):
        if old.stem not in result.contracts:
            old.unlink()
    for name, compiled in sorted(result.contracts.items()):
        text = artifact_json(
            name, compiled, result.solc_version, result.settings, result.source_hash
        )
        (ARTIFACTS_DIR / f"{name}.json").write_text(text)
    typer.echo(f"built {len(result.contracts)} artifacts, source hash {result.source_hash}")


@app.command("check")
def check() -> None:
    """Fail if any artifact is missing or was built from other sources (no compiler run)."""
    from ledger.artifacts import CONTRACT_NAMES, load_artifact
    from ledger.solc import SETTINGS, current_source_hash

    expected = current_source_hash()
    wanted = {k: v for k, v in SETTINGS.items() if k != "outputSelection"}
    for name in CONTRACT_NAMES:
        artifact = load_artifact(name)
        if artifact.source_hash != expected or artifact.settings != wanted:
            raise StaleArtifactsError(
                f"artifact {name} is stale (sources or settings changed); run `metaledger contracts build`"
            )
    typer.echo(f"artifacts are up to date (source hash {expected})")
