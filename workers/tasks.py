"""Celery tasks. Thin: each builds its ledger object from settings and runs one pass.

Every task here is idempotent by a natural key (batch ids, outbox rows claimed once, recorded
signed transactions, the indexer cursor), so they are `acks_late` and retried on transient
failures only (database, broker or chain unavailable), with exponential backoff.
"""

from __future__ import annotations

import logging
from typing import Any

from ledger.errors import ServiceUnavailable
from workers.app import ANCHOR_NOW, ANCHOR_TICK, INDEX_TICK, celery_app

log = logging.getLogger(__name__)

_RETRY: dict[str, Any] = {
    "autoretry_for": (ServiceUnavailable,),
    "retry_backoff": 1,
    "retry_backoff_max": 30,
    "retry_jitter": True,
    "max_retries": 5,
    "acks_late": True,
}


def anchor_tick() -> dict[str, Any]:
    """Close due batches, send / confirm anchors, re-check recent ones."""
    from ledger.anchoring.service import from_settings

    return from_settings().run_once().as_dict()


def anchor_now() -> dict[str, Any]:
    """Anchor everything pending now, without waiting for N results or T seconds."""
    from ledger.anchoring.service import from_settings

    return from_settings().run_once(force=True).as_dict()


def index_tick() -> dict[str, Any]:
    """Index new CardToken transfers, then the offer book's fills and statuses (re-reading the
    last K blocks); then tell the API which wallets' balances changed (their live streams)."""
    from ledger.indexing.book import book_from_settings
    from ledger.indexing.service import from_settings
    from ledger.runtime.events import publish_wallet_news
    from ledger.settings import get_settings

    report = from_settings().run_once().as_dict()
    book = book_from_settings()
    if book is not None:
        report["book"] = book.run_once().as_dict()
    # after both: a page woken by the news reads the new balances and the book's fills at once
    wallets = {*report["wallets"], *report.get("book", {}).get("makers", [])}
    publish_wallet_news(get_settings().resolved_broker_url, sorted(wallets))
    return report


# registered without decorator syntax so the functions keep their types
anchor_tick_task = celery_app.task(name=ANCHOR_TICK, **_RETRY)(anchor_tick)
anchor_now_task = celery_app.task(name=ANCHOR_NOW, **_RETRY)(anchor_now)
index_tick_task = celery_app.task(name=INDEX_TICK, **_RETRY)(index_tick)
