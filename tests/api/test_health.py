"""/healthz reports each component (database, broker, chain head, worker heartbeat, anchoring
backlog) and answers 503 when one is down; /metrics has the same gauges. Real Anvil, real
redis-server (paused with SIGSTOP), SQLite and PostgreSQL."""

from __future__ import annotations

import signal
import time
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import httpx
import pytest
from sqlalchemy import update

from ledger.chain.deployment import Deployment
from ledger.db import dispose_engine, get_engine
from ledger.db.models.base import utcnow
from ledger.db.models.results import OutboxEntry
from ledger.db.models.workers import WorkerHeartbeat
from ledger.devstack.anvil import AnvilNode
from ledger.devstack.servers import RedisServer
from ledger.health.heartbeat import HeartbeatThread
from ledger.settings import Settings
from tests.api.conftest import LiveServer, make_settings
from tests.ledger.anchor_support import add_results

pytestmark = pytest.mark.chain


@pytest.fixture
def redis(tmp_path: Path) -> Iterator[RedisServer]:
    """A redis-server of this test's own (it gets paused)."""
    with RedisServer(tmp_path / "redis") as server:
        yield server


@pytest.fixture
def settings(
    anvil: AnvilNode, database_url: str, deployment_file: Path, redis: RedisServer
) -> Settings:
    from ledger.db.migrations import upgrade

    upgrade(database_url)
    return make_settings(
        anvil,
        database_url,
        deployment_file,
        broker_url=redis.url,
        worker_heartbeat_seconds=1.0,
        health_backlog_max_seconds=60.0,
    )


@pytest.fixture
def api(settings: Settings, evm_snapshot: AnvilNode) -> Iterator[httpx.Client]:
    with (
        LiveServer(settings) as server,
        httpx.Client(base_url=server.url, timeout=30) as client,
    ):
        yield client
    dispose_engine(settings.resolved_database_url)


def _beat(settings: Settings) -> HeartbeatThread:
    """What a worker does when it is ready: record a heartbeat."""
    thread = HeartbeatThread(get_engine(settings.resolved_database_url), "celery@test", 1.0)
    thread.beat()
    return thread


def _gauge(metrics: str, name: str) -> float:
    line = next(
        x for x in metrics.splitlines() if x.startswith(name + " ") or x.startswith(name + "{")
    )
    return float(line.rsplit(" ", 1)[1])


def test_every_component_up_is_200_with_the_figures(
    api: httpx.Client, settings: Settings, anvil: AnvilNode, deployment: Deployment
) -> None:
    _beat(settings)
    reply = api.get("/healthz")
    assert reply.status_code == 200, reply.text
    health = reply.json()
    parts = health["components"]
    assert health["status"] == "ok" and all(c["ok"] for c in parts.values())
    assert parts["chain"]["head_block"] == anvil.w3.eth.block_number == health["block_number"]
    assert parts["worker"]["workers"] == 1 and parts["worker"]["heartbeat_age_seconds"] < 5
    assert parts["anchoring"]["pending_results"] == 0
    assert parts["anchoring"]["oldest_pending_age_seconds"] is None
    assert health["contracts"]["MatchLedger"] == deployment.match_ledger
    metrics = api.get("/metrics").text
    assert _gauge(metrics, 'metaledger_component_up{component="broker"}') == 1.0
    assert _gauge(metrics, "metaledger_chain_head_block") == parts["chain"]["head_block"]
    assert _gauge(metrics, "metaledger_workers_live") == 1.0
    assert _gauge(metrics, "metaledger_anchoring_pending_results") == 0.0


def test_a_paused_redis_is_down_within_the_timeout(
    api: httpx.Client, settings: Settings, redis: RedisServer
) -> None:
    _beat(settings)
    assert api.get("/healthz").status_code == 200
    assert redis.child is not None
    redis.child.signal(signal.SIGSTOP)
    try:
        started = time.monotonic()
        reply = api.get("/healthz")
        elapsed = time.monotonic() - started
        metrics = api.get("/metrics").text
    finally:
        redis.child.signal(signal.SIGCONT)
    assert reply.status_code == 503
    broker = reply.json()["components"]["broker"]
    assert broker == {"ok": False, "detail": "no answer to PING within 0.5 s (TimeoutError)"}
    assert reply.json()["status"] == "degraded"
    assert elapsed < 3, f"/healthz took {elapsed:.1f} s with Redis paused"
    assert _gauge(metrics, 'metaledger_component_up{component="broker"}') == 0.0
    assert api.get("/healthz").status_code == 200  # back once Redis resumes


def test_no_recent_worker_heartbeat_is_503(api: httpx.Client, settings: Settings) -> None:
    reply = api.get("/healthz")
    assert reply.status_code == 503
    assert reply.json()["components"]["worker"] == {
        "ok": False,
        "detail": "no worker heartbeat in the last 3 s",
        "workers": 0,
        "heartbeat_age_seconds": None,
    }
    _beat(settings)
    assert api.get("/healthz").status_code == 200
    engine = get_engine(settings.resolved_database_url)
    with engine.begin() as conn:  # the worker went silent 10 s ago
        conn.execute(update(WorkerHeartbeat).values(beat_at=utcnow() - timedelta(seconds=10)))
    assert api.get("/healthz").status_code == 503


def test_a_stuck_anchoring_backlog_is_503_with_its_size_and_age(
    api: httpx.Client, settings: Settings, deployment: Deployment
) -> None:
    _beat(settings)
    engine = get_engine(settings.resolved_database_url)
    add_results(engine, deployment, 3)
    fresh = api.get("/healthz").json()["components"]["anchoring"]
    assert fresh["ok"] and fresh["pending_results"] == 3
    with engine.begin() as conn:  # nothing anchored them for two minutes
        conn.execute(update(OutboxEntry).values(created_at=utcnow() - timedelta(seconds=120)))
    reply = api.get("/healthz")
    assert reply.status_code == 503
    backlog = reply.json()["components"]["anchoring"]
    assert backlog["ok"] is False and backlog["pending_results"] == 3
    assert 120 <= backlog["oldest_pending_age_seconds"] < 180
    assert "more than 60 s" in backlog["detail"]
    assert (
        _gauge(api.get("/metrics").text, "metaledger_anchoring_oldest_pending_age_seconds") >= 120
    )
