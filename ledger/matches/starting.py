"""The chain reads that start a match: a freshly pinned block and the human seats' balances of
their decks' cards there (one balanceOfBatch), made before the start's transaction so that no
transaction (nor the API's event loop) waits for the node while it holds the database's write
lock."""

from __future__ import annotations

from dataclasses import dataclass

from ledger.chain.transport import BlockRef
from ledger.decks.service import read_holdings
from ledger.runtime.context import Context


@dataclass(frozen=True, slots=True)
class StartReads:
    """What starting a match reads: its game and, per human seat, (seat, address, the copies of
    each card its deck requires)."""

    game: str
    seats: tuple[tuple[int, str, dict[str, int]], ...]


@dataclass(frozen=True, slots=True)
class StartPin:
    """Those reads made: the pinned block and each human seat's balances there (seat order)."""

    reads: StartReads
    pin: BlockRef
    helds: tuple[dict[str, int], ...]


def read_start(ctx: Context, reads: StartReads) -> StartPin:
    """Pin a fresh block and read the seats' balances of their required cards there."""
    pin = ctx.chain.head(fresh=True)
    helds = read_holdings(ctx, [(a, need) for _, a, need in reads.seats], reads.game, pin)
    return StartPin(reads, pin, tuple(helds))
