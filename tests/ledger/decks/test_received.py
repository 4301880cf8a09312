"""The replay of one token's transfers behind the copies rule: which copies a started match
still holds, and where they are."""

from __future__ import annotations

from typing import Any

from ledger.decks.received import Hold, walk

A, B, C = "0xA", "0xB", "0xC"


def _row(block: int, sender: str, receiver: str, amount: int) -> dict[str, Any]:
    return {
        "block_number": block,
        "log_index": 0,
        "item_index": 0,
        "from_address": sender,
        "to_address": receiver,
        "amount": amount,
    }


def test_held_copies_follow_every_hop_and_free_copies_leave_first() -> None:
    holds = [Hold("m1", A, pin=10, copies=2)]
    rows = [_row(11, A, B, 1), _row(12, A, B, 2), _row(13, B, C, 3)]
    held = walk(rows, holds, {A: 3})
    # A had one free copy: the first transfer carries nothing held, the second both held copies
    assert held[C] == {("m1", A): 2}
    assert sum(held[A].values()) == 0 and sum(held[B].values()) == 0


def test_transfers_before_the_pin_carry_nothing() -> None:
    held = walk([_row(10, A, B, 2)], [Hold("m1", A, pin=10, copies=2)], {A: 4})
    assert held[B] == {} and held[A] == {("m1", A): 2}


def test_copies_sent_back_to_their_holder_are_its_own_again() -> None:
    rows = [_row(11, A, B, 2), _row(12, B, A, 2)]
    held = walk(rows, [Hold("m1", A, pin=10, copies=2)], {A: 2})
    assert held[A] == {("m1", A): 2} and sum(held[B].values()) == 0
