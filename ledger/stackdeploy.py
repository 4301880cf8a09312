"""Deployment for the local stack: reuse a deployment that matches the chain, or deploy and
mint the demo collection (every game's starter decks) to a few demo wallets."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from eth_account import Account

from ledger.deploy import Deployment, deploy_from_settings, seed_demo
from ledger.settings import ANVIL_CHAIN_ID, ANVIL_DEV_KEYS, Settings

#: Anvil dev accounts #5..#7 hold the demo collection (only ever on chain id 31337).
DEMO_KEYS: tuple[str, ...] = ANVIL_DEV_KEYS[5:8]


def demo_holdings() -> dict[str, list[tuple[int, int]]]:
    """Demo wallet address -> (token id, amount): wallet 1 owns starter deck 1 of every game,
    wallet 2 starter deck 2, wallet 3 both."""
    from engine import game_names, get_game
    from ledger.tokenids import token_id

    wallets = [Account.from_key(k).address for k in DEMO_KEYS]
    holdings: dict[str, list[tuple[int, int]]] = {w: [] for w in wallets}
    for name in game_names():
        game = get_game(name)
        first, second = (game.required_tokens(deck) for deck in game.starter_decks)
        for wallet, decks in zip(wallets, ([first], [second], [first, second]), strict=True):
            for deck in decks:
                holdings[wallet] += [(token_id(name, card), count) for card, count in deck.items()]
    return holdings


def stale_reason(
    deployment: Deployment, chain_id: int, code_at: Callable[[str], bytes]
) -> str | None:
    """Why a deployment does not match the chain, or None when it does."""
    from ledger.artifacts import load_artifact

    if deployment.chain_id != chain_id:
        return f"it is for chain id {deployment.chain_id}, the chain is {chain_id}"
    for name, address in deployment.addresses.items():
        if not code_at(address):
            return f"no {name} code at {address}"
    if deployment.source_hash and deployment.source_hash != load_artifact("CardToken").source_hash:
        return "the contracts changed since it was deployed"
    return None


def _set_aside(path: Path, say: Callable[[str], None]) -> None:
    if path.exists():
        backup = path.with_name(f"{path.name}.{time.strftime('%Y%m%d-%H%M%S')}.bak")
        path.rename(backup)
        say(f"database: the chain was redeployed, so the old local database moved to {backup}")


def ensure_deployment(
    settings: Settings, rpc_url: str, say: Callable[[str], None] = print
) -> Deployment:
    """Return the deployment for the chain at `rpc_url`, deploying (and seeding) when needed."""
    from web3 import Web3

    w3 = Web3(Web3.HTTPProvider(rpc_url, request_kwargs={"timeout": 30}))
    chain_id = w3.eth.chain_id
    settings.check_keys_for_chain(chain_id)
    path = settings.resolved_deployment_file
    if path.exists():
        deployment = Deployment.load(path)
        reason = stale_reason(
            deployment, chain_id, lambda a: bytes(w3.eth.get_code(Web3.to_checksum_address(a)))
        )
        if reason is None:
            say(f"contracts: reusing the deployment in {path}")
            return deployment
        say(f"contracts: {path} is stale ({reason}); redeploying")
        if settings.database_url is None:
            _set_aside(Path(settings.resolved_database_url.removeprefix("sqlite:///")), say)
    deployment = deploy_from_settings(w3, rpc_url)
    deployment.save(path)
    say(f"contracts: deployed at block {deployment.deployment_block}; written to {path}")
    if chain_id == ANVIL_CHAIN_ID:
        seed_demo(w3, deployment, settings.publisher_key.get_secret_value(), demo_holdings())
        say(f"contracts: minted the demo collection to {len(DEMO_KEYS)} demo wallets")
    return deployment


def describe_demo(data_dir: Path | None = None) -> list[str]:
    """Lines that tell a newcomer the demo wallets and how to play a bot match (with
    `--data-dir` when the stack's data directory is not `.metaledger` here)."""
    lines = ["demo wallets (Anvil dev keys, chain 31337 only):"]
    for i, key in enumerate(DEMO_KEYS, 1):
        lines.append(f"  wallet {i}  {Account.from_key(key).address}  key {key}")
    where = ""
    if data_dir is not None and data_dir != (Path.cwd() / ".metaledger").resolve():
        where = f" --data-dir {data_dir}"
    lines.append("play a bot match through the API (it finds the running stack by itself):")
    lines.append(
        f"  .venv/bin/metaledger play{where} --key {DEMO_KEYS[0]} --game metax --bot greedy"
    )
    return lines
