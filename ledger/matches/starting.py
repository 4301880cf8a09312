"""The chain reads that start a match: a freshly pinned block and the human seats' balances of
their decks' cards there (one balanceOfBatch), made before the start's transaction so that no
transaction (nor the API's event loop) waits for the node while it holds the database's write
lock."""

from __future__ import annotations

from dataclasses import dataclass

from ledger.catalogue.service import load_game
from ledger.chain.transport import BlockRef
from ledger.db import DB
from ledger.db.models import MatchStatus
from ledger.decks.service import read_holdings
from ledger.matches import repository as repo
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


def start_reads(db: DB, match_id: str, address: str) -> StartReads | None:
    """What the reveal `address` may send now would read from the chain to start the match
    (its human seats' required cards), or None if that reveal would not start it (the other
    seats have not all revealed, or it would be refused anyway)."""
    match = repo.live_match(db, match_id)
    if match is None or match.status != MatchStatus.SEEDING:
        return None
    seats = repo.detached_seats(db, match_id)  # read only
    mine = [s for s in seats if s.address == address and not s.is_bot]
    others = [s for s in seats if s not in mine]
    if len(seats) < 2 or len(mine) != 1 or mine[0].seed_secret is not None:
        return None
    if any(s.seed_commit is None or s.seed_secret is None for s in others):
        return None
    game = load_game(match.game)
    return StartReads(
        match.game,
        tuple((s.seat, s.address, game.required_tokens(s.cards)) for s in seats if not s.is_bot),
    )


def read_start(ctx: Context, reads: StartReads) -> StartPin:
    """Pin a fresh block and read the seats' balances of their required cards there."""
    pin = ctx.chain.head(fresh=True)
    helds = read_holdings(ctx, [(a, need) for _, a, need in reads.seats], reads.game, pin)
    return StartPin(reads, pin, tuple(helds))
