"""The turn-timeout sweep: an idle player loses even when no request touches the match.

A timeout ends the match with a signed result, and the result signer's key is the API process's
alone (`ledger.keys.roles`), so every API process sweeps on a thread of its own, every tenth of
`turn_timeout_seconds` (1 to 30 s). Several processes sweeping at once are safe: a match changes
from active to finished once (compare-and-set on its status), the other sweeps find it done.
"""

from __future__ import annotations

import logging
import threading

from ledger.db import run_unit
from ledger.errors import MetaLedgerError
from ledger.matches.service import expire_matches
from ledger.runtime.context import Context

log = logging.getLogger(__name__)


def sweep_period(turn_timeout_seconds: int) -> float:
    """How often to sweep: a tenth of the timeout, between 1 s and 30 s."""
    return min(30.0, max(1.0, turn_timeout_seconds / 10))


def sweep_once(ctx: Context) -> int:
    """Apply the turn timeout to every live match past its deadline; how many changed."""
    return run_unit(ctx.db, lambda db: expire_matches(db, ctx))


class TimeoutSweeper:
    """A daemon thread running `sweep_once` every `sweep_period` seconds until stopped."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.period = sweep_period(ctx.settings.turn_timeout_seconds)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="timeout-sweeper", daemon=True)

    def start(self) -> TimeoutSweeper:
        """Start sweeping."""
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop sweeping (waits for a sweep in progress)."""
        self._stop.set()
        self._thread.join(timeout=10)

    def _run(self) -> None:
        while not self._stop.wait(self.period):
            try:
                expired = sweep_once(self.ctx)
            except MetaLedgerError as exc:  # database or chain away: the next sweep retries
                log.warning("timeout sweep failed: %s", exc)
            except Exception:  # a bug must not end the thread (and so all timeouts)
                log.exception("timeout sweep crashed")
            else:
                if expired:
                    log.info("timeout sweep: %s matches ended", expired)
