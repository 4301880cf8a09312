"""Two trees' API CPU per signed move, measured against each other in the same minutes: an older
tree (a `git worktree` folder) and this one each serve `bench api`'s human-vs-human MetaX phase
(same load generator, 4 match clients, one API process each, one Anvil), in short windows that
alternate between them, so that the machine's speed, which drifts by 10-20 % from one minute to
the next here, weighs on both alike. Prints one JSON object.

    git worktree add /tmp/wt-base <commit>   # once; then link the built assets and node_modules:
    ln -s "$PWD/api/web" /tmp/wt-base/api/web; ln -s "$PWD/node_modules" /tmp/wt-base/node_modules
    .venv/bin/python docs/performance/ab/run.py /tmp/wt-base 12 4

Each API process runs with its tree's folder as its working directory and on PYTHONPATH:
`python -m api` puts the working directory first on sys.path, so a tree named by PYTHONPATH
alone would serve this folder's code. PYTHONHASHSEED is the same for both (a process's hash
seed moves its CPU per request by a few per cent).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any


def _database(path: Path, tree: Path) -> str:
    """A SQLite database at `path` migrated by `tree`'s own migrations (the two trees' schemas
    may differ: each API refuses a database at a revision it does not know)."""
    url = f"sqlite:///{path}"
    code = "import sys; from ledger.db.migrations import upgrade; upgrade(sys.argv[1])"
    subprocess.run([sys.executable, "-c", code, url], cwd=tree, check=True)
    return url


def main(base: Path, rounds: int, window: float) -> dict[str, Any]:
    """`rounds` pairs of `window`-second phases, the order swapped every round."""
    from ledger.bench import api as bench
    from ledger.bench.apistack import BenchStack

    here = Path(__file__).resolve().parents[3]
    trees = {"base": base.resolve(), "this": here}
    stack = BenchStack(8)
    stack.start()
    cwd, saved = os.getcwd(), {k: os.environ.get(k) for k in ("PYTHONPATH", "PYTHONHASHSEED")}
    try:
        servers = {}
        os.environ["PYTHONHASHSEED"] = "0"
        for side, tree in trees.items():
            os.environ["PYTHONPATH"] = str(tree)
            os.chdir(tree)
            server = stack.api(_database(stack.tmp / f"{side}.db", tree), api_access_log="false")
            served = Path(f"/proc/{server.process.pid}/cwd").resolve()
            assert served == tree, (side, served)
            servers[side] = (server, bench._seats(server.url, stack.keys[:8]))
        os.chdir(cwd)
        for server, pairs in servers.values():
            bench._moves(server.url, pairs, 3.0)  # warm-up: caches, connections
        totals = {side: [0, 0.0, 0.0] for side in servers}
        for r in range(rounds):
            for side in ("base", "this") if r % 2 == 0 else ("this", "base"):
                server, pairs = servers[side]
                cpu, start = server.cpu_seconds(), time.perf_counter()
                tally = bench._moves(server.url, pairs, window)
                totals[side][0] += tally.done
                totals[side][1] += server.cpu_seconds() - cpu
                totals[side][2] += time.perf_counter() - start
        for server, pairs in servers.values():
            bench._close(pairs)
            server.stop()
    finally:
        os.chdir(cwd)
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        stack.stop()
    out: dict[str, Any] = {
        side: {
            "tree": str(trees[side]),
            "moves": done,
            "cpu_ms_per_move": round(1000 * cpu / done, 4),
            "moves_per_s": round(done / seconds, 1),
        }
        for side, (done, cpu, seconds) in totals.items()
    }
    out["this_vs_base_cpu"] = round(
        out["this"]["cpu_ms_per_move"] / out["base"]["cpu_ms_per_move"], 4
    )
    out["params"] = {"rounds": rounds, "window_s": window, "load_average_at_end": os.getloadavg()}
    return out


if __name__ == "__main__":
    args = sys.argv[1:]
    print(
        json.dumps(
            main(
                Path(args[0]),
                int(args[1]) if len(args) > 1 else 12,
                float(args[2]) if len(args) > 2 else 4.0,
            )
        )
    )
