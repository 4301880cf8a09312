"""Health and metrics."""

from __future__ import annotations

from fastapi import APIRouter, Response

from api import schemas
from api.deps import Ctx
from api.metrics import metrics_response, record_health
from ledger.health.report import HealthReport, check_health
from ledger.runtime.context import Context

router = APIRouter(tags=["system"])


def _report(ctx: Context) -> HealthReport:
    return check_health(ctx.settings, ctx.db, ctx.chain.rpc_url)


@router.get(
    "/healthz",
    response_model=schemas.HealthOut,
    responses={503: {"model": schemas.HealthOut, "description": "a component is down"}},
)
def healthz(ctx: Ctx, response: Response) -> schemas.HealthOut:
    """Each component (database, broker, chain head, worker heartbeat, anchoring backlog), the
    chain id and the contract addresses; 503 when a component is down."""
    report = _report(ctx)
    if not report.ok:
        response.status_code = 503
    a = ctx.chain.addresses
    workers, backlog = report.workers, report.backlog
    return schemas.HealthOut(
        status="ok" if report.ok else "degraded",
        chain_id=a.chain_id,
        chain_ok=report.chain.ok,
        block_number=report.head_block,
        contracts={
            "CardToken": a.card_token,
            "MatchLedger": a.match_ledger,
            "CardExchange": a.card_exchange,
        },
        database_ok=report.database.ok,
        signer=ctx.signer.address,
        components=schemas.ComponentsOut(
            database=schemas.ComponentOut(**vars(report.database)),
            broker=schemas.ComponentOut(**vars(report.broker)),
            chain=schemas.ChainHealthOut(**vars(report.chain), head_block=report.head_block),
            worker=schemas.WorkerHealthOut(
                **vars(report.worker),
                workers=workers.count if workers else None,
                heartbeat_age_seconds=workers.newest_age_seconds if workers else None,
            ),
            anchoring=schemas.AnchoringHealthOut(
                **vars(report.anchoring),
                pending_results=backlog.pending_results if backlog else None,
                oldest_pending_age_seconds=backlog.oldest_pending_age_seconds if backlog else None,
            ),
        ),
    )


@router.get("/metrics", response_class=Response, responses={200: {"content": {"text/plain": {}}}})
def metrics(ctx: Ctx) -> Response:
    """Prometheus metrics of this API process, with the health gauges of /healthz."""
    record_health(_report(ctx))
    return metrics_response()
