"""A benchmark's own API process: started with uvicorn, and waited for until it answers."""

from __future__ import annotations

import subprocess
import sys
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


def start_api(tmp: Path, **settings: str) -> tuple[subprocess.Popen[bytes], str]:
    """An API process (uvicorn, `api.app:app`) on a free port with METALEDGER_<NAME> `settings`,
    logging to `tmp`/api.log; (the process, its URL) once it answers /healthz (200 or 503: a
    benchmark runs no broker or worker)."""
    from ledger.devstack.ports import free_port
    from ledger.settings import child_environment

    port = free_port()
    url = f"http://127.0.0.1:{port}"
    env = child_environment(api_port=str(port), siwe_domain=f"127.0.0.1:{port}", **settings)
    command = [sys.executable, "-m", "uvicorn", "api.app:app", "--host", "127.0.0.1"]
    command += ["--port", str(port), "--log-level", "warning", "--no-access-log"]
    with (tmp / "api.log").open("ab") as log:
        process = subprocess.Popen(
            command, env=env, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL
        )
    wait_for_health(process, url, tmp / "api.log", statuses=(200, 503))
    return process, url
