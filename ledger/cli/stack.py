"""`metaledger run|api|worker`: the local stack, or one of its processes."""

from __future__ import annotations

import typer
from rich.console import Console

from ledger.settings import get_settings


def run() -> None:
    """Start Anvil, deploy and seed, migrate, redis-server, the API and a worker; Ctrl-C stops all."""
    from ledger.localstack import LocalStack

    console = Console(soft_wrap=True)
    stack = LocalStack(get_settings(), say=lambda line: console.print(line, highlight=False))
    try:
        with console.status("starting the local stack..."):
            stack.start()
        _print_welcome(console, stack)
        stack.watch()
    except KeyboardInterrupt:
        console.print("stopping...")
    finally:
        stack.stop()
        console.print("stopped everything `metaledger run` started")


def _print_welcome(console: Console, stack: object) -> None:
    from ledger.localstack import LocalStack
    from ledger.stackdeploy import describe_demo

    assert isinstance(stack, LocalStack)
    console.rule("[bold]MetaLedger is running")
    console.print(
        f"API      {stack.api_url}        docs {stack.api_url}/docs   health {stack.api_url}/healthz"
    )
    chain_id = stack.deployment.chain_id if stack.deployment else "?"
    console.print(f"chain    {stack.rpc_url}  (chain id {chain_id})")
    console.print(f"broker   {stack.broker_url}")
    for line in describe_demo(stack.api_url):
        console.print(line, highlight=False)
    console.print("Press Ctrl-C to stop.")


def api(
    host: str = typer.Option(None, help="default: METALEDGER_API_HOST"),
    port: int = typer.Option(None, help="default: METALEDGER_API_PORT"),
) -> None:
    """Serve the API with uvicorn (with the API's own HTTP limits, see api.server)."""
    from api.server import serve

    settings = get_settings()
    serve(host or settings.api_host, port or settings.api_port)


def worker(
    beat: bool = typer.Option(
        True, help="also run the periodic schedule (run one beat per deployment)"
    ),
) -> None:
    """Run a Celery worker on the configured broker (solo pool: tasks are short and idempotent)."""
    from workers.app import celery_app

    argv = ["worker", "--loglevel=INFO", "--pool=solo", "--concurrency=1"]
    if beat:
        argv.append("--beat")
    celery_app.worker_main(argv)
