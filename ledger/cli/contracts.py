"""`metaledger contracts ...`: build the Solidity contracts into artifacts, or check they are fresh.

Both commands work on a source checkout (they read contracts/); the installed package only reads
the artifacts that `build` wrote.
"""

from __future__ import annotations

import typer

from ledger.errors import MetaLedgerError

app = typer.Typer(no_args_is_help=True)


class StaleArtifactsError(MetaLedgerError):
    """The committed artifacts don't match the Solidity sources."""


@app.command("build")
def build() -> None:
    """Compile contracts/ with forge; rewrite ledger/artifacts/ and tests/contracts/artifacts/."""
    from ledger.artifacts import artifact_json
    from ledger.solc import ARTIFACT_SETS, PROJECT_ROOT, collect, forge_build

    forge_build()
    for artifact_set in ARTIFACT_SETS:
        result = collect(artifact_set)
        artifact_set.out_dir.mkdir(parents=True, exist_ok=True)
        for old in artifact_set.out_dir.glob("*.json"):
            if old.stem not in result.contracts:
                old.unlink()
        for name, compiled in sorted(result.contracts.items()):
            text = artifact_json(
                name, compiled, result.solc_version, result.settings, result.source_hash
            )
            (artifact_set.out_dir / f"{name}.json").write_text(text)
        where = artifact_set.out_dir.relative_to(PROJECT_ROOT)
        typer.echo(
            f"built {len(result.contracts)} artifacts in {where}, source hash {result.source_hash}"
        )


@app.command("check")
def check() -> None:
    """Fail if any artifact is missing or was built from other sources (no compiler run)."""
    from ledger.artifacts import parse_artifact
    from ledger.solc import ARTIFACT_SETS, compiler_settings, current_source_hash

    settings = compiler_settings()
    for artifact_set in ARTIFACT_SETS:
        expected = current_source_hash(artifact_set)
        names = artifact_set.contract_names()
        stored = {p.stem for p in artifact_set.out_dir.glob("*.json")}
        if stored != set(names):
            raise StaleArtifactsError(
                f"{artifact_set.out_dir} holds {sorted(stored)}, the sources define {names}; "
                "run `metaledger contracts build`"
            )
        for name in names:
            artifact = parse_artifact((artifact_set.out_dir / f"{name}.json").read_text())
            if artifact.source_hash != expected or artifact.settings != settings:
                raise StaleArtifactsError(
                    f"artifact {name} is stale (sources or settings changed); "
                    "run `metaledger contracts build`"
                )
        typer.echo(f"{artifact_set.sources}: artifacts are up to date (source hash {expected})")
