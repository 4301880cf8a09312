"""One supervisor for the local stack's child processes: each is started (and waited for) in
order, restarted with a bounded back-off when it dies, every event logged, and all of them
stopped newest first."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from ledger.devstack.childprocess import ChildProcess, StopRequested, log_tail
from ledger.errors import MetaLedgerError

#: the first restart waits this long; each failure in a row doubles it up to BACKOFF_MAX
BACKOFF_MIN = 1.0
BACKOFF_MAX = 30.0
#: a child that ran this long before dying is restarted after BACKOFF_MIN again
STABLE_AFTER = 60.0


@dataclass
class Service:
    """A supervised child: `launch` starts it and returns once it is ready (or raises)."""

    name: str
    launch: Callable[[], ChildProcess]
    child: ChildProcess
    delay: float = 0.0
    restart_at: float | None = None
    restarts: int = 0


class Supervisor:
    """Starts children in order, restarts the ones that die, stops them newest first."""

    def __init__(
        self,
        log: Callable[[str], None],
        stopping: threading.Event,
        *,
        backoff_min: float = BACKOFF_MIN,
        backoff_max: float = BACKOFF_MAX,
        stable_after: float = STABLE_AFTER,
    ) -> None:
        self.log = log
        self.stopping = stopping
        self.backoff_min = backoff_min
        self.backoff_max = backoff_max
        self.stable_after = stable_after
        self.services: list[Service] = []

    def start(self, name: str, launch: Callable[[], ChildProcess]) -> ChildProcess:
        """Launch a child now and supervise it from then on."""
        child = launch()
        self.services.append(Service(name, launch, child))
        return child

    def children(self) -> list[ChildProcess]:
        """The current process of every service."""
        return [s.child for s in self.services]

    def watch(self, poll: float = 0.2) -> None:
        """Restart children that die until `stopping` is set."""
        while not self.stopping.is_set():
            self.tick()
            self.stopping.wait(poll)

    def tick(self) -> None:
        """One look at every child: schedule a restart for a dead one, restart those due."""
        for service in self.services:
            if self.stopping.is_set():
                return
            now = time.monotonic()
            if service.restart_at is None:
                if not service.child.alive():
                    self._schedule(service, now)
            elif now >= service.restart_at:
                self._restart(service)

    def _next_delay(self, service: Service, ran: float) -> float:
        if service.delay == 0.0 or ran >= self.stable_after:
            return self.backoff_min
        return min(self.backoff_max, service.delay * 2)

    def _schedule(self, service: Service, now: float) -> None:
        child = service.child
        ran = now - child.started_at
        service.delay = self._next_delay(service, ran)
        service.restart_at = now + service.delay
        # a child killed by a signal did not say why; one that exited with an error did
        tail = log_tail(child.log_file) if child.exit_code() else ""
        self.log(
            f"{service.name} (pid {child.pid}) {child.exit_description()} after {ran:.0f} s"
            + (f": {tail}" if tail else "")
            + f"; restarting in {service.delay:g} s"
        )

    def _restart(self, service: Service) -> None:
        try:
            service.child = service.launch()
        except StopRequested:
            return
        except MetaLedgerError as exc:
            service.delay = min(self.backoff_max, service.delay * 2)
            service.restart_at = time.monotonic() + service.delay
            self.log(f"{service.name} did not restart: {exc}; retrying in {service.delay:g} s")
            return
        service.restarts += 1
        service.restart_at = None
        self.log(f"{service.name} restarted (pid {service.child.pid}; restart {service.restarts})")

    def stop(self) -> None:
        """Stop every child, newest first (each one's whole process group)."""
        for service in reversed(self.services):
            service.child.stop()
        self.services.clear()
