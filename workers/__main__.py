"""`python -m workers worker|beat`: one Celery worker, or the one scheduler of a data directory
(what `metaledger worker` and `metaledger beat` run, and the local stack's worker processes)."""

from __future__ import annotations

import sys

from ledger.errors import MetaLedgerError
from ledger.settings import get_settings

USAGE = "usage: python -m workers worker|beat"


def main(argv: list[str]) -> None:
    """Run the process named by `argv[0]`; an expected error is one `error:` line."""
    from ledger.keys.roles import SERVER_ROLES, hold_only

    command = argv[0] if argv else ""
    try:
        if command in SERVER_ROLES:
            hold_only(get_settings(), command, *SERVER_ROLES[command])
        if command == "worker":
            from workers.app import celery_app

            # solo pool: tasks are short and idempotent; the schedule is beat's, run once
            celery_app.worker_main(["worker", "--loglevel=INFO", "--pool=solo", "--concurrency=1"])
        elif command == "beat":
            from workers.beat import run_beat

            run_beat(get_settings(), lambda line: print(line, flush=True))
        else:
            print(USAGE, file=sys.stderr)
            sys.exit(2)
    except MetaLedgerError as exc:
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main(sys.argv[1:])
