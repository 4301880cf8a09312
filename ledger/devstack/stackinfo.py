"""`<data_dir>/stack.json`: where the running local stack answers, so that the CLI finds it.

`metaledger run` writes it once the API answers and removes it when it stops; `metaledger
play` and `metaledger audit export` read it (or the data directory given with `--data-dir`).
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path

from ledger.errors import ConfigurationError
from ledger.settings import Settings

HOW_TO_START = (
    "start it with `make run` in the MetaLedger repository, or pass --data-dir "
    "(or set METALEDGER_DATA_DIR) to the data directory of a running stack"
)


@dataclass(frozen=True)
class StackInfo:
    """What a running local stack records about itself."""

    pid: int
    api_url: str
    rpc_url: str
    deployment_file: str
    data_dir: str


def stack_file(settings: Settings) -> Path:
    """Where the running stack of `settings.data_dir` records itself."""
    return settings.data_dir / "stack.json"


def write_stack_info(settings: Settings, info: StackInfo) -> None:
    """Record a running stack (replaced atomically, readable by its owner only)."""
    path = stack_file(settings)
    tmp = path.with_name(f".{path.name}.{os.getpid()}")
    tmp.write_text(json.dumps(asdict(info), indent=2) + "\n")
    tmp.chmod(0o600)
    tmp.replace(path)


def remove_stack_info(settings: Settings) -> None:
    """Forget the record of a stopped stack."""
    stack_file(settings).unlink(missing_ok=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def find_stack(settings: Settings) -> StackInfo:
    """The running local stack of the settings' data directory; a one-line
    ConfigurationError naming what is missing and how to get it otherwise."""
    path = stack_file(settings)
    try:
        data = json.loads(path.read_text())
        info = StackInfo(**{name: data[name] for name in StackInfo.__dataclass_fields__})
    except FileNotFoundError:
        raise ConfigurationError(
            f"no local stack is running from {settings.data_dir} ({path} is missing): {HOW_TO_START}"
        ) from None
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ConfigurationError(f"{path} is unreadable ({exc}): {HOW_TO_START}") from None
    if not _alive(int(info.pid)):
        raise ConfigurationError(
            f"the local stack recorded in {path} (pid {info.pid}) is no longer running: {HOW_TO_START}"
        )
    return info


def require_local_state(settings: Settings) -> None:
    """Check that the settings' data directory holds a deployment file and, for the default
    SQLite database, the database file; a one-line ConfigurationError naming what is missing
    and how to get it otherwise (so that nothing is created in the wrong directory)."""
    needed = [settings.resolved_deployment_file]
    if settings.database_url is None:
        needed.append(Path(settings.resolved_database_url.removeprefix("sqlite:///")))
    for path in needed:
        if not path.is_file():
            raise ConfigurationError(
                f"no {path.name} at {path}: this is not the data directory of a local stack; "
                f"run this where `make run` ran, or pass --data-dir (or set METALEDGER_DATA_DIR) "
                "to its data directory"
            )
