"""Health and metrics."""

from __future__ import annotations

from fastapi import APIRouter, Response

from api import schemas
from api.deps import Ctx
from api.metrics import metrics_response
from ledger.db import ping
from ledger.errors import MetaLedgerError

router = APIRouter(tags=["system"])


@router.get("/healthz", response_model=schemas.HealthOut)
def healthz(ctx: Ctx, response: Response) -> schemas.HealthOut:
    """Chain id, contract addresses, and whether the chain and database answer (503 if not)."""
    try:
        block: int | None = ctx.chain.head(fresh=True).number
        chain_ok = True
    except MetaLedgerError:
        block, chain_ok = None, False
    db_ok = ping(ctx.db)
    ok = chain_ok and db_ok
    if not ok:
        response.status_code = 503
    a = ctx.chain.addresses
    return schemas.HealthOut(
        status="ok" if ok else "degraded",
        chain_id=a.chain_id,
        chain_ok=chain_ok,
        block_number=block,
        contracts={
            "CardToken": a.card_token,
            "MatchLedger": a.match_ledger,
            "CardExchange": a.card_exchange,
        },
        database_ok=db_ok,
        signer=ctx.signer.address,
    )


@router.get("/metrics", response_class=Response, responses={200: {"content": {"text/plain": {}}}})
def metrics() -> Response:
    """Prometheus metrics of this API process."""
    return metrics_response()
