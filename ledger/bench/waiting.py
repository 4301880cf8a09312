"""Waiting for a benchmark's own server process to answer over HTTP."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Collection
from pathlib import Path

import httpx

from ledger.errors import ServiceUnavailable


def wait_for_health(
    process: subprocess.Popen[bytes],
    url: str,
    log: Path,
    *,
    statuses: Collection[int] = (200,),
    timeout: float = 60.0,
    poll: float = 0.2,
) -> None:
    """Until `url`/healthz answers with one of `statuses`; ServiceUnavailable naming `log` if
    the process exits first or `timeout` seconds pass."""
    deadline = time.monotonic() + timeout
    while True:
        if process.poll() is not None:
            raise ServiceUnavailable(f"the process exited; see {log}")
        try:
            if httpx.get(f"{url}/healthz", timeout=2).status_code in statuses:
                return
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline:
            raise ServiceUnavailable(f"it did not answer within {timeout:g} s; see {log}")
        time.sleep(poll)
