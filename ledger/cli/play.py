"""`metaledger play ...`: sign in with a dev key wallet and play a bot match through the API:
one wallet signature (the seat authorization of a fresh session key), every move signed by the
session key, every receipt checked, the end acknowledged."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import typer

from ledger.cli.options import DataDir, use_data_dir
from ledger.client.api import ApiPlayer
from ledger.errors import ConfigurationError


def play(
    api: str = typer.Option(
        None, help="the API's base URL (default: the running local stack's, from its data dir)"
    ),
    key: str = typer.Option(
        None, help="an Anvil dev key, chain 31337 only (see `metaledger run`); else --keystore"
    ),
    keystore: Path = typer.Option(None, help="an encrypted keystore JSON file of the wallet"),
    password_file: Path = typer.Option(None, help="a file holding the keystore's password"),
    game: str = typer.Option("metax", help="metax, metamasters or metaversus"),
    bot: str = typer.Option("greedy", help="the operator's bot: random or greedy"),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="print every action"),
    data_dir: DataDir = None,
) -> None:
    """Sign in with a wallet, register a starter deck it owns, and play a bot match through the API."""
    from ledger.client.wallet import (
        DEV_KEY_WARNING,
        dev_key_argument,
        require_dev_chain,
        wallet_key,
    )
    from ledger.protocol import eip712
    from ledger.settings import get_settings

    use_data_dir(data_dir)
    from_argument = key is not None
    if key is not None:
        key = dev_key_argument(key)
        typer.echo(DEV_KEY_WARNING, err=True)
    else:
        key = wallet_key(get_settings(), keystore, password_file)
    if api is None:
        from ledger.devstack.stackinfo import find_stack

        api = find_stack(get_settings()).api_url
    with httpx.Client(base_url=api, timeout=60) as http:
        player = ApiPlayer(http, key)
        if from_argument:
            require_dev_chain(int(player.call("POST", "/auth/nonce")["chain_id"]))
        typer.echo(f"signed in as {player.sign_in()}")
        deck = player.pick_deck(game)
        match = player.start_bot_match(game, deck, bot)
        typer.echo(
            f"match {match['id']} ({game} vs the {bot} bot) started; ownership pinned at block {match['ownership_block']}"
        )
        session = player.sessions[match["id"]]
        typer.echo(
            f"session key {session.address} authorized by the wallet for seat {session.seat} "
            f"until {session.expiry}"
        )

        def show(choice: dict[str, Any], out: dict[str, Any]) -> None:
            if verbose:
                typer.echo(f"  you: {choice['label'] or choice['action']}")
                for a in out["applied"][1:]:
                    typer.echo(f"  bot: {a['label'] or a['action']}")

        final, sent = player.play_to_end(match["id"], on_action=show)
        if final["status"] != "finished":
            raise ConfigurationError(f"the match did not finish (status {final['status']})")
        seat = final["your_seat"]
        outcome = (
            "draw"
            if final["winner_seat"] is None
            else ("you won" if final["winner_seat"] == seat else "the bot won")
        )
        typer.echo(
            f"match over after {final['version']} actions ({sent} yours): {outcome} ({final['end_reason']})"
        )
        typer.echo(
            f"{sent} moves signed by the session key; {session.receipts} receipts checked "
            f"(signed by {player.operator}); end acknowledged ({final['entries']} entries, "
            f"final entry hash {final['head_hash']})"
        )
        result = player.call("GET", f"/matches/{match['id']}/result")
        struct = eip712.MatchResult.from_message(result["typed_data"]["message"])
        signer = eip712.recover_result_signer(
            struct, result["signature"], result["chain_id"], result["verifying_contract"]
        )
        typer.echo(f"signed result: digest {result['digest']}")
        typer.echo(f"  signature {result['signature']}")
        typer.echo(f"  recovers to {signer} (reported signer {result['signer']})")
