"""The health of the stack as an API process sees it: database, broker, chain, workers and the
anchoring backlog, each a component that is up or down. Every probe has a short timeout (a
paused Redis is reported down, it does not hang the caller); the whole report costs one
database session, one broker round trip and one JSON-RPC call, so it can be polled."""

from __future__ import annotations

import socket
from dataclasses import dataclass
from urllib.parse import urlsplit

from sqlalchemy import Engine
from sqlmodel import Session

from ledger.anchoring.repository import backlog
from ledger.chain.transport import JsonRpc
from ledger.db.models.base import utcnow
from ledger.errors import MetaLedgerError
from ledger.health.repository import LiveWorkers, live_workers
from ledger.settings import Settings

#: a worker whose newest heartbeat is older than this many heartbeat periods is down
HEARTBEAT_PERIODS = 3


@dataclass(frozen=True)
class Component:
    """One part of the stack: up or down, and what was seen."""

    ok: bool
    detail: str


@dataclass(frozen=True)
class Backlog:
    """Results signed but not yet in a confirmed batch, and how long the oldest has waited."""

    pending_results: int
    oldest_pending_age_seconds: float | None


@dataclass(frozen=True)
class HealthReport:
    """Every component's state and the figures behind it."""

    database: Component
    broker: Component
    chain: Component
    worker: Component
    anchoring: Component
    head_block: int | None
    workers: LiveWorkers | None
    backlog: Backlog | None

    @property
    def ok(self) -> bool:
        """Whether every component is up."""
        return all(c.ok for c in self.components().values())

    def components(self) -> dict[str, Component]:
        """The components by name."""
        return {
            "database": self.database,
            "broker": self.broker,
            "chain": self.chain,
            "worker": self.worker,
            "anchoring": self.anchoring,
        }


def anchoring_backlog(db: Session) -> Backlog:
    """Results not yet in a confirmed batch, and how long the oldest has waited."""
    count, oldest = backlog(db)
    age = None if oldest is None else max(0.0, (utcnow() - oldest).total_seconds())
    return Backlog(count, age)


def probe_broker(url: str, timeout: float) -> Component:
    """PING a Redis broker (any other broker: a TCP connection) within `timeout` seconds."""
    parts = urlsplit(url)
    if parts.scheme in ("redis", "rediss"):
        import redis

        client = redis.Redis.from_url(url, socket_timeout=timeout, socket_connect_timeout=timeout)
        try:
            client.ping()
            return Component(True, "answers PING")
        except redis.RedisError as exc:
            return Component(
                False, f"no answer to PING within {timeout:g} s ({type(exc).__name__})"
            )
        finally:
            client.close()
    try:
        with socket.create_connection((parts.hostname or "127.0.0.1", parts.port or 5672), timeout):
            return Component(True, "accepts connections")
    except OSError as exc:
        return Component(False, f"no connection within {timeout:g} s ({exc.strerror or exc})")


def probe_chain(rpc_url: str, timeout: float) -> tuple[Component, int | None]:
    """The chain's head block within `timeout` seconds."""
    rpc = JsonRpc(rpc_url, timeout=timeout, retries=0)
    try:
        head = rpc.block_number()
    except MetaLedgerError:
        return Component(False, f"no answer to eth_blockNumber within {timeout:g} s"), None
    finally:
        rpc.close()
    return Component(True, f"head block {head}"), head


def worker_component(workers: LiveWorkers | None, stale_after: float) -> Component:
    """The workers: up while one has beaten in the last `stale_after` seconds."""
    if workers is None:
        return Component(False, "unknown: the database does not answer")
    if workers.count == 0:
        return Component(False, f"no worker heartbeat in the last {stale_after:g} s")
    return Component(
        True,
        f"{workers.count} worker(s); newest heartbeat {workers.newest_age_seconds or 0:.1f} s ago",
    )


def anchoring_component(pending: Backlog | None, limit: float) -> Component:
    """The anchoring: up while no pending result has waited more than `limit` seconds."""
    if pending is None:
        return Component(False, "unknown: the database does not answer")
    oldest = pending.oldest_pending_age_seconds
    if oldest is not None and oldest > limit:
        return Component(
            False,
            f"{pending.pending_results} result(s) pending; the oldest has waited "
            f"{oldest:.0f} s (more than {limit:g} s)",
        )
    return Component(True, f"{pending.pending_results} result(s) pending")


def check_health(settings: Settings, engine: Engine, rpc_url: str) -> HealthReport:
    """Probe every component once."""
    timeout = settings.health_timeout_seconds
    stale_after = HEARTBEAT_PERIODS * settings.worker_heartbeat_seconds
    workers: LiveWorkers | None = None
    pending: Backlog | None = None
    try:
        with Session(engine) as db:
            workers = live_workers(db, stale_after)
            pending = anchoring_backlog(db)
        database = Component(True, "answers")
    except Exception as exc:  # any driver error means the database is down
        database = Component(False, f"query failed ({type(exc).__name__})")
    chain, head = probe_chain(rpc_url, timeout)
    return HealthReport(
        database=database,
        broker=probe_broker(settings.resolved_broker_url, timeout),
        chain=chain,
        worker=worker_component(workers, stale_after),
        anchoring=anchoring_component(pending, settings.health_backlog_max_seconds),
        head_block=head,
        workers=workers,
        backlog=pending,
    )
