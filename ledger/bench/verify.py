"""`metaledger bench verify`: bulk audit throughput over anchored bundles made the real way.

1. its own Anvil (contracts deployed, a MetaX starter deck minted to a few wallets) and a
   SQLite database;
2. `bundles` MetaX matches played through the API (`python -m api`, two processes on one port;
   each of `wallets` client threads plays its registered deck against the random bot, random
   legal moves signed by the session key, to the end), their results signed by the API,
   anchored by the anchoring service (batches of `batch_size`) and exported (each batch's leaf
   list read once);
3. `metaledger verify <folder> --rpc URL` run as a subprocess, as an auditor runs it
   -> bundles_per_s (wall clock from start to exit, imports included) and the CPU of that
   process and its workers per bundle (verify_cpu_ms_per_bundle), and one bundle alone
   with `metaledger verify FILE` -> single_bundle_seconds.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

GAME = "metax"


def _play_all(url: str, keys: list[str], count: int) -> list[str]:
    """`count` bot matches played to their end through the API (random signed moves, the
    random bot), spread over one thread per wallet; their ids."""
    import httpx

    from ledger.client.api import ApiPlayer

    ids: list[str] = []
    lock = threading.Lock()

    def wallet(key: str) -> None:
        player = ApiPlayer(httpx.Client(base_url=url, timeout=120), key)
        player.sign_in()
        deck = player.pick_deck(GAME)
        deck_id = player.call("POST", "/decks", {"game": GAME, "cards": deck})["id"]
        while True:
            with lock:
                if len(ids) >= count:
                    break
                ids.append("")
                slot = len(ids) - 1
            match = player.start_bot_match(GAME, deck, "random", deck_id=deck_id)
            player.play(match["id"])
            ids[slot] = match["id"]
        player.http.close()

    threads = [threading.Thread(target=wallet, args=(k,)) for k in keys]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return ids


def _make_bundles(folder: Path, count: int, wallets: int, batch_size: int) -> dict[str, Any]:
    """Play `count` matches through the API, anchor them, export their bundles into `folder`;
    figures of the making."""
    from ledger.anchoring.service import AnchorConfig, Anchorer
    from ledger.audit.export import export_bundle
    from ledger.bench.apistack import BenchStack
    from ledger.chain.deployment import load_addresses
    from ledger.chain.transport import JsonRpc
    from ledger.db import make_engine, unit_of_work
    from ledger.keys.roles import Role, load_signer
    from ledger.settings import Settings

    stack = BenchStack(wallets)
    stack.start()
    t0 = time.perf_counter()
    url = stack.database("sqlite")
    # two API processes on one port: the signed moves' hashing and signing of the two cores'
    # worth of clients run side by side (SQLite writers queue on the shared write lock)
    api = stack.api(url, processes=2, api_access_log="false")
    ids = _play_all(api.url, stack.keys, count)
    played = time.perf_counter() - t0
    api.stop()
    addresses = load_addresses(stack.tmp / "deployment.json")
    settings = Settings(rpc_url=stack.anvil.rpc_url, database_url=url, data_dir=stack.tmp)
    engine = make_engine(url)
    Anchorer(
        engine,
        JsonRpc(stack.anvil.rpc_url),
        addresses.match_ledger,
        load_signer(settings, Role.ANCHORER, addresses.chain_id),
        AnchorConfig(batch_max_results=batch_size),
    ).run_until_idle(force=True)
    folder.mkdir(parents=True, exist_ok=True)
    actions = 0
    leaf_lists: dict[int, list[dict[str, Any]]] = {}  # each batch's list read once, not per bundle
    with unit_of_work(engine, write=False) as db:
        for n, match_id in enumerate(ids):
            bundle = export_bundle(
                db,
                match_id,
                card_token=addresses.card_token,
                deployment_block=addresses.deployment_block,
                leaf_lists=leaf_lists,
            )
            actions += len(bundle["transcript"]["entries"])
            (folder / f"bundle-{n:05d}.json").write_text(json.dumps(bundle, sort_keys=True))
    engine.dispose()
    return {
        "stack": stack,
        "make_seconds": round(time.perf_counter() - t0, 1),
        "play_seconds": round(played, 1),
        "mean_entries_per_bundle": round(actions / max(1, count), 1),
    }


def _children_cpu() -> float:
    """User + system CPU seconds of this process's finished (waited-for) children so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _verify_seconds(targets: list[str], rpc_url: str, jobs: int) -> tuple[float, float, int, str]:
    """Wall seconds of `metaledger verify TARGETS --rpc URL` as a subprocess, the CPU seconds
    of it and its workers (start-up included), its exit status and the last lines it printed."""
    command = [sys.executable, "-m", "ledger.cli", "verify", *targets, "--rpc", rpc_url]
    if jobs:
        command += ["--jobs", str(jobs)]
    cpu0 = _children_cpu()
    t0 = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, timeout=3600)
    seconds = time.perf_counter() - t0
    return seconds, _children_cpu() - cpu0, done.returncode, (done.stdout + done.stderr)[-2000:]


def run(
    bundles: int = 1000, wallets: int = 12, batch_size: int = 1024, jobs: int = 0
) -> dict[str, Any]:
    """Make the bundles, verify them in bulk and one alone; the figures."""
    tmp = Path(tempfile.mkdtemp(prefix="metaledger-bench-verify-"))
    folder = tmp / "bundles"
    made = _make_bundles(folder, bundles, wallets, batch_size)
    stack = made.pop("stack")
    anvil = stack.anvil
    done = False
    try:
        seconds, cpu, status, tail = _verify_seconds([str(folder)], anvil.rpc_url, jobs)
        if status != 0:
            raise RuntimeError(f"metaledger verify exited {status}: {tail}")
        single, _cpu, single_status, single_tail = _verify_seconds(
            [str(folder / "bundle-00000.json")], anvil.rpc_url, 0
        )
        if single_status != 0:
            raise RuntimeError(f"metaledger verify FILE exited {single_status}: {single_tail}")
        out = {
            "bundles": bundles,
            "bundles_per_s": round(bundles / seconds, 1),
            "verify_seconds": round(seconds, 2),
            # robust to other load: the CPU of the verify process and its workers (not Anvil's)
            "verify_cpu_seconds": round(cpu, 2),
            "verify_cpu_ms_per_bundle": round(1000 * cpu / bundles, 2),
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
        done = True
        return out
    finally:
        # a run that failed keeps its folders (the errors name the logs and bundles in them)
        stack.stop(keep_files=not done)
        if done:
            shutil.rmtree(tmp, ignore_errors=True)
