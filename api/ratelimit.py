"""Rate limits of the unauthenticated endpoints, per client address, as route dependencies.

Counts live in the database (`ledger.ratelimits.service`), so several API processes share
them. The client address is the connection's peer; X-Forwarded-For counts only from the proxies
in METALEDGER_FORWARDED_ALLOW_IPS (uvicorn applies it, see api.server)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi import Depends, Request

from api.deps import context_of, run
from ledger.ratelimits import service as ratelimits
from ledger.settings import Settings


def client_address(request: Request) -> str:
    """The address requests are counted by."""
    return request.client.host if request.client else "unknown"


def _limit(bucket: str, limit_of: Callable[[Settings], int]) -> Any:
    def dependency(request: Request) -> None:
        ctx = context_of(request)
        limit, window = limit_of(ctx.settings), ctx.settings.rate_limit_window_seconds
        address = client_address(request)
        run(
            ctx,
            lambda db: ratelimits.count_and_check(db, bucket, address, limit=limit, window=window),
        )

    dependency.__doc__ = f"Count this request against the {bucket} rate limit (429 beyond it)."
    return Depends(dependency)


#: POST /auth/nonce and /auth/verify
SIGN_IN = _limit("sign-in", lambda s: s.sign_in_rate_limit)
#: every other endpoint that needs no session
PUBLIC = _limit("public", lambda s: s.public_rate_limit)
