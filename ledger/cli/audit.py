"""`metaledger audit ...` commands and `metaledger verify`."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from ledger.cli.options import DataDir, use_data_dir

app = typer.Typer(no_args_is_help=True)


@app.command("export")
def export(
    match_id: str = typer.Argument(..., help="the match id (0x-prefixed 32 bytes)"),
    output: Path = typer.Option(
        ..., "-o", "--output", help="where to write the bundle JSON ('-' for stdout)"
    ),
    data_dir: DataDir = None,
) -> None:
    """Export the self-contained bundle of an anchored match (reads the operator's database and
    deployment file, in the local stack's data directory by default)."""
    from ledger.audit.export import export_from_settings
    from ledger.db import get_engine, unit_of_work
    from ledger.devstack.stackinfo import require_local_state
    from ledger.settings import get_settings

    use_data_dir(data_dir)
    require_local_state(get_settings())
    with unit_of_work(get_engine(), write=False) as session:
        bundle = export_from_settings(session, match_id)
    text = json.dumps(bundle, indent=2, sort_keys=True) + "\n"
    if str(output) == "-":
        typer.echo(text, nl=False)
    else:
        output.write_text(text)
        typer.echo(f"wrote the bundle of match {match_id} to {output}")


def verify(
    file: str = typer.Argument(..., help="a match bundle JSON file"),
    rpc: str = typer.Option(
        ..., "--rpc", help="JSON-RPC URL of the chain the result is anchored on"
    ),
    api: str = typer.Option(
        None,
        "--api",
        help="an API base URL to read the batch's leaf list from (GET /batches/{id}) when the "
        "bundle does not embed it (format 1)",
    ),
) -> None:
    """Verify a match bundle using only the chain and the bundle (no database, no API).

    The bundle is read with the API's input limits (size, nesting, numbers, Unicode) and its
    shape checked first: a malformed bundle gets one `error:` line naming what is wrong. A
    check marked – reports what it cannot pass or fail (a format-1 bundle's moves, which the
    players did not sign; what stays the operator's word)."""
    from ledger.audit.verify import verify_bundle
    from ledger.protocol.bundle import load_bundle
    from ledger.protocol.untrusted import JsonLimits, restore_recursion_limit
    from ledger.settings import get_settings

    restore_recursion_limit()
    settings = get_settings()
    bundle = load_bundle(Path(file), JsonLimits.for_bundles(settings))
    leaves = None
    if api is not None and "batch_leaves" not in bundle:
        from ledger.audit.leaves import fetch_leaves

        leaves = fetch_leaves(
            api, int(bundle["anchor"]["batch_id"]), JsonLimits.for_bundles(settings)
        )
    checks = verify_bundle(bundle, rpc, max_log_range=settings.rpc_max_log_range, leaves=leaves)
    for check in checks:
        if check.info:
            mark = typer.style("–", fg=typer.colors.YELLOW)
        elif check.ok:
            mark = typer.style("✓", fg=typer.colors.GREEN)
        else:
            mark = typer.style("✗", fg=typer.colors.RED)
        typer.echo(f"{mark} {check.name}: {check.detail}")
    failed = [c.name for c in checks if not c.ok]
    if failed:
        typer.secho(
            f"FAILED: {len(failed)} of {len(checks)} checks ({', '.join(failed)})",
            fg=typer.colors.RED,
            err=True,
        )
        raise typer.Exit(1)
    passed = sum(1 for c in checks if not c.info)
    notes = len(checks) - passed
    typer.secho(
        f"OK: all {passed} checks passed" + (f" ({notes} reported, –)" if notes else ""),
        fg=typer.colors.GREEN,
    )
