"""The offer book's indexer: follows CardExchange (OfferFilled, OfferCancelled,
NoncesInvalidated) and CardToken (ApprovalForAll of the exchange, transfers), records fills, and
marks every offer that can no longer be filled with the reason, without deleting it.

Each pass re-reads the last K blocks below its cursor, as the transfer indexer does: fills of
those blocks are deleted and read again, and the offers of every maker those blocks touched are
re-assessed against the chain (`ledger.chain.exchange.unfillable_reasons`), so a reorg that
undoes a fill, a cancel, a transfer or an approval re-opens the offer. Status rules
(docs/trading.md): a fill is final evidence (`filled`); a used nonce is `cancelled` (reason
`cancelled-on-chain`, `nonce-invalidated` or `nonce-used`); an off-chain withdrawal stays
`withdrawn` unless the chain fills or cancels the offer; then `expired`; then `unfillable`
(`maker-approval`, `maker-balance`), which re-opens when the cards or the approval come back.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from sqlalchemy import Engine
from sqlmodel import Session

from ledger.chain.contracts import ZERO_ADDRESS, CardToken
from ledger.chain.exchange import (
    NONCE_INVALIDATED,
    NONCE_USED,
    ExchangeEvent,
    ExchangeReads,
    exchange_events,
    unfillable_reasons,
)
from ledger.chain.transport import JsonRpc
from ledger.db import unit_of_work
from ledger.db.models.trading import BookOffer, OfferFill, uint256_key
from ledger.indexing import book_repository as book
from ledger.indexing import repository as cursors
from ledger.indexing.service import ChainFollower, FollowerReport, configured_deployment

log = logging.getLogger(__name__)

#: statuses the chain can still change (a fill or a cancel can still come, or be undone)
ASSESSED = ("open", "unfillable", "expired", "withdrawn", "filled", "cancelled")
CANCELLED_ON_CHAIN = "cancelled-on-chain"


@dataclass
class BookReport(FollowerReport):
    """What one pass of the book indexer did."""

    events: int = 0
    fills: int = 0
    assessed: int = 0
    changed: int = 0
    #: the makers whose offers changed status in this pass, lowercase
    makers: list[str] = field(default_factory=list)


def decide(row: BookOffer, filled: bool, reason: str | None) -> tuple[str, str | None]:
    """The status and reason of an offer given whether it has a fill and what the chain says."""
    if filled:
        return "filled", "filled"
    if reason in (NONCE_INVALIDATED, NONCE_USED):
        if row.status == "cancelled" and row.status_reason:
            return "cancelled", row.status_reason  # the event said how (kept across re-reads)
        return "cancelled", reason
    if row.status == "withdrawn":
        return "withdrawn", row.status_reason
    if reason is not None:
        return ("expired" if reason == "expired" else "unfillable"), reason
    return "open", None


class BookIndexer(ChainFollower):
    """Follows one CardExchange and its CardToken for the offer book."""

    def __init__(
        self,
        engine: Engine,
        rpc: JsonRpc,
        exchange: str,
        token: str,
        deployment_block: int,
        reorg_depth: int = 12,
        chain_id: int | None = None,
    ) -> None:
        super().__init__(engine, rpc, deployment_block, reorg_depth, chain_id)
        self.reads = ExchangeReads(rpc, exchange, token)
        self._changed: set[str] = set()

    def run_once(self) -> BookReport:
        """Read the exchange's events up to the head, record fills, re-assess touched offers."""
        head, chain_id = self.rpc.block_number(), self.chain_id
        self._changed.clear()
        with unit_of_work(self.engine, write=False) as db:
            indexed = cursors.cursor_block(db, self.reads.exchange)
        start = self.window_start(indexed, head)
        report = BookReport(from_block=start, to_block=head)
        events = (
            exchange_events(self.rpc, self.reads.exchange, self.reads.token, start, head)
            if head >= start
            else []
        )
        transfers = (
            CardToken(self.rpc, self.reads.token).transfers(start, head) if head >= start else []
        )
        head_hash = self.rpc.block_hash(head) or "0x" + "00" * 32
        touched = {e.maker for e in events}
        touched |= {
            t[k] for t in transfers for k in ("from_address", "to_address") if t[k] != ZERO_ADDRESS
        }
        report.events = len(events)
        with unit_of_work(self.engine) as db:
            touched |= book.remove_fills_from(db, start)
            report.fills = self._record(db, events)
            cursors.save_cursor(db, self.reads.exchange, chain_id, head, head_hash)
        report.assessed, report.changed = self.assess(touched)
        report.makers = sorted(self._changed)
        return report

    def _record(self, db: Session, events: list[ExchangeEvent]) -> int:
        """Store the fills and apply what the events say at once (before any assessment)."""
        fills = 0
        for e in events:
            if e.kind == "filled":
                row = book.book_offer(db, e.offer_hash)
                book.add_fill(
                    db,
                    OfferFill(
                        offer_hash=e.offer_hash,
                        maker=e.maker,
                        taker=e.taker,
                        nonce=uint256_key(e.nonce),
                        block_number=e.block_number,
                        block_hash=e.block_hash,
                        tx_hash=e.tx_hash,
                        log_index=e.log_index,
                        maker_gave=None if row is None else row.given,
                        taker_gave=None if row is None else row.asked,
                        wei=None if row is None else row.asked_wei,
                    ),
                )
                if row is not None:
                    self._mark(db, row, "filled", "filled")
                fills += 1
            elif e.kind == "cancelled":
                for row in book.offers_with_nonce(db, e.maker, uint256_key(e.nonce)):
                    if row.status != "filled":
                        self._mark(db, row, "cancelled", CANCELLED_ON_CHAIN)
        db.flush()
        return fills

    def assess(self, makers: set[str]) -> tuple[int, int]:
        """Re-assess the offers of `makers` against the chain, then expire what is due;
        (offers assessed, statuses changed)."""
        with unit_of_work(self.engine, write=False) as db:
            rows = book.offers_of(db, makers, ASSESSED)
        reasons = unfillable_reasons(self.reads, [r.signed_offer() for r in rows]) if rows else []
        verdicts = dict(zip((r.offer_hash for r in rows), reasons, strict=True))
        now = self.reads.head_timestamp()
        changed = 0
        with unit_of_work(self.engine) as db:
            filled = book.filled_hashes(db, verdicts)
            for offer_hash, reason in verdicts.items():
                row = book.book_offer(db, offer_hash)
                if row is not None:
                    changed += self._mark(db, row, *decide(row, offer_hash in filled, reason))
            for row in book.expirable(db, now, ("open", "unfillable")):
                changed += self._mark(db, row, "expired", "expired")
        return len(rows), changed

    def _mark(self, db: Session, row: BookOffer, status: str, reason: str | None) -> bool:
        """book.mark, remembering whose offer changed (the wallet's live stream is told)."""
        changed = book.mark(db, row, status, reason)
        if changed:
            self._changed.add(row.maker.lower())
        return changed


def book_from_settings(engine: Engine | None = None) -> BookIndexer | None:
    """The book indexer of the configured deployment (None if it has no CardExchange)."""
    engine, rpc, addresses, reorg_depth = configured_deployment(engine)
    if addresses.card_exchange is None:
        return None
    return BookIndexer(
        engine,
        rpc,
        addresses.card_exchange,
        addresses.card_token,
        addresses.deployment_block,
        reorg_depth,
        addresses.chain_id,
    )
