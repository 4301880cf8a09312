"""`metaledger audit ...` commands and `metaledger verify`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import typer

from ledger.cli.options import DataDir, command_group, use_data_dir

app = command_group(no_args_is_help=True)


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
    files: list[str] = typer.Argument(
        ..., help="match bundle JSON files, or folders of them (*.json, recursively)"
    ),
    rpc: str = typer.Option(
        ..., "--rpc", help="JSON-RPC URL of the chain the results are anchored on"
    ),
    jobs: int = typer.Option(
        0, "--jobs", min=0, help="worker processes for several bundles (0: one per core)"
    ),
    api: str = typer.Option(
        None,
        "--api",
        help="an API base URL to read the batch's leaf list from (GET /batches/{id}) when the "
        "bundle does not embed it (format 1)",
    ),
) -> None:
    """Verify match bundles using only the chain and the bundles (no database, no API).

    One file: every check with ✓/✗. Several files or a folder: a progress bar on stderr, one
    `error:` line per malformed file, then a summary; exit status 1 if any bundle fails.
    Bundles are read with the API's input limits (size, nesting, numbers, Unicode) and their
    shape checked first: a malformed bundle gets one `error:` line naming what is wrong. A
    check marked – reports what it cannot pass or fail (a format-1 bundle's moves, which the
    players did not sign; what stays the operator's word)."""
    from ledger.audit.bulk import bundle_files
    from ledger.protocol.untrusted import JsonLimits, restore_recursion_limit
    from ledger.settings import get_settings

    restore_recursion_limit()
    settings = get_settings()
    limits = JsonLimits.for_bundles(settings)
    paths = bundle_files(files)
    if len(paths) == 1 and not Path(files[0]).is_dir():
        _verify_one(paths[0], rpc, limits, settings.rpc_max_log_range, api)
    else:
        _verify_many(paths, rpc, limits, jobs, settings.rpc_max_log_range, api)


def _verify_one(path: Path, rpc: str, limits: Any, max_log_range: int, api: str | None) -> None:
    from ledger.audit.verify import verify_bundle
    from ledger.protocol.bundle import load_bundle

    bundle = load_bundle(path, limits)
    leaves = None
    if api is not None and "batch_leaves" not in bundle:
        from ledger.audit.leaves import fetch_leaves

        leaves = fetch_leaves(api, int(bundle["anchor"]["batch_id"]), limits)
    checks = verify_bundle(bundle, rpc, max_log_range=max_log_range, leaves=leaves)
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


def _verify_many(
    paths: list[Path], rpc: str, limits: Any, jobs: int, max_log_range: int, api: str | None
) -> None:
    import contextlib
    import time

    from ledger.audit.bulk import BundleOutcome, verify_many

    started = time.perf_counter()
    with contextlib.ExitStack() as stack:
        bar: list[Any] = []  # the progress bar and its task, made at the first outcome

        def seen(outcome: BundleOutcome) -> None:
            if not bar:
                # rich is imported once the workers run: before the fork its import (≈ 50 ms)
                # is start-up every worker waits for
                from rich.console import Console
                from rich.progress import (
                    BarColumn,
                    MofNCompleteColumn,
                    Progress,
                    TimeRemainingColumn,
                )

                progress = stack.enter_context(
                    Progress(
                        "[progress.description]{task.description}",
                        BarColumn(),
                        MofNCompleteColumn(),
                        TimeRemainingColumn(),
                        console=Console(stderr=True),
                        transient=True,
                    )
                )
                bar[:] = [progress, progress.add_task("verifying", total=len(paths))]
            progress, task = bar
            if outcome.malformed:
                progress.console.print(
                    f"error: {outcome.detail}", markup=False, highlight=False, soft_wrap=True
                )
            progress.advance(task)

        outcomes = verify_many(
            paths,
            rpc,
            limits,
            jobs=jobs or None,
            max_log_range=max_log_range,
            api=api,
            on_outcome=seen,
        )
    seconds = time.perf_counter() - started
    failed = [o for o in outcomes if not o.ok and not o.malformed]
    malformed = [o for o in outcomes if o.malformed]
    passed = len(outcomes) - len(failed) - len(malformed)
    from rich.console import Console
    from rich.table import Table

    out = Console(highlight=False)
    if failed:
        table = Table("bundle", "failed checks", "first reason", title="failed bundles")
        for o in failed:
            table.add_row(o.path, ", ".join(o.failed), o.detail)
        out.print(table)
    summary = Table("bundles", "passed", "failed", "malformed", "seconds", "bundles/s")
    summary.add_row(
        str(len(outcomes)),
        str(passed),
        str(len(failed)),
        str(len(malformed)),
        f"{seconds:.1f}",
        f"{len(outcomes) / seconds:.1f}" if seconds else "-",
    )
    out.print(summary)
    if failed or malformed:
        raise typer.Exit(1)
