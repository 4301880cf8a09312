"""The demo collection of the local stack: every game's starter decks, held by a few Anvil dev
wallets, and the lines that tell a newcomer how to play with them."""

from __future__ import annotations

from pathlib import Path

from eth_account import Account

from ledger.settings import ANVIL_DEV_KEYS

#: Anvil dev accounts #5..#7 hold the demo collection (only ever on chain id 31337).
DEMO_KEYS: tuple[str, ...] = ANVIL_DEV_KEYS[5:8]


def demo_holdings() -> dict[str, list[tuple[int, int]]]:
    """Demo wallet address -> (token id, amount): wallet 1 owns starter deck 1 of every game,
    wallet 2 starter deck 2, wallet 3 both."""
    from engine import game_names, get_game
    from ledger.protocol.tokenids import token_id

    wallets = [Account.from_key(k).address for k in DEMO_KEYS]
    holdings: dict[str, list[tuple[int, int]]] = {w: [] for w in wallets}
    for name in game_names():
        game = get_game(name)
        first, second = (game.required_tokens(deck) for deck in game.starter_decks)
        for wallet, decks in zip(wallets, ([first], [second], [first, second]), strict=True):
            for deck in decks:
                holdings[wallet] += [(token_id(name, card), count) for card, count in deck.items()]
    return holdings


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
