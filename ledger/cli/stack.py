"""`metaledger run|api|worker|beat`: the local stack, or one of its processes."""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from collections.abc import Callable

import typer
from rich.console import Console

from ledger.cli.options import DataDir, use_data_dir
from ledger.settings import get_settings

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def take_terminal_foreground() -> Callable[[], None]:
    """Under a parent that shares our process group (`make run`), become the terminal's
    foreground process group, so that Ctrl-C reaches this process alone: it stops the stack in
    order and exits 0, and make, never interrupted, exits 0 too. Returns the undo."""
    try:
        fd = sys.stdin.fileno()
        if os.getpgrp() == os.getpid() or not os.isatty(fd) or os.tcgetpgrp(fd) != os.getpgrp():
            return lambda: None  # a shell's own job, no terminal, or in the background
    except (OSError, ValueError):
        return lambda: None
    parent_group = os.getpgrp()

    def hand_to(group: int) -> None:
        ttou = signal.signal(signal.SIGTTOU, signal.SIG_IGN)  # a background group may not
        try:
            os.tcsetpgrp(fd, group)
        finally:
            signal.signal(signal.SIGTTOU, ttou)

    os.setpgid(0, 0)
    try:
        hand_to(os.getpgrp())
    except OSError:
        os.setpgid(0, parent_group)
        return lambda: None
    # Ctrl-Z would stop us while the shell waits for make: nothing could resume us
    tstp = signal.signal(signal.SIGTSTP, signal.SIG_IGN)

    def undo() -> None:
        signal.signal(signal.SIGTSTP, tstp)
        with contextlib.suppress(OSError):  # the parent is gone; its shell takes the terminal
            hand_to(parent_group)

    return undo


def run(data_dir: DataDir = None) -> None:
    """Start Anvil, deploy and seed, migrate, redis-server, a worker, beat and the API under one
    supervisor; Ctrl-C stops them all and exits 0."""
    from ledger.devstack.childprocess import StopRequested
    from ledger.devstack.stack import LocalStack

    use_data_dir(data_dir)
    console = Console(soft_wrap=True)
    stopping = threading.Event()
    stack = LocalStack(
        get_settings(), say=lambda line: console.print(line, highlight=False), stopping=stopping
    )
    stack.take_data_dir()
    restore_terminal = take_terminal_foreground()
    handlers = {sig: signal.signal(sig, lambda *_: stopping.set()) for sig in STOP_SIGNALS}
    try:
        try:
            with console.status("starting the local stack..."):
                stack.start()
        except StopRequested:
            pass
        else:
            _print_welcome(console, stack)
            stack.watch()
        with contextlib.suppress(OSError):  # the terminal may be gone (SIGHUP)
            console.print("stopping...")
    finally:
        stack.stop()
        with contextlib.suppress(OSError):
            console.print("stopped everything `metaledger run` started")
        for sig, handler in handlers.items():
            signal.signal(sig, handler)
        restore_terminal()


def _print_welcome(console: Console, stack: object) -> None:
    from ledger.devstack.demo import describe_demo
    from ledger.devstack.stack import LocalStack

    assert isinstance(stack, LocalStack)
    console.rule("[bold]MetaLedger is running")
    console.print(
        f"API      {stack.api_url}        docs {stack.api_url}/docs   health {stack.api_url}/healthz"
    )
    chain_id = stack.deployment.chain_id if stack.deployment else "?"
    console.print(f"chain    {stack.rpc_url}  (chain id {chain_id})")
    console.print(f"broker   {stack.broker_url}")
    console.print(f"logs     {stack.data_dir}/*.log (supervisor events in stack.log)")
    for line in describe_demo(stack.data_dir):
        console.print(line, highlight=False)
    console.print("Press Ctrl-C to stop.")


def _exec_server(name: str, **settings: str) -> None:
    """Replace this process by server process `name` (its own module, as the stack runs it),
    with this command's settings in its environment."""
    from ledger.devstack.stack import server_command
    from ledger.settings import child_environment

    env = child_environment(data_dir=str(get_settings().data_dir), **settings)
    command = server_command(name)
    os.execve(command[0], command, env)


def api(
    host: str = typer.Option(None, help="default: METALEDGER_API_HOST"),
    port: int = typer.Option(None, help="default: METALEDGER_API_PORT"),
    processes: int = typer.Option(None, min=1, max=64, help="default: METALEDGER_API_PROCESSES"),
    data_dir: DataDir = None,
) -> None:
    """Serve the API with uvicorn (with the API's own HTTP limits, see api.server), in one
    process or in several sharing the port."""
    use_data_dir(data_dir)
    settings = get_settings()
    _exec_server(
        "api",
        api_host=host or settings.api_host,
        api_port=str(port or settings.api_port),
        api_processes=str(processes or settings.api_processes),
    )


def worker(data_dir: DataDir = None) -> None:
    """Run a Celery worker on the configured broker (solo pool: tasks are short and idempotent).
    The periodic schedule is `metaledger beat`'s, run once per deployment."""
    use_data_dir(data_dir)
    _exec_server("worker")


def beat(data_dir: DataDir = None) -> None:
    """Run the periodic schedule (Celery beat); a second one on the same data dir waits."""
    use_data_dir(data_dir)
    _exec_server("beat")
