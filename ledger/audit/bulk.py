"""Bulk audit: many match bundles (files, and the `*.json` files of folders) verified in one run,
each with the one per-bundle verifier (`ledger.audit.verify`: `verifier_of`, `checks_of`).

The chain is read through a `SnapshotRpc` pinned to the head block when the run starts: what
bundles of the same batch share (the chain id, the MatchLedger's domain, the batch events,
roots and head hash, signer registrations, block hashes) is asked once per worker process.
Bundles are spread over `jobs` worker processes forked after the imports, so the engine and
web3 are imported once, in chunks of up to 16 files; the reads of a chunk's bundles alone (each
one's verifyResult call) are asked in one JSON-RPC batch before their checks run (a node that
refuses batches is asked each read alone). A malformed file is one outcome with its one-line reason, never an
abort; a chain that does not answer stops the run (ServiceUnavailable)."""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ledger.audit.batches import BatchMemo
from ledger.audit.checks import Check
from ledger.audit.verify import BundleVerifier, checks_of, verifier_of
from ledger.chain.snapshot import SnapshotRpc
from ledger.chain.transport import JsonRpc
from ledger.errors import InvalidInput, PayloadTooLarge
from ledger.protocol.bundle import load_bundle
from ledger.protocol.untrusted import JsonLimits


@dataclass(frozen=True)
class BundleOutcome:
    """What the audit found for one file."""

    path: str
    ok: bool
    #: names of the checks that failed (empty for a malformed file)
    failed: tuple[str, ...] = ()
    #: the first failed check's reason, or why the file is not a bundle
    detail: str = ""
    malformed: bool = False


def bundle_files(paths: Iterable[str | Path]) -> list[Path]:
    """The files named, and the `*.json` files under the folders named (sorted, recursively);
    InvalidInput naming a path that does not exist or a folder without bundles."""
    files: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found = sorted(p for p in path.rglob("*.json") if p.is_file())
            if not found:
                raise InvalidInput(f"cannot read {path}: a folder without any *.json bundle file")
            files += found
        elif path.exists():
            files.append(path)
        else:
            raise InvalidInput(f"cannot read {path}: no such file or folder")
    return files


@dataclass
class _Worker:
    rpc: SnapshotRpc
    limits: JsonLimits
    api: str | None = None
    leaves: dict[int, list[dict[str, Any]]] = field(default_factory=dict)
    batches: BatchMemo = field(default_factory=BatchMemo)

    def batch_leaves(self, bundle: dict[str, Any]) -> list[dict[str, Any]] | None:
        """A format-1 bundle's batch leaf list from the API (read once per batch), if asked."""
        if self.api is None or "batch_leaves" in bundle:
            return None
        batch_id = int(bundle["anchor"]["batch_id"])
        if batch_id not in self.leaves:
            from ledger.audit.leaves import fetch_leaves

            self.leaves[batch_id] = fetch_leaves(self.api, batch_id, self.limits)
        return self.leaves[batch_id]

    def verify_chunk(self, paths: list[Path]) -> list[BundleOutcome]:
        """The outcomes of a few files, their bundles' own chain reads (each one's verifyResult
        call) asked in one JSON-RPC batch before their checks run."""
        made: list[BundleOutcome | BundleVerifier | list[Check]] = []
        for path in paths:
            try:
                bundle = load_bundle(
                    path, self.limits, self.batches.parse, self.batches.check_shape
                )
            except (InvalidInput, PayloadTooLarge) as exc:
                made.append(BundleOutcome(str(path), False, detail=str(exc), malformed=True))
                continue
            leaves = self.batch_leaves(bundle)
            made.append(verifier_of(bundle, self.rpc, leaves, self.batches, shape_checked=True))
        if sum(isinstance(m, BundleVerifier) for m in made) > 1:
            self.rpc.prefetch(
                read for m in made if isinstance(m, BundleVerifier) for read in m.reads_ahead()
            )
        # each verifier let go once checked: what its replay holds is not kept for the chunk
        made.reverse()
        outcomes = []
        for path in paths:
            m = made.pop()
            outcomes.append(m if isinstance(m, BundleOutcome) else _outcome(path, m))
        return outcomes


def _outcome(path: Path, made: BundleVerifier | list[Check]) -> BundleOutcome:
    checks = made if isinstance(made, list) else checks_of(made)
    failed = [c for c in checks if not c.ok]
    if not failed:
        return BundleOutcome(str(path), True)
    return BundleOutcome(
        str(path), False, tuple(c.name for c in failed), f"{failed[0].name}: {failed[0].detail}"
    )


_WORKER: _Worker | None = None


def _start_worker(
    rpc_url: str, max_log_range: int, head: int, limits: JsonLimits, api: str | None
) -> None:
    global _WORKER
    rpc = SnapshotRpc(rpc_url, max_log_range=max_log_range)
    rpc.pin(head)
    _WORKER = _Worker(rpc, limits, api)


def _verify_in_worker(paths: list[Path]) -> list[BundleOutcome]:
    assert _WORKER is not None
    return _WORKER.verify_chunk(paths)


def verify_many(
    files: list[Path],
    rpc_url: str,
    limits: JsonLimits,
    *,
    jobs: int | None = None,
    max_log_range: int = 2000,
    api: str | None = None,
    on_outcome: Callable[[BundleOutcome], None] | None = None,
) -> list[BundleOutcome]:
    """Verify every file against the chain at `rpc_url` as of its head now, in `jobs` processes
    (default: one per core); the outcomes in the order of `files`. `api`: where format-1
    bundles' batch leaf lists are read (`GET /batches/{id}`)."""
    with JsonRpc(rpc_url, max_log_range=max_log_range) as probe:
        head = probe.block_number()  # ServiceUnavailable (one line) when the RPC does not answer
    jobs = max(1, min(jobs or os.cpu_count() or 1, len(files)))
    outcomes: list[BundleOutcome] = []
    for outcome in _outcomes(files, (rpc_url, max_log_range, head, limits, api), jobs):
        outcomes.append(outcome)
        if on_outcome is not None:
            on_outcome(outcome)
    return outcomes


def _outcomes(files: list[Path], args: tuple[Any, ...], jobs: int) -> Iterator[BundleOutcome]:
    # chunks of up to 16 files: one batch of chain reads and one round trip to the parent each,
    # still spread over the workers
    size = max(1, min(16, len(files) // (8 * jobs)))
    chunks = [files[i : i + size] for i in range(0, len(files), size)]
    if jobs == 1:
        _start_worker(*args)
        assert _WORKER is not None
        try:
            for chunk in chunks:
                yield from _WORKER.verify_chunk(chunk)
        finally:
            _WORKER.rpc.close()
        return
    # fork: the workers inherit the imported engine and verifier instead of importing them again
    with multiprocessing.get_context("fork").Pool(jobs, _start_worker, args) as pool:
        for outcomes in pool.imap(_verify_in_worker, chunks):
            yield from outcomes
