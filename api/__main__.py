"""`python -m api`: serve the API with the settings of the environment (what `metaledger api`
runs, and the local stack's API process)."""

from __future__ import annotations

import sys

from ledger.errors import MetaLedgerError
from ledger.settings import get_settings


def main() -> None:
    """Serve the API on the settings' host and port; an expected error is one `error:` line."""
    from api.server import serve
    from ledger.keys.roles import Role, hold_only

    settings = get_settings()
    try:
        hold_only(settings, "api", Role.RESULT_SIGNER)
        serve(settings.api_host, settings.api_port)
    except MetaLedgerError as exc:
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()
