"""Rate limits on SQLite and PostgreSQL: requests are counted per bucket and address in fixed
windows; beyond the limit a RateLimited says when to retry and names the setting."""

from __future__ import annotations

import pytest
from sqlalchemy import Engine

from ledger.db import run_unit
from ledger.errors import RateLimited
from ledger.ratelimits.service import count_and_check


def _count(engine: Engine, address: str, now: float) -> int:
    return run_unit(
        engine,
        lambda db: count_and_check(db, "sign-in", address, limit=3, window=60, now=now),
    )


def test_requests_are_counted_per_address_and_window(engine: Engine) -> None:
    start = 1_800_000_000.0 // 60 * 60
    assert [_count(engine, "1.2.3.4", start + i) for i in range(3)] == [1, 2, 3]
    assert _count(engine, "5.6.7.8", start + 3) == 1
    with pytest.raises(RateLimited) as refused:
        _count(engine, "1.2.3.4", start + 10)
    assert refused.value.retry_after == 50
    assert refused.value.extra["setting"] == "METALEDGER_SIGN_IN_RATE_LIMIT"
    assert _count(engine, "1.2.3.4", start + 60) == 1  # a new window
