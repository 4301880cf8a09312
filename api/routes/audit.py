"""Audit: the self-contained match bundle an auditor verifies with `metaledger verify`, and each
batch's full leaf list (so that no second result for a match can hide in a batch)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, Path
from sqlmodel import Session

from api import ratelimit, schemas
from api.deps import Ctx, run
from ledger.audit.export import batch_listing, export_bundle
from ledger.audit.replay import replay_steps
from ledger.audit.verify import verify_bundle
from ledger.protocol.untrusted import INT64_MAX

router = APIRouter(tags=["audit"])
checks = APIRouter(prefix="/audit", tags=["audit"], dependencies=[ratelimit.PUBLIC])
#: how the audit page labels the server's run
VERIFIER = "the server ran metaledger verify (ledger.audit.verify) against its RPC URL"
MatchId = Annotated[
    str, Path(pattern=r"^0x[0-9a-f]{64}$", description="the match id (the EIP-712 matchId)")
]
BatchId = Annotated[int, Path(ge=1, le=INT64_MAX, description="the batch id (from 1)")]


@router.get("/matches/{match_id}/bundle", dependencies=[ratelimit.PUBLIC])
def bundle(match_id: MatchId, ctx: Ctx) -> dict[str, Any]:
    """The match bundle (format `metaledger.bundle/3`, `/2` for a result signed before it, `/1`
    for a match its players did not sign; docs/verification.md): result, signature, transcript,
    decks, seed commits and reveals, batch, proof, contracts and chain id; for formats 2 and 3
    also the players' end acknowledgements and the batch's leaf list. 404 for an unknown match or one without a result; 409 until its
    batch is confirmed on-chain."""
    addresses = ctx.chain.addresses

    def work(db: Session) -> dict[str, Any]:
        return export_bundle(
            db,
            match_id,
            card_token=addresses.card_token,
            deployment_block=addresses.deployment_block,
        )

    return run(ctx, work, write=False)


@router.get("/batches/{batch_id}", dependencies=[ratelimit.PUBLIC])
def batch(batch_id: BatchId, ctx: Ctx) -> dict[str, Any]:
    """A batch (root, count, hashes, status, anchor transaction and block) and its full leaf
    list: every result's tree index, digest and MatchResult message (404 for an unknown batch)."""
    return run(ctx, lambda db: batch_listing(db, batch_id), write=False)


@checks.post("/verify", response_model=schemas.AuditOut)
def verify(ctx: Ctx, bundle: Annotated[dict[str, Any], Body()]) -> schemas.AuditOut:
    """Run the one verifier (`metaledger verify`) on a bundle against this server's chain RPC:
    every check with ✓/✗ and why. A malformed bundle fails `bundle-format` (and the rest are not
    checked); the auditor who does not trust this server runs `metaledger verify` alone."""
    found = verify_bundle(bundle, ctx.chain.rpc_url, max_log_range=ctx.settings.rpc_max_log_range)
    return schemas.AuditOut(
        verifier=VERIFIER,
        rpc_url=ctx.chain.rpc_url,
        ok=all(c.ok for c in found),
        checks=[schemas.AuditCheckOut(name=c.name, ok=c.ok, detail=c.detail) for c in found],
    )


@checks.post("/replay", response_model=schemas.ReplayOut)
def replay(body: schemas.ReplayIn) -> schemas.ReplayOut:
    """Replay a transcript on the engine: every action's seat and label, and the board a
    spectator sees after `step` of them (clamped to the transcript's length)."""
    step = replay_steps(body.transcript, body.step)
    return schemas.ReplayOut(
        total=step.total,
        step=step.step,
        actions=[schemas.ReplayActionOut(**a) for a in step.actions],
        observation=step.observation,
    )
