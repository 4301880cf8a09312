"""Per-client-address rate limits on unauthenticated endpoints: fixed windows counted in the
database, so that every API process sees the same counts."""

from __future__ import annotations

import time

from sqlmodel import Session

from ledger.errors import RateLimited
from ledger.ratelimits import repository as repo


def count_and_check(
    db: Session, bucket: str, address: str, *, limit: int, window: int, now: float | None = None
) -> int:
    """Count one request of `address` in `bucket`; RateLimited (with Retry-After) beyond `limit`
    requests in the current `window` seconds. The count so far."""
    moment = time.time() if now is None else now
    start = int(moment) // window * window
    hits = repo.count_request(db, f"{bucket}|{address}"[:128], start)
    if hits == 1:  # the first request of a new window: earlier windows are over
        repo.purge_rate_windows(db, before=start)
    if hits > limit:
        retry_after = max(1, start + window - int(moment))
        raise RateLimited(
            f"more than {limit} {bucket} requests from {address} in {window} s; retry in {retry_after} s",
            retry_after,
            limit=f"{bucket.replace('-', '_')}_rate_limit",
            setting=f"METALEDGER_{bucket.replace('-', '_').upper()}_RATE_LIMIT",
            max=limit,
            window_seconds=window,
        )
    return hits
