"""Hypothesis property tests on a real Anvil: random sequences of mint / transfer / offer / fill /
cancel / invalidate / time travel conserve every token's total supply, agree with a Python model
of balances, and never let a cancelled, expired or filled offer fill."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from eth_account import Account
from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st

from ledger.protocol.eip712 import ZERO_ADDRESS, Offer, sign_offer
from tests.contracts.conftest import COLLECTOR_KEYS, Chain

pytestmark = pytest.mark.chain

KEYS = COLLECTOR_KEYS[:3]
PEOPLE = [Account.from_key(k).address for k in KEYS]
IDS = [11, 12, 13]

person = st.integers(0, len(PEOPLE) - 1)
card = st.integers(0, len(IDS) - 1)
amount = st.integers(0, 4)

mint_op = st.tuples(st.just("mint"), person, card, st.integers(1, 5))
transfer_op = st.tuples(st.just("transfer"), person, person, card, amount)
offer_op = st.tuples(
    st.just("offer"),
    person,
    card,
    amount,
    card,
    amount,
    st.integers(30, 900),
    st.one_of(st.none(), st.none(), person),
    st.integers(0, 6),
)
fill_op = st.tuples(st.just("fill"), st.integers(0, 20), person, st.booleans())
cancel_op = st.tuples(st.just("cancel"), st.integers(0, 20))
invalidate_op = st.tuples(st.just("invalidate"), person, st.integers(1, 8))
wait_op = st.tuples(st.just("wait"), st.integers(1, 150))
# offers and fills weighted up so that most sequences fill something
op = st.one_of(
    offer_op,
    offer_op,
    fill_op,
    fill_op,
    fill_op,
    mint_op,
    transfer_op,
    cancel_op,
    invalidate_op,
    wait_op,
)


@dataclass
class OpenOffer:
    offer: Offer
    signature: bytes
    maker: int
    dead: str | None = (
        None  # "filled", "cancelled" once it can never fill; expiry is checked by time
    )


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ops=st.lists(op, min_size=8, max_size=20))
@example(ops=[("offer", 0, 0, 1, 1, 1, 100, None, 1), ("fill", 0, 1, False), ("fill", 0, 2, False)])
@example(
    ops=[
        ("offer", 0, 0, 1, 1, 1, 100, 1, 1),
        ("fill", 0, 2, False),
        ("wait", 200),
        ("fill", 0, 1, True),
    ]
)
@pytest.mark.slow
@pytest.mark.timeout(900)  # 40 examples of up to 20 transactions each; slow on a loaded machine
@example(ops=[("offer", 0, 0, 1, 1, 1, 100, None, 1), ("cancel", 0), ("fill", 0, 1, False)])
def test_random_sequences_conserve_supply_and_never_refill(
    chain_session: Chain, ops: list[tuple[Any, ...]]
) -> None:
    c = chain_session
    snapshot = (
        c.anvil.snapshot()
    )  # one snapshot per example (a function fixture would span all examples)
    try:
        c.editions(IDS)
        for who in PEOPLE:
            c.send(c.token, "setApprovalForAll", c.exchange.address, True, sender=who)
            c.send(c.token, "mintBatch", who, IDS, [3, 3, 3], b"", sender=c.publisher)
        _run(c, ops)
    finally:
        c.anvil.revert(snapshot)


def _run(c: Chain, ops: list[tuple[Any, ...]]) -> None:
    d = c.deployment
    start_supply = {i: c.token.functions.totalSupply(i).call() for i in IDS}
    start_bal = {
        (p, i): c.token.functions.balanceOf(PEOPLE[p], i).call() for p in range(3) for i in IDS
    }
    bal = dict(start_bal)
    minted = dict.fromkeys(IDS, 0)
    offers: list[OpenOffer] = []
    min_nonce = [c.exchange.functions.minNonce(p).call() for p in PEOPLE]
    used: set[tuple[int, int]] = set()
    nonce_counter = [max(m, 1000) for m in min_nonce]

    for step in ops:
        kind = step[0]
        if kind == "mint":
            _, p, i, n = step
            c.send(c.token, "mint", PEOPLE[p], IDS[i], n, b"", sender=c.publisher)
            bal[p, IDS[i]] += n
            minted[IDS[i]] += n
        elif kind == "transfer":
            _, a, b, i, n = step
            if bal[a, IDS[i]] < n:
                continue
            c.send(
                c.token, "safeTransferFrom", PEOPLE[a], PEOPLE[b], IDS[i], n, b"", sender=PEOPLE[a]
            )
            bal[a, IDS[i]] -= n
            bal[b, IDS[i]] += n
        elif kind == "offer":
            _, m, gi, ga, ai, aa, ttl, taker, nonce_pick = step
            nonce = (
                nonce_counter[m] if nonce_pick else max(min_nonce[m] - 1, 0)
            )  # sometimes an already-invalid nonce
            nonce_counter[m] += 1
            o = Offer(
                maker=PEOPLE[m],
                given_ids=(IDS[gi],),
                given_amounts=(ga,),
                asked_ids=(IDS[ai],),
                asked_amounts=(aa,),
                expiry=c.now() + ttl,
                nonce=nonce,
                taker=ZERO_ADDRESS if taker is None else PEOPLE[taker],
            )
            offers.append(OpenOffer(o, sign_offer(KEYS[m], o, d.chain_id, d.card_exchange), m))
        elif kind == "fill" and offers:
            _, k, t, as_named_taker = step
            entry = (
                offers[-1 - k % min(3, len(offers))] if k < 15 else offers[k % len(offers)]
            )  # mostly recent
            o, m = entry.offer, entry.maker
            if as_named_taker and o.taker != ZERO_ADDRESS:
                t = PEOPLE.index(o.taker)
            gid, aid = o.given_ids[0], o.asked_ids[0]
            ga, aa = o.given_amounts[0], o.asked_amounts[0]
            # the two legs run in order: maker -> taker, then taker -> maker
            mid = dict(bal)
            mid[m, gid] -= ga
            mid[t, gid] += ga
            after = dict(mid)
            after[t, aid] -= aa
            after[m, aid] += aa
            if entry.dead is not None:
                reason = f"refill of a {entry.dead} offer"
            elif (m, o.nonce) in used:
                reason = "nonce spent by another offer"
            elif o.nonce < min_nonce[m]:
                reason = "nonce below minimum"
            elif o.taker not in (ZERO_ADDRESS, PEOPLE[t]):
                reason = "wrong taker"
            elif bal[m, gid] < ga or mid[t, aid] < aa:
                reason = "insufficient balance"
            else:
                reason = ""
            tx_hash = c.w3.eth.send_transaction(
                {  # type: ignore[typeddict-item]
                    "from": PEOPLE[t],
                    "to": c.exchange.address,
                    "gas": 1_000_000,
                    "data": c.exchange.encode_abi("fill", [o.as_tuple(), entry.signature]),
                }
            )
            receipt = c.w3.eth.wait_for_transaction_receipt(tx_hash)
            # expiry is judged as the contract judges it, by the fill's own block timestamp
            # (Anvil may give it the previous block's second, so it cannot be known before)
            block_time = c.w3.eth.get_block(receipt["blockNumber"])["timestamp"]
            if not reason and block_time > o.expiry:
                reason = "expired"
            ok = receipt["status"] == 1
            if reason.startswith("refill"):
                assert not ok, f"a {entry.dead} offer filled"
            assert ok == (reason == ""), (step, entry, reason, receipt["status"])
            event(f"fill refused: {reason}" if reason else "fill succeeded")
            expected_ok = ok
            if expected_ok:
                bal = after
                used.add((m, o.nonce))
                entry.dead = "filled"
        elif kind == "cancel" and offers:
            entry = offers[step[1] % len(offers)]
            o, m = entry.offer, entry.maker
            if (m, o.nonce) in used or o.nonce < min_nonce[m]:
                c.send_expect_failure(c.exchange, "cancel", o.nonce, sender=PEOPLE[m])
                continue
            c.send(c.exchange, "cancel", o.nonce, sender=PEOPLE[m])
            used.add((m, o.nonce))
            for other in offers:
                if other.maker == m and other.offer.nonce == o.nonce:
                    other.dead = other.dead or "cancelled"
        elif kind == "invalidate":
            _, m, bump = step
            new = min_nonce[m] + bump
            c.send(c.exchange, "invalidateNoncesBelow", new, sender=PEOPLE[m])
            min_nonce[m] = new
            for other in offers:
                if other.maker == m and other.offer.nonce < new:
                    other.dead = other.dead or "cancelled"
        elif kind == "wait":
            c.advance(step[1])

    t = c.token.functions
    for i in IDS:
        assert t.totalSupply(i).call() == start_supply[i] + minted[i]
        holders = t.balanceOfBatch(PEOPLE, [i] * 3).call()
        assert holders == [bal[p, i] for p in range(3)]
        assert sum(holders) - sum(start_bal[p, i] for p in range(3)) == minted[i]
    for entry in offers:
        if entry.dead is not None:  # filled or cancelled: its nonce is spent for good
            assert c.exchange.functions.isNonceUsed(PEOPLE[entry.maker], entry.offer.nonce).call()
