"""`metaledger chain ...`: the local Anvil chain (start, stop, deploy, seed, status) and the
result signer registry (`signer add|remove|list`)."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

import typer

from ledger.chain.deployment import Deployment
from ledger.chain.transport import JsonRpc
from ledger.cli.options import DataDir, command_group, use_data_dir
from ledger.errors import ConfigurationError
from ledger.settings import Settings, get_settings

app = command_group(no_args_is_help=True)


@app.command("start")
def start(
    port: int = typer.Option(None, help="default: METALEDGER_ANVIL_PORT, or a free port if taken"),
    data_dir: DataDir = None,
) -> None:
    """Start a local Anvil in the background (state, with historical states, kept under the data dir)."""
    from ledger.devstack.anvil import start_anvil
    from ledger.devstack.ports import free_port, is_free, port_holder

    use_data_dir(data_dir)
    settings = get_settings()
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    wanted = port or settings.anvil_port
    if not is_free(wanted):
        if port is not None:
            raise ConfigurationError(
                f"port {wanted} for Anvil is taken by {port_holder(wanted) or 'another process'}"
            )
        chosen = free_port()
        typer.echo(
            f"port {wanted} is taken by {port_holder(wanted) or 'another process'}; using {chosen}"
        )
        wanted = chosen
    node = start_anvil(
        wanted,
        log_file=settings.data_dir / "anvil.log",
        state_file=settings.data_dir / "anvil-state.json",
        detach=True,
    )
    settings.data_dir.joinpath("anvil.json").write_text(
        json.dumps({"pid": node.pid, "rpc_url": node.rpc_url})
    )
    typer.echo(
        f"Anvil is running at {node.rpc_url} (pid {node.pid}); export METALEDGER_RPC_URL={node.rpc_url}"
    )


@app.command("stop")
def stop(data_dir: DataDir = None) -> None:
    """Stop the Anvil started by `metaledger chain start` (its state is saved)."""
    use_data_dir(data_dir)
    path = get_settings().data_dir / "anvil.json"
    if not path.exists():
        raise ConfigurationError(
            f"no Anvil was started by `metaledger chain start` ({path} is missing)"
        )
    pid = int(json.loads(path.read_text())["pid"])
    try:
        os.kill(pid, signal.SIGTERM)
        typer.echo(f"stopped Anvil (pid {pid})")
    except ProcessLookupError:
        typer.echo(f"Anvil (pid {pid}) was not running")
    path.unlink()


@app.command("deploy")
def deploy(
    force: bool = typer.Option(False, help="deploy even if the deployment file matches the chain"),
    data_dir: DataDir = None,
) -> None:
    """Deploy the contracts to METALEDGER_RPC_URL and write the deployment file (seeds demo cards on Anvil)."""
    from ledger.devstack.deploy import ensure_deployment

    use_data_dir(data_dir)
    settings = get_settings()
    if force and settings.resolved_deployment_file.exists():
        settings.resolved_deployment_file.unlink()
    deployment = ensure_deployment(settings, settings.rpc_url, typer.echo)
    typer.echo(deployment.to_json())


@app.command("seed")
def seed(data_dir: DataDir = None) -> None:
    """Mint the demo collection again to the demo wallets (Anvil only)."""
    from web3 import Web3

    from ledger.chain.deployment import Deployment
    from ledger.chain.transport import JsonRpc
    from ledger.devstack.demo import demo_holdings
    from ledger.devstack.deploy import seed_demo
    from ledger.settings import ANVIL_CHAIN_ID

    use_data_dir(data_dir)
    settings = get_settings()
    deployment = Deployment.load(settings.resolved_deployment_file)
    with JsonRpc(settings.rpc_url) as rpc:
        chain_id = rpc.chain_id()
    if chain_id != ANVIL_CHAIN_ID:
        raise ConfigurationError("demo seeding only runs on a local Anvil chain (chain id 31337)")
    from ledger.keys.roles import Role, load_signer

    w3 = Web3(Web3.HTTPProvider(settings.rpc_url))
    publisher = load_signer(settings, Role.PUBLISHER, chain_id)
    hashes = seed_demo(w3, deployment, publisher, demo_holdings())
    typer.echo(f"minted the demo collection in {len(hashes)} transactions")


@app.command("status")
def status(data_dir: DataDir = None) -> None:
    """Print the chain id and latest block at METALEDGER_RPC_URL, and the deployment."""
    from ledger.chain.transport import JsonRpc

    use_data_dir(data_dir)
    settings = get_settings()
    with JsonRpc(settings.rpc_url, timeout=5) as rpc:
        chain_id, block = rpc.chain_id(), rpc.block_number()
    typer.echo(f"chain id {chain_id}, block {block} at {settings.rpc_url}")
    path = settings.resolved_deployment_file
    typer.echo(path.read_text() if path.exists() else f"no deployment file at {path}")


signer_app = command_group(
    no_args_is_help=True,
    help="MatchLedger's result signers: add, remove (with the publisher's key), list.",
)
app.add_typer(signer_app, name="signer")


def _admin_chain(data_dir: Path | None) -> tuple[Settings, Deployment, int]:
    use_data_dir(data_dir)
    settings = get_settings()
    deployment = Deployment.load(settings.resolved_deployment_file)
    with JsonRpc.from_settings(settings, timeout=30) as rpc:
        chain_id = rpc.chain_id()
    if chain_id != deployment.chain_id:
        raise ConfigurationError(
            f"the deployment file is for chain {deployment.chain_id} but {settings.rpc_url} is chain {chain_id}"
        )
    return settings, deployment, chain_id


def _change_signer(address: str, add: bool, data_dir: Path | None) -> None:
    from web3 import Web3

    from ledger.devstack.signers import change_signer
    from ledger.keys.roles import Role, load_signer

    settings, deployment, chain_id = _admin_chain(data_dir)
    publisher = load_signer(settings, Role.PUBLISHER, chain_id)
    w3 = Web3(Web3.HTTPProvider(settings.rpc_url, request_kwargs={"timeout": 30}))
    change = change_signer(w3, deployment, publisher, address, add)
    verb = "added" if add else "removed"
    typer.echo(
        f"{verb} result signer {change.signer} at block {change.block_number} "
        f"(transaction {change.tx_hash})"
    )
    if not add:
        typer.echo(
            f"results anchored up to block {change.block_number - 1} keep verifying; "
            f"`metaledger verify` refuses this signer's results anchored from block {change.block_number} on"
        )


@signer_app.command("add")
def signer_add(
    address: str = typer.Argument(..., help="the new result signer's address"),
    data_dir: DataDir = None,
) -> None:
    """Register a result signer (MatchLedger.addSigner, with the publisher's key)."""
    _change_signer(address, True, data_dir)


@signer_app.command("remove")
def signer_remove(
    address: str = typer.Argument(..., help="the result signer to remove"),
    data_dir: DataDir = None,
) -> None:
    """Remove a result signer (MatchLedger.removeSigner, with the publisher's key)."""
    _change_signer(address, False, data_dir)


@signer_app.command("list")
def signer_list(data_dir: DataDir = None) -> None:
    """Every address ever registered as a result signer, whether it is one now, and when it changed."""
    from ledger.devstack.signers import list_signers

    settings, deployment, _chain_id = _admin_chain(data_dir)
    with JsonRpc.from_settings(settings, timeout=30) as rpc:
        records = list_signers(rpc, deployment)
    for record in records:
        state = "active " if record.active else "removed"
        changes = [f"added at {b}" for b in record.added_at]
        changes += [f"removed at {b}" for b in record.removed_at]
        typer.echo(f"{state} {record.signer}  ({', '.join(changes)})")


@app.command("set-uri")
def set_uri(
    base_url: str | None = typer.Option(
        None,
        help="the API's public URL (default: METALEDGER_PUBLIC_BASE_URL, or the running stack's API)",
    ),
    data_dir: DataDir = None,
) -> None:
    """Point CardToken's metadata URI (`uri()`) at <base-url>/cards/{id}.json (publisher key)."""
    from web3 import Web3

    from ledger.chain.deployment import Deployment
    from ledger.devstack.deploy import ensure_token_uri
    from ledger.devstack.stackinfo import find_stack
    from ledger.keys.roles import Role, load_signer
    from ledger.protocol.tokenids import metadata_uri_template

    use_data_dir(data_dir)
    settings = get_settings()
    base_url = base_url or settings.public_base_url
    rpc_url = settings.rpc_url
    try:
        stack = find_stack(settings)
    except ConfigurationError:
        stack = None
    if stack is not None:
        base_url = base_url or stack.api_url
        if "rpc_url" not in settings.model_fields_set:
            rpc_url = stack.rpc_url
    if base_url is None:
        raise ConfigurationError(
            "no running stack here: give --base-url or set METALEDGER_PUBLIC_BASE_URL"
        )
    deployment = Deployment.load(settings.resolved_deployment_file)
    uri = metadata_uri_template(base_url)
    w3 = Web3(Web3.HTTPProvider(rpc_url, request_kwargs={"timeout": 30}))
    publisher = load_signer(settings, Role.PUBLISHER, int(w3.eth.chain_id))
    sent = ensure_token_uri(w3, deployment, publisher, uri)
    typer.echo(f"card metadata URI {'set to' if sent else 'is already'} {uri}")
