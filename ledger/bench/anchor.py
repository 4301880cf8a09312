"""`metaledger bench anchor`: signed results through the outbox, a real Celery worker and Anvil.

Starts its own Anvil, SQLite database and redis-server, deploys the contracts, then:

1. ``gas_per_result``: anchors one batch each of 1, 64 and 1024 results (in-process) and
   divides each anchor transaction's ``gasUsed`` by the batch size.
2. ``results_per_s``: starts a real worker (``celery -A workers.app:celery_app worker --beat
   --pool=solo``), writes `results` operator-signed results with their outbox rows in
   transactions of 1024 (as the API does, as fast as it can) and times from the first write
   until every result is in a confirmed batch with its proof stored.
3. ``worker_rss_mb``: the worker process's resident memory once all of them are anchored.

Signing is not part of the timed pipeline (the API signs when a match ends); the results are
signed beforehand on every core.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from eth_account import Account
from sqlalchemy import Engine, func, insert, select
from sqlmodel import col

from ledger.anchoring.service import AnchorConfig, Anchorer
from ledger.chain.deployment import Deployment
from ledger.chain.transport import JsonRpc
from ledger.db import create_all, make_engine, unit_of_work
from ledger.db.models.anchoring import Batch, BatchStatus, ResultProof
from ledger.db.models.base import utcnow
from ledger.db.models.matches import Match
from ledger.db.models.results import MatchResult, OutboxEntry
from ledger.db.models.wallets import Wallet
from ledger.devstack.anvil import start_anvil
from ledger.devstack.deploy import deploy_all
from ledger.devstack.servers import RedisServer
from ledger.errors import MetaLedgerError
from ledger.protocol import eip712
from ledger.protocol.signatures import sign_digest
from ledger.settings import ANVIL_DEV_KEYS, child_environment

PUBLISHER_KEY, SIGNER_KEY, ANCHORER_KEY = ANVIL_DEV_KEYS[0], ANVIL_DEV_KEYS[1], ANVIL_DEV_KEYS[2]
PLAYERS = (Account.from_key(ANVIL_DEV_KEYS[5]).address, Account.from_key(ANVIL_DEV_KEYS[6]).address)
GAS_SIZES = (1, 64, 1024)
CHUNK = 1024


def _sign_chunk(args: tuple[int, int, str]) -> list[dict[str, Any]]:
    """`n` signed result rows with random struct fields (runs in a pool process)."""
    n, chain_id, ledger = args
    signer = Account.from_key(SIGNER_KEY).address
    rows = []
    for _ in range(n):
        result = eip712.MatchResult(
            match_id=os.urandom(32),
            game="metax",
            ruleset_version="1",
            player0=PLAYERS[0],
            player1=PLAYERS[1],
            deck0=os.urandom(32),
            deck1=os.urandom(32),
            seed_commitments=os.urandom(32),
            transcript_hash=os.urandom(32),
            final_state_hash=os.urandom(32),
            winner=PLAYERS[0],
            ownership_block=1,
        )
        digest = eip712.result_digest(result, chain_id, ledger)
        rows.append(
            {
                **result.as_record(),
                "chain_id": chain_id,
                "verifying_contract": ledger,
                "digest": "0x" + digest.hex(),
                "signature": "0x" + sign_digest(SIGNER_KEY, digest).hex(),
                "signer": signer,
                "end_reason": "ko",
                "transcript": {},
            }
        )
    return rows


def sign_results(n: int, deployment: Deployment) -> list[dict[str, Any]]:
    """`n` operator-signed result rows, signed on every core."""
    chunks = [
        (min(CHUNK, n - i), deployment.chain_id, deployment.match_ledger)
        for i in range(0, n, CHUNK)
    ]
    with multiprocessing.get_context("fork").Pool(os.cpu_count() or 1) as pool:
        return [row for part in pool.map(_sign_chunk, chunks) for row in part]


def write_results(engine: Engine, rows: list[dict[str, Any]]) -> None:
    """Write results with their matches and outbox rows in one transaction (as the API does)."""
    now = utcnow()
    with engine.begin() as conn:
        conn.execute(
            insert(Match),
            [
                {
                    "id": r["match_id"],
                    "game": "metax",
                    "ruleset_version": "1",
                    "catalogue_hash": "0" * 64,
                    "options": {},
                    "status": "finished",
                    "created_by": PLAYERS[0],
                    "operator_commit": "0x" + "00" * 32,
                    "operator_secret": "0x" + "00" * 32,
                    "version": 0,
                    "state_version": 0,
                    "checkpoints": [],
                    "created_at": now,
                }
                for r in rows
            ],
        )
        conn.execute(insert(MatchResult), [{**r, "created_at": now} for r in rows])
        ids = (
            conn.execute(
                select(col(MatchResult.id)).where(
                    col(MatchResult.match_id).in_([r["match_id"] for r in rows])
                )
            )
            .scalars()
            .all()
        )
        conn.execute(insert(OutboxEntry), [{"result_id": i, "created_at": now} for i in ids])


def _database(path: Path) -> Engine:
    engine = make_engine(f"sqlite:///{path}")
    create_all(engine)
    now = utcnow()
    with engine.begin() as conn:
        conn.execute(
            insert(Wallet),
            [
                {
                    "address": PLAYERS[0],
                    "is_contract": False,
                    "created_at": now,
                    "last_seen_at": now,
                    "lock_version": 0,
                }
            ],
        )
    return engine


def _gas_per_result(
    anvil_url: str, deployment: Deployment, rows: list[dict[str, Any]], tmp: Path
) -> dict[str, float]:
    engine = _database(tmp / "gas.db")
    out: dict[str, float] = {}
    start = 0
    for size in GAS_SIZES:
        write_results(engine, rows[start : start + size])
        start += size
        anchorer = Anchorer(
            engine,
            JsonRpc(anvil_url),
            deployment.match_ledger,
            ANCHORER_KEY,
            AnchorConfig(batch_max_results=size),
        )
        report = anchorer.run_until_idle(force=True)
        with unit_of_work(engine) as s:
            batch = s.get(Batch, report.confirmed[-1])
            assert batch is not None and batch.gas_used is not None and batch.count == size
            out[str(size)] = round(batch.gas_used / size, 1)
    engine.dispose()
    return out


def _rss_mb(pid: int) -> float:
    import psutil

    return round(float(psutil.Process(pid).memory_info().rss) / 2**20, 1)


def _done(engine: Engine, n: int) -> bool:
    with unit_of_work(engine) as s:
        proofs = s.execute(select(func.count()).select_from(ResultProof)).scalar_one()
        open_ = s.execute(
            select(func.count())
            .select_from(Batch)
            .where(col(Batch.status) != BatchStatus.CONFIRMED)
        ).scalar_one()
    return bool(proofs == n and open_ == 0)


def run(results: int = 100_000, **_: Any) -> dict[str, Any]:
    """Run the benchmark and return its figures."""
    if results < 1:
        raise MetaLedgerError("--results must be at least 1")
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="metaledger-bench-anchor-") as tmpdir:
        tmp = Path(tmpdir)
        with start_anvil(log_file=tmp / "anvil.log") as anvil, RedisServer(tmp / "redis") as redis:
            deployment = deploy_all(
                anvil.w3,
                PUBLISHER_KEY,
                Account.from_key(SIGNER_KEY).address,
                Account.from_key(ANCHORER_KEY).address,
                rpc_url=anvil.rpc_url,
            )
            deployment.save(tmp / "deployment.json")
            t_sign = time.perf_counter()
            rows = sign_results(results + sum(GAS_SIZES), deployment)
            sign_s = time.perf_counter() - t_sign
            gas = _gas_per_result(anvil.rpc_url, deployment, rows[results:], tmp)

            engine = _database(tmp / "metaledger.db")
            env = child_environment(
                data_dir=str(tmp),
                database_url=f"sqlite:///{tmp / 'metaledger.db'}",
                broker_url=redis.url,
                rpc_url=anvil.rpc_url,
                deployment_file=str(tmp / "deployment.json"),
                batch_max_results="1024",
                batch_max_seconds="1",
                confirmations="1",
                indexer_poll_seconds="5",
            )
            with (tmp / "worker.log").open("ab") as log:
                worker = subprocess.Popen(
                    [
                        sys.executable,
                        "-m",
                        "celery",
                        "-A",
                        "workers.app:celery_app",
                        "worker",
                        "--beat",
                        "--pool=solo",
                        "--concurrency=1",
                        "--loglevel=WARNING",
                    ],
                    cwd=tmp,
                    env=env,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    stdin=subprocess.DEVNULL,
                    start_new_session=True,
                )
            try:
                time.sleep(3.0)  # let the worker connect and run a first idle tick
                if worker.poll() is not None:
                    raise MetaLedgerError(
                        f"the worker exited early: {(tmp / 'worker.log').read_text()[-2000:]}"
                    )
                rss_idle = _rss_mb(worker.pid)
                t0 = time.perf_counter()
                for i in range(0, results, CHUNK):
                    write_results(engine, rows[i : min(i + CHUNK, results)])
                written_s = time.perf_counter() - t0
                deadline = time.monotonic() + 600
                while not _done(engine, results):
                    if time.monotonic() > deadline or worker.poll() is not None:
                        raise MetaLedgerError(
                            f"anchoring did not finish: {(tmp / 'worker.log').read_text()[-2000:]}"
                        )
                    time.sleep(0.05)
                elapsed = time.perf_counter() - t0
                rss = _rss_mb(worker.pid)
                with unit_of_work(engine) as s:
                    batches = s.execute(select(func.count()).select_from(Batch)).scalar_one()
            finally:
                if worker.poll() is None:
                    os.killpg(worker.pid, signal.SIGTERM)
                    try:
                        worker.wait(timeout=20)
                    except subprocess.TimeoutExpired:
                        os.killpg(worker.pid, signal.SIGKILL)
                        worker.wait()
            engine.dispose()
    return {
        "results": results,
        "results_per_s": round(results / elapsed, 1),
        "anchor_seconds": round(elapsed, 2),
        "write_seconds": round(written_s, 2),
        "batches": batches,
        "gas_per_result": gas,
        "worker_rss_mb": rss,
        "worker_rss_idle_mb": rss_idle,
        "sign_per_s": round((results + sum(GAS_SIZES)) / sign_s, 1),
        "seconds": round(time.perf_counter() - started, 2),
    }
