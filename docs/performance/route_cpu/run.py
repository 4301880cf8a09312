"""Where a signed move's API CPU goes, route by route: `bench api`'s human-vs-human MetaX phase
with one sequential client (one pair of seats), each request's process CPU metered in the API
process by `sitecustomize.py` of this folder; prints one JSON object.

    PYTHONPATH=docs/performance/route_cpu .venv/bin/python docs/performance/route_cpu/run.py 15
"""

from __future__ import annotations

import glob
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any


def _totals(prefix: str) -> dict[str, list[float]]:
    found: dict[str, list[float]] = {}
    for name in glob.glob(prefix + ".*"):
        found = json.loads(Path(name).read_text())
    return found


def main(seconds: float) -> dict[str, Any]:
    """Play `seconds` of signed moves with one client; CPU per route, per request and per move."""
    from ledger.bench import api as bench
    from ledger.bench.apistack import BenchStack

    prefix = os.environ["ROUTE_CPU_OUT"] = str(Path(tempfile.mkdtemp()) / "route-cpu")
    stack = BenchStack(4)
    stack.start()
    try:
        server = stack.api(stack.database("sqlite"), api_access_log="false")
        pairs = bench._seats(server.url, stack.keys[2:4])
        bench._moves(server.url, pairs, 3.0)  # warm-up: caches, connections
        time.sleep(2.5)
        before = _totals(prefix)
        moves, cpu_per_move = bench._cpu_ms_per(
            server, lambda: bench._moves(server.url, pairs, seconds)
        )
        time.sleep(2.5)
        routes = {}
        for route, (count, used) in _totals(prefix).items():
            count -= before.get(route, [0, 0.0])[0]
            used -= before.get(route, [0, 0.0])[1]
            if count > 0:
                routes[route] = {
                    "requests": int(count),
                    "cpu_ms_per_request": round(1000 * used / count, 3),
                    "cpu_ms_per_move": round(1000 * used / moves.done, 3),
                }
        bench._close(pairs)
        server.stop()
    finally:
        stack.stop()
    metered = sum(r["cpu_ms_per_move"] for r in routes.values())
    return {
        "moves": moves.done,
        "moves_per_s": moves.per_s,
        "server_cpu_ms_per_move": cpu_per_move,
        "in_the_app_cpu_ms_per_move": round(metered, 3),
        "routes": dict(sorted(routes.items(), key=lambda kv: -kv[1]["cpu_ms_per_move"])),
        "load_average_at_end": [round(x, 2) for x in os.getloadavg()],
    }


if __name__ == "__main__":
    print(json.dumps(main(float(sys.argv[1]) if len(sys.argv) > 1 else 15.0)))
