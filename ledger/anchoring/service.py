"""Anchoring: close batches of signed results from the outbox, anchor their Merkle roots on
MatchLedger, wait for confirmations and keep each result's proof.

Safety rules (see docs/workers.md):
- A batch's results are claimed in the same transaction that creates the batch
  (`outbox.batch_id` set only where it is NULL), so no result is ever in two batches.
- The anchor transaction's nonce and signed bytes are committed *before* broadcasting. A retry
  re-sends the same bytes or reads the receipt; it never signs again while the recorded
  transaction could still land.
- A transaction unmined after `replace_after_seconds` is replaced: same nonce, fees (from
  `eth_feeHistory`) raised by at least 12.5 %, up to `max_fee_per_gas`. Each replacement is
  recorded (`anchor_transactions`) before it is sent, and whichever recorded transaction is
  mined anchors the batch: one nonce, so at most one of them can land.
- A transaction with a new nonce is signed for a batch only when the old ones can no longer land
  (their nonce was used by something else) and the batch id is still free on-chain;
  `MatchLedgerBatchAlreadyAnchored` with our root is recognised as success.
- One anchor transaction is in flight at a time, in batch id order.
- Mined and confirmed batches are re-checked against the canonical chain for the last K blocks;
  a batch whose transaction left the chain goes back to `signed` and is re-anchored.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from datetime import UTC, timedelta
from typing import Any

from sqlalchemy import Engine
from sqlmodel import Session

from ledger.anchoring import repository as repo
from ledger.chain import fees
from ledger.chain.contracts import BATCH_ALREADY_ANCHORED, MatchLedger, anchor_calldata
from ledger.chain.fees import Fees
from ledger.chain.transport import JsonRpc, OnOneChain, RpcError
from ledger.db import unit_of_work
from ledger.db.models.anchoring import AnchorTransaction, Batch, BatchStatus, utcnow
from ledger.errors import ChainError, ConfigurationError, ServiceUnavailable
from ledger.keys.roles import Role, load_signer
from ledger.keys.signer import Signer, as_signer
from ledger.protocol import merkle
from ledger.protocol.hexcodec import from_hex, to_hex
from ledger.protocol.merkle import ZERO32, batch_hash
from ledger.runtime.report import PassSummary
from ledger.settings import Settings

log = logging.getLogger(__name__)

#: the gas limit of an anchor transaction is the node's estimate times this margin, plus a
#: constant: ~80,000 gas measured for the batch that opens a storage slot, and chains whose
#: estimates are tight
GAS_MARGIN_PERCENT, GAS_MARGIN_CONSTANT = 125, 10_000
GWEI = 10**9


def _default(setting: str) -> Any:
    """The default of a METALEDGER_ setting (declared once, in the settings class)."""
    return Settings.model_fields[setting].default


@dataclass(frozen=True)
class AnchorConfig:
    """Knobs of the anchoring loop (from settings; their defaults are the settings')."""

    batch_max_results: int = _default("batch_max_results")
    batch_max_seconds: float = _default("batch_max_seconds")
    confirmations: int = _default("confirmations")
    #: how many recent blocks of confirmed batches are re-checked for reorgs
    recheck_depth: int = _default("indexer_reorg_depth")
    #: how long one pass waits for a receipt before returning (the next pass goes on)
    receipt_wait_seconds: float = 30.0
    poll_seconds: float = 0.05
    #: one pass stops closing new batches after this long (the next tick goes on)
    max_pass_seconds: float = 30.0
    #: an anchor transaction unmined this long is replaced with higher fees (same nonce)
    replace_after_seconds: float = _default("anchor_replace_after_seconds")
    #: the highest max fee per gas an anchor transaction offers (wei)
    max_fee_per_gas: int = int(_default("anchor_max_fee_gwei") * GWEI)

    @classmethod
    def from_settings(cls) -> AnchorConfig:
        """The configuration from `ledger.settings`."""
        from ledger.settings import get_settings

        s = get_settings()
        return cls(
            batch_max_results=s.batch_max_results,
            batch_max_seconds=s.batch_max_seconds,
            confirmations=max(1, s.confirmations),
            recheck_depth=max(s.indexer_reorg_depth, s.confirmations),
            replace_after_seconds=s.anchor_replace_after_seconds,
            max_fee_per_gas=int(s.anchor_max_fee_gwei * GWEI),
        )


@dataclass
class PassReport(PassSummary):
    """What one anchoring pass did."""

    closed: list[int] = field(default_factory=list)
    signed: list[int] = field(default_factory=list)
    rebroadcast: list[int] = field(default_factory=list)
    replaced: list[int] = field(default_factory=list)
    confirmed: list[int] = field(default_factory=list)
    reorged: list[int] = field(default_factory=list)
    superseded: list[int] = field(default_factory=list)
    pending_results: int = 0
    unfinished_batches: int = 0


class Anchorer(OnOneChain):
    """Anchors the outbox's results on one MatchLedger with one anchorer key."""

    def __init__(
        self,
        engine: Engine,
        rpc: JsonRpc,
        ledger_address: str,
        anchorer: Signer | str,
        config: AnchorConfig | None = None,
        chain_id: int | None = None,
    ) -> None:
        self.engine = engine
        self.rpc = rpc
        self.ledger = MatchLedger(rpc, ledger_address)
        self.account = as_signer(anchorer)
        self.config = config or AnchorConfig()
        self._chain_id = chain_id
        self._seen_batches = False
        #: after another root took one of our batch ids: continue from the chain's head
        self._resync = False

    # ------------------------------------------------------------------ the pass

    def run_once(self, force: bool = False) -> PassReport:
        """One pass: close due batches, move unfinished batches forward, re-check recent ones."""
        report = PassReport()
        self.recheck(report)
        deadline = time.monotonic() + self.config.max_pass_seconds
        while True:  # keep going while results keep arriving, so throughput doesn't wait for ticks
            closed = 0
            while (batch_id := self.close_batch(force=force)) is not None:
                report.closed.append(batch_id)
                closed += 1
            self.advance(report)
            if not closed or time.monotonic() > deadline:
                break
        with unit_of_work(self.engine, write=False) as session:
            report.pending_results = repo.pending_count(session)
            report.unfinished_batches = repo.unfinished_count(session)
        return report

    def run_until_idle(self, force: bool = True, timeout: float = 300.0) -> PassReport:
        """Repeat passes until nothing is pending and every batch is confirmed (tests, bench)."""
        deadline = time.monotonic() + timeout
        total = PassReport()
        while True:
            report = self.run_once(force=force)
            for key in (
                "closed",
                "signed",
                "rebroadcast",
                "replaced",
                "confirmed",
                "reorged",
                "superseded",
            ):
                getattr(total, key).extend(getattr(report, key))
            total.pending_results = report.pending_results
            total.unfinished_batches = report.unfinished_batches
            if report.pending_results == 0 and report.unfinished_batches == 0:
                return total
            if time.monotonic() > deadline:
                raise ChainError(
                    f"anchoring did not finish within {timeout:.0f} s: {report.as_dict()}"
                )
            if not (report.closed or report.confirmed or report.signed or report.replaced):
                time.sleep(self.config.poll_seconds)

    # ------------------------------------------------------------------ closing batches

    def close_batch(self, force: bool = False, now: Any = None) -> int | None:
        """Close one batch if due (N pending results, or the oldest older than T s, or `force`)."""
        limit = self.config.batch_max_results
        # chain reads happen before the transaction: never hold the database lock across an RPC
        chain_id = self.chain_id
        start = self._chain_start() if self._resync or not self._has_batches() else None
        with unit_of_work(self.engine) as session:
            repo.lock_anchoring(session)
            rows = repo.unbatched(session, limit)
            if not rows:
                return None
            oldest = min(row[2] for row in rows)
            now = now or utcnow()
            now = now if now.tzinfo is not None else now.replace(tzinfo=UTC)
            due = (
                force
                or len(rows) >= limit
                or oldest <= now - timedelta(seconds=self.config.batch_max_seconds)
            )
            if not due:
                return None
            batch_id, prev = self._next_batch(session, start)
            tree = merkle.build([row[3] for row in rows])
            count = len(rows)
            batch = Batch(
                id=batch_id,
                chain_id=chain_id,
                ledger_address=self.ledger.address,
                root=to_hex(tree.root),
                count=count,
                prev_batch_hash=to_hex(prev),
                batch_hash=to_hex(batch_hash(prev, batch_id, tree.root, count)),
                status=BatchStatus.CLOSED,
            )
            proofs = [
                {
                    "result_id": row[1],
                    "batch_id": batch_id,
                    "digest": row[3],
                    "tree_index": tree.tree_index[i],
                    "proof": [to_hex(p) for p in tree.proof(i)],
                }
                for i, row in enumerate(rows)
            ]
            repo.add_batch(session, batch, proofs)
            claimed = repo.claim(session, [row[0] for row in rows], batch_id)
            if claimed != count:
                raise ChainError(
                    f"batch {batch_id}: {count - claimed} results were claimed concurrently"
                )
        self._resync, self._seen_batches = False, True
        log.info("closed batch %s with %s results", batch_id, count)
        return batch_id

    def _has_batches(self) -> bool:
        if not self._seen_batches:
            with unit_of_work(self.engine, write=False) as session:
                self._seen_batches = repo.has_batches(session)
        return self._seen_batches

    def _chain_start(self) -> tuple[int, bytes]:
        """Where this database's first batch continues the on-chain chain (1 / zero on a fresh ledger)."""
        latest = self.ledger.latest_batch_id()
        return latest + 1, (self.ledger.head_batch_hash() if latest else ZERO32)

    def _next_batch(
        self, session: Session, chain_start: tuple[int, bytes] | None
    ) -> tuple[int, bytes]:
        last = repo.last_batch(session)
        if last is not None and (chain_start is None or chain_start[0] <= last.id + 1):
            return last.id + 1, from_hex(last.batch_hash)
        if chain_start is None:  # batches were deleted (superseded) since we looked
            raise ServiceUnavailable("the batch table changed during closing; retry")
        return chain_start

    # ------------------------------------------------------------------ sending and confirming

    def advance(self, report: PassReport) -> None:
        """Move every unfinished batch forward, in id order, one transaction in flight at a time."""
        while True:
            with unit_of_work(self.engine, write=False) as session:
                batch = repo.next_unfinished(session)
            if batch is None:
                return
            if batch.status == BatchStatus.CLOSED:
                if not self._sign_and_send(batch, report):
                    return
            elif batch.status == BatchStatus.SIGNED:
                if not self._follow_signed(batch, report):
                    return
            elif batch.status == BatchStatus.MINED and not self._confirm(batch, report):
                return

    def _sign_and_send(self, batch: Batch, report: PassReport) -> bool:
        root, prev = from_hex(batch.root), from_hex(batch.prev_batch_hash)
        problem = self.ledger.simulate_anchor(
            self.account.address, batch.id, root, batch.count, prev
        )
        if problem == BATCH_ALREADY_ANCHORED:
            return self._adopt_or_supersede(batch, report)
        if problem is not None:
            raise ChainError(f"batch {batch.id} can't be anchored: {problem}")
        nonce = self.rpc.nonce(self.account.address, "pending")
        offered = fees.suggest(self.rpc).capped(self.config.max_fee_per_gas)
        raw, tx_hash = self._sign(batch, nonce, offered, self._gas_limit(batch))
        with unit_of_work(self.engine) as session:
            claimed = repo.mark_signed(
                session,
                batch.id,
                anchorer=self.account.address,
                nonce=nonce,
                raw_tx=raw,
                tx_hash=tx_hash,
                fees=(offered.max_fee_per_gas, offered.max_priority_fee_per_gas),
            )
        if not claimed:  # another worker signed it first: follow theirs
            return True
        report.signed.append(batch.id)
        self._broadcast(batch.id, raw)
        return self._wait_receipt(batch.id, [tx_hash], report)

    def _calldata(self, batch: Batch) -> bytes:
        return anchor_calldata(
            batch.id, from_hex(batch.root), batch.count, from_hex(batch.prev_batch_hash)
        )

    def _gas_limit(self, batch: Batch) -> int:
        """The node's gas estimate of this anchor() call, with a margin."""
        estimate = self.rpc.call(
            "eth_estimateGas",
            {
                "from": self.account.address,
                "to": self.ledger.address,
                "data": to_hex(self._calldata(batch)),
            },
        )
        return int(estimate, 16) * GAS_MARGIN_PERCENT // 100 + GAS_MARGIN_CONSTANT

    def _sign(self, batch: Batch, nonce: int, offered: Fees, gas: int) -> tuple[str, str]:
        tx = {
            "type": 2,
            "chainId": self.chain_id,
            "nonce": nonce,
            "to": self.ledger.address,
            "data": self._calldata(batch),
            "gas": gas,
            **offered.tx_fields(),
            "value": 0,
        }
        signed = self.account.sign_transaction(tx)
        return to_hex(signed.raw), to_hex(signed.hash)

    def _broadcast(self, batch_id: int, raw: str) -> None:
        """Send recorded bytes; a node refusing them (fees below its floor, a full pool) is
        logged, not fatal: the transaction stays recorded and is re-sent or replaced later."""
        try:
            self.rpc.send_raw(raw)
        except RpcError as exc:
            log.warning("the node refused the anchor transaction of batch %s: %s", batch_id, exc)

    def _wait_receipt(self, batch_id: int, tx_hashes: list[str], report: PassReport) -> bool:
        """Wait (at most until a replacement would be due) for a receipt of any of the batch's
        recorded transactions."""
        wait = min(self.config.receipt_wait_seconds, self.config.replace_after_seconds)
        deadline = time.monotonic() + wait
        while True:
            for tx_hash in reversed(tx_hashes):  # the newest is the likeliest
                receipt = self.rpc.receipt(tx_hash)
                if receipt is not None:
                    return self._record_receipt(batch_id, receipt, report)
            if time.monotonic() > deadline:
                return False
            time.sleep(self.config.poll_seconds)

    def _record_receipt(self, batch_id: int, receipt: dict[str, Any], report: PassReport) -> bool:
        if int(receipt["status"], 16) != 1:
            with unit_of_work(self.engine, write=False) as session:
                batch = repo.get_batch(session, batch_id)
            return self._reverted(batch, report)
        with unit_of_work(self.engine) as session:
            repo.mark_mined(
                session,
                batch_id,
                block_number=int(receipt["blockNumber"], 16),
                block_hash=receipt["blockHash"],
                tx_hash=receipt["transactionHash"],
                gas_used=int(receipt["gasUsed"], 16),
            )
        return True

    def _reverted(self, batch: Batch, report: PassReport) -> bool:
        onchain = self.ledger.batch_root(batch.id)
        if onchain == ZERO32:
            raise ChainError(f"the anchor transaction {batch.tx_hash} of batch {batch.id} reverted")
        return self._adopt_or_supersede(batch, report)

    def _adopt_or_supersede(self, batch: Batch, report: PassReport) -> bool:
        """Batch id taken on-chain: ours (an earlier transaction landed) or someone else's root."""
        event = self.ledger.anchored_batch(batch.id)
        if (
            event is not None
            and to_hex(event.root) == batch.root
            and to_hex(event.batch_hash) == batch.batch_hash
        ):
            with unit_of_work(self.engine) as session:
                repo.mark_mined(
                    session,
                    batch.id,
                    block_number=event.block_number,
                    block_hash=event.block_hash,
                    tx_hash=event.tx_hash,
                )
            log.info("batch %s was already anchored by %s", batch.id, event.tx_hash)
            return True
        self._supersede(batch.id, report)
        return True

    def _supersede(self, batch_id: int, report: PassReport) -> None:
        """Drop this batch and every later unconfirmed one; their results go back to the outbox."""
        with unit_of_work(self.engine) as session:
            ids = repo.supersede_from(session, batch_id)
        self._resync = True
        log.warning("batches %s superseded on-chain by another root; results re-queued", ids)
        report.superseded.extend(ids)

    def _follow_signed(self, batch: Batch, report: PassReport) -> bool:
        """Recorded transactions without a known receipt: wait for them, re-send the newest,
        replace it with higher fees once it waited too long, or sign anew once none can land."""
        assert batch.tx_hash is not None and batch.raw_tx is not None and batch.nonce is not None
        with unit_of_work(self.engine, write=False) as session:
            recorded = repo.transactions_of(session, batch.id)
        hashes = [t.tx_hash for t in recorded if t.nonce == batch.nonce] or [batch.tx_hash]
        if batch.tx_hash not in hashes:  # adopted from an event, or mined before replacements
            hashes.append(batch.tx_hash)
        for tx_hash in reversed(hashes):
            receipt = self.rpc.receipt(tx_hash)
            if receipt is not None:
                return self._record_receipt(batch.id, receipt, report)
        if self.rpc.nonce(self.account.address, "latest") > batch.nonce:
            # our nonce was used by another transaction: none of the recorded ones can land
            if self.ledger.batch_root(batch.id) != ZERO32:
                return self._adopt_or_supersede(batch, report)
            with unit_of_work(self.engine) as session:
                repo.unsign(session, batch.id, batch.tx_hash)
            log.warning(
                "anchor tx %s of batch %s was replaced; signing a new one", batch.tx_hash, batch.id
            )
            return True
        newest = next((t for t in reversed(recorded) if t.tx_hash == batch.tx_hash), None)
        if newest is not None and self._waited_too_long(batch):
            replacement = self._replace(batch, newest, report)
            if replacement is not None:
                return self._wait_receipt(batch.id, [*hashes, replacement], report)
        self._broadcast(batch.id, batch.raw_tx)
        report.rebroadcast.append(batch.id)
        return self._wait_receipt(batch.id, hashes, report)

    def _waited_too_long(self, batch: Batch) -> bool:
        signed_at = batch.signed_at
        if signed_at is None:
            return True
        signed_at = signed_at if signed_at.tzinfo is not None else signed_at.replace(tzinfo=UTC)
        waited = (utcnow() - signed_at).total_seconds()
        return waited >= self.config.replace_after_seconds

    def _replace(self, batch: Batch, newest: AnchorTransaction, report: PassReport) -> str | None:
        """Sign, record, then send a replacement of `newest` (same nonce, fees raised by at least
        12.5 %, at most the cap); its hash, or None at the cap or when another worker did it."""
        assert batch.nonce is not None
        old = Fees(int(newest.max_fee_per_gas), int(newest.max_priority_fee_per_gas))
        offered = old.replacement(fees.suggest(self.rpc), self.config.max_fee_per_gas)
        if offered is None:
            log.warning(
                "anchor tx %s of batch %s is stuck at the fee cap (%s wei per gas)",
                batch.tx_hash,
                batch.id,
                self.config.max_fee_per_gas,
            )
            return None
        try:
            gas = self._gas_limit(batch)
        except RpcError as exc:  # the batch id was taken meanwhile: the next look finds out
            log.warning("not replacing the anchor tx of batch %s: %s", batch.id, exc)
            return None
        raw, tx_hash = self._sign(batch, batch.nonce, offered, gas)
        with unit_of_work(self.engine) as session:
            recorded = repo.record_replacement(
                session,
                batch.id,
                newest.tx_hash,
                raw_tx=raw,
                tx_hash=tx_hash,
                fees=(offered.max_fee_per_gas, offered.max_priority_fee_per_gas),
            )
        if not recorded:
            return None
        log.info(
            "replaced anchor tx %s of batch %s by %s (max fee %s, tip %s wei per gas)",
            newest.tx_hash,
            batch.id,
            tx_hash,
            offered.max_fee_per_gas,
            offered.max_priority_fee_per_gas,
        )
        report.replaced.append(batch.id)
        self._broadcast(batch.id, raw)
        return tx_hash

    def _confirm(self, batch: Batch, report: PassReport) -> bool:
        assert batch.block_number is not None
        if self.rpc.block_hash(batch.block_number) != batch.block_hash:
            self._left_chain(batch, report)
            return True
        head = self.rpc.block_number()
        if head - batch.block_number + 1 < self.config.confirmations:
            return False
        assert batch.block_hash is not None
        with unit_of_work(self.engine) as session:
            done = repo.mark_confirmed(session, batch.id, batch.block_hash)
        if done:
            report.confirmed.append(batch.id)
        return True

    def _left_chain(self, batch: Batch, report: PassReport) -> None:
        """The block holding the anchor is no longer canonical: find the tx again or re-anchor."""
        assert batch.tx_hash is not None
        receipt = self.rpc.receipt(batch.tx_hash)
        mined_again = (
            (int(receipt["blockNumber"], 16), str(receipt["blockHash"]))
            if receipt is not None and int(receipt["status"], 16) == 1
            else None
        )
        with unit_of_work(self.engine) as session:
            repo.record_reorg(session, batch.id, mined_again)
        log.warning("anchor of batch %s left the canonical chain; re-anchoring", batch.id)
        report.reorged.append(batch.id)

    # ------------------------------------------------------------------ reorg watch

    def recheck(self, report: PassReport) -> None:
        """Re-check confirmed batches in the last K blocks against the canonical chain."""
        head = self.rpc.block_number()
        with unit_of_work(self.engine, write=False) as session:
            candidates = repo.recheck_candidates(session, head, self.config.recheck_depth)
        for batch in candidates:
            assert batch.block_number is not None
            if self.rpc.block_hash(batch.block_number) != batch.block_hash:
                self._left_chain(batch, report)


def from_settings(engine: Engine | None = None) -> Anchorer:
    """An Anchorer for the configured database, chain, deployment and anchorer key."""
    from ledger.chain.deployment import load_addresses
    from ledger.db import get_engine
    from ledger.settings import get_settings

    settings = get_settings()
    addresses = load_addresses(settings.resolved_deployment_file)
    rpc = JsonRpc.from_settings(settings, timeout=30)
    chain_id = rpc.chain_id()
    if chain_id != addresses.chain_id:
        raise ConfigurationError(
            f"the deployment file is for chain {addresses.chain_id} but {settings.rpc_url} is chain {chain_id}"
        )
    return Anchorer(
        engine or get_engine(),
        rpc,
        addresses.match_ledger,
        load_signer(settings, Role.ANCHORER, chain_id),
        AnchorConfig.from_settings(),
        chain_id,
    )
