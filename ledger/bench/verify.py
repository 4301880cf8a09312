"""`metaledger bench verify`: bulk audit throughput over anchored bundles made the real way.

1. its own Anvil (contracts deployed, a MetaX starter deck minted to a few wallets) and a
   SQLite database;
2. `bundles` MetaX matches played through the match services (each wallet's registered deck
   against the random bot, random legal moves to the end), their results signed by the result
   service, anchored by the anchoring service (batches of `batch_size`) and exported;
3. `metaledger verify <folder> --rpc URL` run as a subprocess, as an auditor runs it
   -> bundles_per_s (wall clock from start to exit, imports included), and one bundle alone
   with `metaledger verify FILE` -> single_bundle_seconds.
"""

from __future__ import annotations

import json
import os
import random
import secrets
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from eth_utils import keccak

GAME = "metax"


def _play(ctx: Any, engine: Any, owner: str, deck_id: str, rng: random.Random) -> str:
    """One bot match played to its end through the match services; its id."""
    from ledger.db import unit_of_work
    from ledger.matches import service as matches

    def unit() -> Any:
        return unit_of_work(engine)

    with unit() as db:
        match_id = matches.create_match(db, ctx, owner, GAME, deck_id, "bot", "random").id
    secret = secrets.token_bytes(32)
    with unit() as db:
        matches.commit_seed(db, ctx, match_id, owner, "0x" + keccak(secret).hex())
    with unit() as db:
        matches.reveal_seed(db, ctx, match_id, owner, "0x" + secret.hex())
    while True:
        with unit() as db:
            match, seats = matches.get_match(db, match_id)
            if match.status != "active":
                return match_id
            legal = matches.legal_actions(db, ctx, match, matches.seat_of(seats, owner))
        choice = legal[rng.randrange(len(legal))]["action"]
        with unit() as db:
            matches.submit_action(db, ctx, match_id, owner, choice)


def _make_bundles(folder: Path, count: int, wallets: int, batch_size: int) -> dict[str, Any]:
    """Play, sign, anchor and export `count` bundles into `folder`; figures of the making."""
    from eth_account import Account

    from engine import get_game
    from ledger.anchoring.service import AnchorConfig, Anchorer
    from ledger.audit.export import export_bundle
    from ledger.auth import repository as wallets_repo
    from ledger.chain.client import ChainClient
    from ledger.chain.transport import JsonRpc
    from ledger.db import make_engine, unit_of_work
    from ledger.db.migrations import upgrade
    from ledger.db.models import utcnow
    from ledger.decks import service as decks
    from ledger.devstack.anvil import start_anvil
    from ledger.devstack.deploy import deploy_from_settings, seed_demo
    from ledger.keys.roles import Role, load_signer
    from ledger.protocol.tokenids import token_id
    from ledger.runtime.context import Context
    from ledger.settings import ANVIL_DEV_KEYS, Settings

    tmp = folder.parent
    anvil = start_anvil(log_file=tmp / "anvil.log")
    deployment = deploy_from_settings(anvil.w3, anvil.rpc_url)
    deployment.save(tmp / "deployment.json")
    game = get_game(GAME)
    deck = dict(game.starter_decks[0])
    keys = [Account.create() for _ in range(wallets)]
    cards = [(token_id(GAME, c), n) for c, n in game.required_tokens(deck).items() if n > 0]
    seed_demo(anvil.w3, deployment, ANVIL_DEV_KEYS[0], {k.address: cards for k in keys})
    url = f"sqlite:///{tmp / 'bench.db'}"
    upgrade(url)
    settings = Settings(
        rpc_url=anvil.rpc_url,
        database_url=url,
        deployment_file=tmp / "deployment.json",
        data_dir=tmp,
    )
    engine = make_engine(url)
    ctx = Context.create(settings, engine, ChainClient.from_settings(settings))
    t0 = time.perf_counter()
    owners: list[tuple[str, str]] = []
    for key in keys:
        with unit_of_work(engine) as db:
            wallets_repo.upsert_wallet(db, key.address, is_contract=False, now=utcnow())
            owners.append((key.address, decks.register_deck(db, ctx, key.address, GAME, deck).id))
    rng = random.Random(1)
    ids = [_play(ctx, engine, *owners[i % len(owners)], rng) for i in range(count)]
    played = time.perf_counter() - t0
    Anchorer(
        engine,
        JsonRpc(anvil.rpc_url),
        deployment.match_ledger,
        load_signer(settings, Role.ANCHORER, deployment.chain_id),
        AnchorConfig(batch_max_results=batch_size),
    ).run_until_idle(force=True)
    folder.mkdir(parents=True, exist_ok=True)
    actions = 0
    with unit_of_work(engine, write=False) as db:
        for n, match_id in enumerate(ids):
            bundle = export_bundle(
                db,
                match_id,
                card_token=deployment.card_token,
                deployment_block=deployment.deployment_block,
            )
            actions += len(bundle["transcript"]["actions"])
            (folder / f"bundle-{n:05d}.json").write_text(json.dumps(bundle, sort_keys=True))
    ctx.chain.close()
    engine.dispose()
    return {
        "anvil": anvil,
        "make_seconds": round(time.perf_counter() - t0, 1),
        "play_seconds": round(played, 1),
        "mean_actions_per_bundle": round(actions / max(1, count), 1),
    }


def _verify_seconds(targets: list[str], rpc_url: str, jobs: int) -> tuple[float, int, str]:
    """Wall seconds of `metaledger verify TARGETS --rpc URL` as a subprocess, its exit status
    and the last lines it printed."""
    command = [sys.executable, "-m", "ledger.cli", "verify", *targets, "--rpc", rpc_url]
    if jobs:
        command += ["--jobs", str(jobs)]
    t0 = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, timeout=3600)
    return time.perf_counter() - t0, done.returncode, (done.stdout + done.stderr)[-2000:]


def run(
    bundles: int = 1000, wallets: int = 8, batch_size: int = 1024, jobs: int = 0
) -> dict[str, Any]:
    """Make the bundles, verify them in bulk and one alone; the figures."""
    tmp = Path(tempfile.mkdtemp(prefix="metaledger-bench-verify-"))
    folder = tmp / "bundles"
    made = _make_bundles(folder, bundles, wallets, batch_size)
    anvil = made.pop("anvil")
    try:
        seconds, status, tail = _verify_seconds([str(folder)], anvil.rpc_url, jobs)
        if status != 0:
            raise RuntimeError(f"metaledger verify exited {status}: {tail}")
        single, single_status, single_tail = _verify_seconds(
            [str(folder / "bundle-00000.json")], anvil.rpc_url, 0
        )
        if single_status != 0:
            raise RuntimeError(f"metaledger verify FILE exited {single_status}: {single_tail}")
        return {
            "bundles": bundles,
            "bundles_per_s": round(bundles / seconds, 1),
            "verify_seconds": round(seconds, 2),
            "single_bundle_seconds": round(single, 2),
            **made,
            "params": {
                "bundles": bundles,
                "wallets": wallets,
                "batch_size": batch_size,
                "jobs": jobs or os.cpu_count(),
                "game": GAME,
                "cpus": os.cpu_count(),
                "load_average_at_end": [round(x, 2) for x in os.getloadavg()],
            },
        }
    finally:
        anvil.stop()
