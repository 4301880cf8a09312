"""`metaledger bench trade`: the offer book of one API process on a real Anvil and SQLite.

1. `offers` signed offers are posted by `clients` concurrent clients (each POST checks the
   signature, the domain, the nonce, the maker's cards and approval against the chain) ->
   `offers_created_per_s`;
2. with every one of them open, `GET /offers` is asked `requests` times, one request at a time,
   cycling through the filters it serves (none; a card being sold; a card asked for; a maker; a
   named taker; a game; ETH offers by price, both ways; a second page) -> `list_p99_ms` over all
   of them, `list_p99_ms_by_filter`, and the API process's CPU time per list request
   (`list_api_cpu_ms_per_request`, from /proc: what a request costs whatever else shares the
   machine; `load_average_1m` says how much did).
"""

from __future__ import annotations

import os
import random
import statistics
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx

LIST_BAR_MS = 20.0
MAKERS = 8
CARDS_PER_MAKER = 12


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _p99(values: list[float]) -> float:
    return (
        statistics.quantiles(values, n=100, method="inclusive")[98]
        if len(values) > 1
        else values[0]
    )


def run(offers: int = 10_000, requests: int = 2_000, clients: int = 8) -> dict[str, Any]:
    """Post `offers` offers, then time `requests` list requests; the figures."""
    from eth_account import Account

    from engine import get_game
    from ledger.bench.waiting import start_api
    from ledger.chain.exchange import approval_calldata
    from ledger.chain.transport import JsonRpc
    from ledger.client.transactions import WalletSender
    from ledger.db.migrations import upgrade
    from ledger.devstack.anvil import start_anvil
    from ledger.devstack.deploy import deploy_from_settings, seed_demo
    from ledger.protocol import eip712
    from ledger.protocol.hexcodec import to_hex, uint256_hex
    from ledger.protocol.tokenids import token_id
    from ledger.settings import ANVIL_DEV_KEYS

    tmp = Path(tempfile.mkdtemp(prefix="metaledger-bench-trade-"))
    rng = random.Random(14)
    anvil = start_anvil(log_file=tmp / "anvil.log")
    api = None
    try:
        deployment = deploy_from_settings(anvil.w3, anvil.rpc_url)
        deployment.save(tmp / "deployment.json")
        ids = [token_id("metax", str(c["id"])) for c in get_game("metax").cards]
        keys = [Account.create().key.to_0x_hex() for _ in range(MAKERS)]
        makers = [Account.from_key(k).address for k in keys]
        holdings = {m: [(i, 1000) for i in rng.sample(ids, CARDS_PER_MAKER)] for m in makers}
        seed_demo(anvil.w3, deployment, ANVIL_DEV_KEYS[0], holdings)
        with JsonRpc(anvil.rpc_url) as rpc:
            for key, maker in zip(keys, makers, strict=True):
                rpc.call("anvil_setBalance", maker, hex(10**20))
                WalletSender(rpc, key).send(
                    deployment.card_token, to_hex(approval_calldata(deployment.card_exchange))
                )
        db_url = f"sqlite:///{tmp / 'bench.db'}"
        upgrade(db_url)
        api, url = start_api(
            tmp,
            rpc_url=anvil.rpc_url,
            database_url=db_url,
            deployment_file=str(tmp / "deployment.json"),
            data_dir=str(tmp),
            public_rate_limit=str(10**9),
        )
        expiry = int(time.time()) + 30 * 86_400
        taker = Account.from_key(ANVIL_DEV_KEYS[9]).address
        bodies = []
        for n in range(offers):
            k = n % MAKERS
            own = [i for i, _ in holdings[makers[k]]]
            given = rng.choice(own)
            wanted = rng.choice([i for i in ids if i not in own])
            eth = n % 2 == 0
            offer = eip712.Offer(
                maker=makers[k],
                taker=taker if n % 10 == 0 else eip712.ZERO_ADDRESS,
                given_ids=(given,),
                given_amounts=(1 + n % 3,),
                asked_ids=() if eth else (wanted,),
                asked_amounts=() if eth else (1,),
                asked_wei=rng.randrange(1, 10**6) * 10**12 if eth else 0,
                expiry=expiry,
                nonce=n // MAKERS,
            )
            typed = eip712.offer_typed_data(offer, deployment.chain_id, deployment.card_exchange)
            signature = to_hex(
                eip712.sign_offer(keys[k], offer, deployment.chain_id, deployment.card_exchange)
            )
            bodies.append(
                {"domain": typed["domain"], "offer": typed["message"], "signature": signature}
            )
        shared = httpx.Client(
            base_url=url, timeout=60, limits=httpx.Limits(max_connections=clients)
        )
        failures = 0

        def post(payload: dict[str, Any]) -> bool:
            return shared.post("/offers", json=payload).status_code == 201

        started = time.perf_counter()
        with ThreadPoolExecutor(clients) as pool:
            failures = sum(not ok for ok in pool.map(post, bodies))
        created_s = time.perf_counter() - started
        open_count = 0
        page = shared.get("/offers", params={"limit": 100}).json()
        while True:
            open_count += len(page["offers"])
            if page["next_cursor"] is None:
                break
            page = shared.get(
                "/offers", params={"limit": 100, "cursor": page["next_cursor"]}
            ).json()
        second = shared.get("/offers").json()["next_cursor"]
        card = uint256_hex(holdings[makers[0]][0][0])
        filters: dict[str, dict[str, Any]] = {
            "none": {},
            "selling_card": {"card": card, "side": "selling"},
            "asking_card": {"card": card, "side": "asking"},
            "maker": {"maker": makers[1]},
            "taker": {"taker": taker},
            "game": {"game": "metax"},
            "price_asc": {"sort": "price_asc"},
            "price_desc": {"sort": "price_desc"},
            "second_page": {"cursor": second},
        }
        timings: dict[str, list[float]] = {name: [] for name in filters}
        names = list(filters)
        for name in names:  # warm-up, not counted
            shared.get("/offers", params=filters[name])
        statuses: set[int] = set()
        cpu_before = _cpu_seconds(api.pid)
        for n in range(requests):
            name = names[n % len(names)]
            t0 = time.perf_counter()
            reply = shared.get("/offers", params=filters[name])
            timings[name].append((time.perf_counter() - t0) * 1000)
            statuses.add(reply.status_code)
        api_cpu_ms = (_cpu_seconds(api.pid) - cpu_before) * 1000 / requests
        shared.close()
        every = [t for values in timings.values() for t in values]
        p99 = _p99(every)
        return {
            "offers": offers,
            "offers_created": offers - failures,
            "offers_refused": failures,
            "open_offers_listed": open_count,
            "offers_created_per_s": round(offers / created_s, 1),
            "post_clients": clients,
            "list_requests": requests,
            "list_statuses": sorted(statuses),
            "list_p50_ms": round(statistics.median(every), 2),
            "list_p99_ms": round(p99, 2),
            "list_p99_ms_by_filter": {k: round(_p99(v), 2) for k, v in timings.items()},
            "list_api_cpu_ms_per_request": round(api_cpu_ms, 2),
            "load_average_1m": round(os.getloadavg()[0], 1),
            "list_bar_ms": LIST_BAR_MS,
            "list_bar_met": p99 <= LIST_BAR_MS,
        }
    finally:
        if api is not None and api.poll() is None:
            api.terminate()
            api.wait(10)
        anvil.stop()
