"""Copies a wallet received from a wallet that had them committed to a still-live match.

A started match pins its players' copies at its ownership block. A transfer after that block
that takes a player's balance below the copies its live matches hold moves held copies: the
receiver gets them still held by that match (and passes them on the same way). The walk reads
the CardToken's Transfer logs between the oldest holding pin and the new pin through the one
chain client (eth_getLogs in chunks) and the senders' balances at the oldest pin (one
balanceOfBatch); free copies are taken to leave a wallet first. The walk starts only when the
wallet received one of the cards since the oldest pin of a live match."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine import Game
from ledger.catalogue.service import token_ids
from ledger.chain.contracts import ZERO_ADDRESS
from ledger.chain.transport import BlockRef
from ledger.db import DB
from ledger.decks import repository as repo
from ledger.protocol.hexcodec import uint256_hex
from ledger.runtime.context import Context


@dataclass(frozen=True)
class Hold:
    """Copies of one token a started match holds for one of its players since its pin."""

    match_id: str
    holder: str
    pin: int
    copies: int
    #: the hash of block `pin`
    pin_hash: str = ""


@dataclass(frozen=True)
class Holds:
    """What other wallets' started matches hold of the cards a deck needs (from the database):
    token id (hex) -> its holds, and the card id of each token."""

    by_token: dict[str, list[Hold]]
    cards: dict[str, str]


def started_holds(
    db: DB, game: Game, required: Mapping[str, int], exclude_match: str | None = None
) -> Holds:
    """The holds of started matches of `game` on the cards `required`."""
    ids = token_ids(game.name)
    wanted = {uint256_hex(ids[c]): c for c in required if c in ids}
    holds: dict[str, list[Hold]] = defaultdict(list)
    for match_id, holder, number, block_hash, cards in repo.started_seat_cards(db, game=game.name):
        if match_id == exclude_match:
            continue
        for card, copies in game.required_tokens(cards).items():
            if card in required and copies > 0 and card in ids:
                hold = Hold(match_id, holder, number, copies, block_hash)
                holds[uint256_hex(ids[card])].append(hold)
    return Holds(dict(holds), wanted)


def copies_received(
    ctx: Context, holds: Holds, owner: str, pin: BlockRef
) -> dict[str, dict[str, int]]:
    """card id -> {match id: copies} of the `holds` pinned before `pin` that reached `owner` by
    `pin` (the Transfer logs since the oldest holding pin, and the senders' balances at it)."""
    by_token = {
        t: [h for h in token_holds if h.pin < pin.number]
        for t, token_holds in holds.by_token.items()
    }
    by_token = {t: token_holds for t, token_holds in by_token.items() if token_holds}
    if not by_token:
        return {}
    first = min((h for token_holds in by_token.values() for h in token_holds), key=lambda h: h.pin)
    oldest = BlockRef(first.pin, first.pin_hash)
    rows = [
        r for r in ctx.chain.transfers(oldest.number + 1, pin.number) if r["token_id"] in by_token
    ]
    if not any(r["to_address"] == owner for r in rows):
        return {}
    pairs = sorted(
        {(r["from_address"], r["token_id"]) for r in rows if r["from_address"] != ZERO_ADDRESS}
    )
    start = ctx.chain.balances([a for a, _t in pairs], [int(t, 16) for _a, t in pairs], oldest)
    balances = dict(zip(pairs, start, strict=True))
    out: dict[str, dict[str, int]] = {}
    for token, token_holds in by_token.items():
        token_rows = [r for r in rows if r["token_id"] == token]
        at_owner = walk(
            token_rows, token_holds, {a: n for (a, t), n in balances.items() if t == token}
        )
        foreign = {
            m: n for (m, holder), n in at_owner.get(owner, {}).items() if holder != owner and n
        }
        if foreign:
            out[holds.cards[token]] = foreign
    return out


def received_since(
    ctx: Context,
    game: Game,
    owner: str,
    required: Mapping[str, int],
    oldest: int | None,
    pin: BlockRef,
) -> bool:
    """Whether `owner` received one of the cards `required` after block `oldest` (the oldest pin
    of a live match, None if there is none) up to `pin`: the transfer logs of that range, the
    range the walk reads (kept for the head TTL). Only then can a hold have reached `owner`."""
    if oldest is None or oldest >= pin.number:
        return False
    ids = token_ids(game.name)
    wanted = {uint256_hex(ids[c]) for c in required if c in ids}
    rows = ctx.chain.transfers(oldest + 1, pin.number)
    return any(r["to_address"] == owner and r["token_id"] in wanted for r in rows)


def held_copies_received(
    db: DB,
    ctx: Context,
    game: Game,
    owner: str,
    required: Mapping[str, int],
    pin: BlockRef,
    exclude_match: str | None = None,
) -> dict[str, dict[str, int]]:
    """card id -> {match id: copies} that `owner` holds at `pin` but other wallets' live matches
    hold (received after those matches' pins). The started matches' seats are read only if
    `owner` received one of the cards since the oldest pin (the common case reads none, so a
    start does not grow with the number of live matches)."""
    oldest = repo.oldest_started_pin(db, game=game.name, exclude_match=exclude_match)
    if not received_since(ctx, game, owner, required, oldest, pin):
        return {}
    return copies_received(ctx, started_holds(db, game, required, exclude_match), owner, pin)


def walk(
    rows: list[dict[str, Any]], holds: list[Hold], start: Mapping[str, int]
) -> dict[str, dict[tuple[str, str], int]]:
    """Replay one token's transfers (in log order, after the oldest pin): wallet -> {(match id,
    holder): copies that match holds} physically at that wallet after the last row."""
    balance: dict[str, int] = defaultdict(int, start)
    held: dict[str, dict[tuple[str, str], int]] = defaultdict(dict)
    pending = sorted(holds, key=lambda h: h.pin)

    def pin_up_to(block: int) -> None:
        while pending and pending[0].pin < block:
            h = pending.pop(0)
            here = held[h.holder]
            room = balance[h.holder] - sum(here.values())
            here[(h.match_id, h.holder)] = here.get((h.match_id, h.holder), 0) + max(
                0, min(h.copies, room)
            )

    ordered = sorted(rows, key=lambda r: (r["block_number"], r["log_index"], r["item_index"]))
    for row in ordered:
        pin_up_to(row["block_number"])
        sender, receiver, amount = row["from_address"], row["to_address"], int(row["amount"])
        moved: dict[tuple[str, str], int] = {}
        if sender != ZERO_ADDRESS:
            here = held[sender]
            free = max(0, balance[sender] - sum(here.values()))
            owed = max(0, amount - free)
            # copies received from others leave before the sender's own committed ones
            for key in sorted(here, key=lambda k: k[1] == sender):
                take = min(owed, here[key])
                if take:
                    here[key] -= take
                    moved[key] = take
                    owed -= take
            balance[sender] -= amount
        if receiver != ZERO_ADDRESS:
            balance[receiver] += amount
            there = held[receiver]
            for key, n in moved.items():
                there[key] = there.get(key, 0) + n
    pin_up_to(1 << 62)
    return held
