"""Fault tests with a real Celery worker process (embedded beat), real Redis, real Anvil, SQLite.

- the worker is killed after broadcasting and before the receipt: the restarted worker finishes
  the batch without a second anchor;
- Redis stops for 10 s while results keep arriving: all are anchored after it returns;
- a reorg (anvil_reorg) removes the anchors: the running worker re-anchors them.
In each case the number of results in equals the number anchored, none twice.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, func, select
from sqlalchemy.exc import OperationalError

from ledger.chain.contracts import MatchLedger
from ledger.chain.deployment import Deployment
from ledger.chain.transport import JsonRpc
from ledger.db import create_all, make_engine, unit_of_work
from ledger.db.models.anchoring import Batch, BatchStatus, ResultProof
from ledger.db.models.results import OutboxEntry
from ledger.devstack.anvil import AnvilNode, start_anvil
from ledger.devstack.childprocess import ChildProcess
from ledger.devstack.servers import RedisServer
from tests.ledger.anchor_support import ANCHORER_KEY, add_results, deploy

pytestmark = [pytest.mark.chain, pytest.mark.slow]
ROOT = Path(__file__).resolve().parents[2]


class Stack:
    """A private Anvil, a SQLite database, a deployment file, and worker processes on a Redis."""

    def __init__(self, tmp: Path, broker_url: str) -> None:
        self.tmp = tmp
        self.anvil: AnvilNode = start_anvil(log_file=tmp / "anvil.log")
        self.deployment: Deployment = deploy(self.anvil)
        self.deployment.save(tmp / "deployment.json")
        self.db_url = f"sqlite:///{tmp / 'metaledger.db'}"
        self.engine: Engine = make_engine(self.db_url)
        create_all(self.engine)
        self.broker_url = broker_url
        self.workers: list[ChildProcess] = []

    def start_worker(self, name: str) -> ChildProcess:
        env = {
            **os.environ,
            "METALEDGER_DATA_DIR": str(self.tmp),
            "METALEDGER_DATABASE_URL": self.db_url,
            "METALEDGER_BROKER_URL": self.broker_url,
            "METALEDGER_RPC_URL": self.anvil.rpc_url,
            "METALEDGER_DEPLOYMENT_FILE": str(self.tmp / "deployment.json"),
            "METALEDGER_BATCH_MAX_RESULTS": "8",
            "METALEDGER_BATCH_MAX_SECONDS": "1",
            "METALEDGER_CONFIRMATIONS": "1",
            "METALEDGER_INDEXER_POLL_SECONDS": "5",
        }
        args = [
            sys.executable, "-m", "celery", "-A", "workers.app:celery_app", "worker", "--beat",
            "--pool=solo", "--concurrency=1", "--loglevel=INFO", "-n", f"{name}@%h",
        ]  # fmt: skip
        child = ChildProcess(name, args, log_file=self.tmp / f"{name}.log", env=env, cwd=ROOT)
        self.workers.append(child.start())
        return child

    def kill(self, child: ChildProcess) -> None:
        """SIGKILL the worker and its embedded beat (no chance to clean up)."""
        if child.alive():
            assert child.process is not None
            child.signal(signal.SIGKILL)
            child.process.wait(timeout=10)

    def stop(self) -> None:
        for child in self.workers:
            child.stop(timeout=10)
        self.engine.dispose()
        self.anvil.stop()

    def log(self) -> str:
        return "\n".join(
            p.read_text(errors="replace")[-3000:] for p in self.tmp.glob("worker*.log")
        )

    def wait_for(self, condition: Callable[[], bool], timeout: float, what: str) -> None:
        deadline = time.monotonic() + timeout
        while not condition():
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {what}; worker log:\n{self.log()}")
            time.sleep(0.2)

    def all_confirmed(self, n: int) -> bool:
        with unit_of_work(self.engine) as s:
            pending = s.execute(
                select(func.count()).select_from(OutboxEntry).where(OutboxEntry.batch_id.is_(None))
            ).scalar_one()  # type: ignore[union-attr]
            unconfirmed = s.execute(
                select(func.count()).select_from(Batch).where(Batch.status != BatchStatus.CONFIRMED)
            ).scalar_one()  # type: ignore[arg-type]
            proofs = s.execute(select(func.count()).select_from(ResultProof)).scalar_one()
        return bool(pending == 0 and unconfirmed == 0 and proofs == n)

    def assert_anchored_once(self, n: int) -> list[Any]:
        """Results in == results anchored on-chain, none twice; one anchor transaction per batch."""
        ledger = MatchLedger(JsonRpc(self.anvil.rpc_url), self.deployment.match_ledger)
        events = ledger.anchored_batches(self.deployment.deployment_block)
        assert [e.batch_id for e in events] == list(range(1, len(events) + 1))
        assert sum(e.count for e in events) == n
        with unit_of_work(self.engine) as s:
            batches = list(s.scalars(select(Batch).order_by(Batch.id)))  # type: ignore[arg-type]
            proofs = list(s.scalars(select(ResultProof)))
        assert len({p.result_id for p in proofs}) == len(proofs) == n
        assert [b.id for b in batches] == [e.batch_id for e in events]
        assert all(b.status == BatchStatus.CONFIRMED and b.attempts == 1 for b in batches)
        anchorer = self.anvil.w3.eth.account.from_key(ANCHORER_KEY).address
        assert self.anvil.w3.eth.get_transaction_count(anchorer) == len(
            events
        )  # no extra anchor tx
        return batches


@pytest.fixture
def stack(tmp_path: Path, redis_server: RedisServer) -> Iterator[Stack]:
    s = Stack(tmp_path, redis_server.url)
    try:
        yield s
    finally:
        s.stop()


def test_worker_killed_after_broadcast_finishes_without_a_second_anchor(stack: Stack) -> None:
    add_results(stack.engine, stack.deployment, 8)
    stack.anvil.rpc("evm_setAutomine", False)  # the anchor tx stays pending: no receipt yet
    worker = stack.start_worker("worker1")

    def broadcast() -> bool:
        with unit_of_work(stack.engine) as s:
            batch = s.get(Batch, 1)
            tx_hash = (
                batch.tx_hash if batch is not None and batch.status == BatchStatus.SIGNED else None
            )
        # recorded before it is sent: until the node has it, it answers null (web3 would raise)
        return (
            tx_hash is not None and stack.anvil.rpc("eth_getTransactionByHash", tx_hash) is not None
        )

    stack.wait_for(broadcast, 60, "the anchor transaction to be broadcast")
    with unit_of_work(stack.engine) as s:
        batch = s.get(Batch, 1)
        assert batch is not None
        recorded = (batch.nonce, batch.raw_tx, batch.tx_hash)
    time.sleep(0.5)  # the worker is now waiting for the receipt
    stack.kill(worker)
    stack.anvil.rpc("evm_setAutomine", True)
    stack.anvil.mine(1)

    add_results(stack.engine, stack.deployment, 5)  # more results arrive meanwhile
    stack.start_worker("worker2")
    stack.wait_for(lambda: stack.all_confirmed(13), 90, "every result to be anchored")
    batches = stack.assert_anchored_once(13)
    assert (batches[0].nonce, batches[0].raw_tx, batches[0].tx_hash) == recorded


def test_redis_down_for_10_s_while_results_arrive_all_anchored_after(
    stack: Stack, redis_server: RedisServer
) -> None:
    stack.start_worker("worker1")
    written = [0]
    stop = threading.Event()

    def producer() -> None:  # matches keep ending: results + outbox rows, no broker involved
        while not stop.is_set():
            try:
                add_results(stack.engine, stack.deployment, 3)
            except OperationalError:  # a busy database: the API answers 503 and the client retries
                continue
            written[0] += 3
            time.sleep(0.5)

    thread = threading.Thread(target=producer, daemon=True)
    thread.start()
    try:
        stack.wait_for(
            lambda: stack.all_confirmed(written[0]) is False and _confirmed_batches(stack) >= 1,
            60,
            "a first batch anchored through the broker",
        )
        redis_server.stop()
        down_at = written[0]
        time.sleep(10)
        assert written[0] >= down_at + 30  # results kept arriving while Redis was down
        redis_server.start()
        time.sleep(3)
    finally:
        stop.set()
        thread.join(timeout=10)
    stack.wait_for(
        lambda: stack.all_confirmed(written[0]),
        90,
        "every result to be anchored after Redis returned",
    )
    stack.assert_anchored_once(written[0])


def _confirmed_batches(stack: Stack) -> int:
    with unit_of_work(stack.engine) as s:
        return int(
            s.execute(
                select(func.count()).select_from(Batch).where(Batch.status == BatchStatus.CONFIRMED)
            ).scalar_one()
        )  # type: ignore[arg-type]


def test_reorg_after_anchoring_is_re_anchored_by_the_running_worker(stack: Stack) -> None:
    add_results(stack.engine, stack.deployment, 12)
    stack.start_worker("worker1")
    stack.wait_for(lambda: stack.all_confirmed(12), 60, "the first anchors")
    with unit_of_work(stack.engine) as s:
        before = {b.id: b.block_hash for b in s.scalars(select(Batch))}
    stack.anvil.mine(1)
    stack.anvil.rpc("anvil_reorg", 3, [])  # replaces the last 3 blocks: the anchors are gone

    def re_anchored() -> bool:
        with unit_of_work(stack.engine) as s:
            batches = list(s.scalars(select(Batch)))
        return stack.all_confirmed(12) and all(
            b.reorgs >= 1 and b.block_hash != before[b.id] for b in batches
        )

    stack.wait_for(re_anchored, 60, "the worker to re-anchor both batches")
    stack.assert_anchored_once(12)
    ledger = MatchLedger(JsonRpc(stack.anvil.rpc_url), stack.deployment.match_ledger)
    with unit_of_work(stack.engine) as s:
        for p in s.scalars(select(ResultProof)):
            assert ledger.verify_result(
                p.batch_id, bytes.fromhex(p.digest[2:]), [bytes.fromhex(x[2:]) for x in p.proof]
            )
