"""Per-route CPU of an API process, for `docs/performance/route_cpu/run.py` (a diagnosis aid, not
part of the product): on this folder's PYTHONPATH, with ROUTE_CPU_OUT set, every uvicorn app is
wrapped so that each HTTP request's process CPU (every thread's: the sync routes run in the
thread pool) is added to its route's total, written to `$ROUTE_CPU_OUT.<pid>` every 2 s as JSON.
Only exact with one sequential client (nothing else runs in the process meanwhile)."""

from __future__ import annotations

import json
import os
import re
import threading
import time
from typing import Any

if os.environ.get("ROUTE_CPU_OUT"):
    import uvicorn.config

    _load = uvicorn.config.Config.load
    _totals: dict[str, list[float]] = {}
    _lock = threading.Lock()

    def _route(scope: dict[str, Any]) -> str:
        path = re.sub(r"0x[0-9a-f]{64}", "{id}", scope.get("path", ""))
        return f"{scope.get('method', '')} {re.sub(r'/[0-9a-f-]{36}', '/{uuid}', path)}"

    def _metered(app: Any) -> Any:
        async def metered(scope: dict[str, Any], receive: Any, send: Any) -> None:
            if scope["type"] != "http":
                return await app(scope, receive, send)
            started = time.process_time()
            try:
                await app(scope, receive, send)
            finally:
                used = time.process_time() - started
                with _lock:
                    total = _totals.setdefault(_route(scope), [0, 0.0])
                    total[0] += 1
                    total[1] += used

        return metered

    def _load_metered(self: Any) -> None:
        _load(self)
        self.loaded_app = _metered(self.loaded_app)

    def _write() -> None:
        while True:
            time.sleep(2)
            with _lock:
                data = json.dumps(_totals)
            with open(f"{os.environ['ROUTE_CPU_OUT']}.{os.getpid()}", "w") as out:
                out.write(data)

    uvicorn.config.Config.load = _load_metered  # type: ignore[method-assign]
    threading.Thread(target=_write, daemon=True).start()
