"""Audit: the self-contained match bundle an auditor verifies with `metaledger verify`."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path
from sqlmodel import Session

from api import ratelimit
from api.deps import Ctx, run
from ledger.audit.export import export_bundle

router = APIRouter(prefix="/matches", tags=["audit"])
MatchId = Annotated[
    str, Path(pattern=r"^0x[0-9a-f]{64}$", description="the match id (the EIP-712 matchId)")
]


@router.get("/{match_id}/bundle", dependencies=[ratelimit.PUBLIC])
def bundle(match_id: MatchId, ctx: Ctx) -> dict[str, Any]:
    """The match bundle (format `metaledger.bundle/1`, docs/verification.md): result, signature,
    transcript, decks, seed commits and reveals, batch, proof, contracts and chain id.
    404 for an unknown match or one without a result; 409 until its batch is confirmed on-chain."""
    addresses = ctx.chain.addresses

    def work(db: Session) -> dict[str, Any]:
        return export_bundle(
            db,
            match_id,
            card_token=addresses.card_token,
            deployment_block=addresses.deployment_block,
        )

    return run(ctx, work, write=False)
