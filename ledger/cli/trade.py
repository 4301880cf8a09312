"""`metaledger trade list|offer|fill|cancel|history`: the offer book from the command line.

The wallet's key comes from a keystore file or METALEDGER_WALLET_KEY (`ledger.client.wallet`),
never from an argument. The CLI signs offers and withdrawals itself and sends the transactions
the API hands out (fill, cancel, approval) from the wallet; a transaction that would revert is
refused before it is sent, with the contract's error by name.
"""

from __future__ import annotations

import functools
import inspect
import time
import typing
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import typer

from ledger.cli.options import DataDir, command_group, use_data_dir
from ledger.client.api import ApiPlayer
from ledger.errors import ConfigurationError

app = command_group(no_args_is_help=True)

Api = typer.Option(None, help="the API's base URL (default: the running local stack's)")
Rpc = typer.Option(None, help="the chain's RPC URL (default: the running local stack's)")
Keystore = typer.Option(None, help="an encrypted keystore JSON file of the wallet")
PasswordFile = typer.Option(None, help="a file holding the keystore's password")


@dataclass
class Session:
    """The API, the chain and (when needed) the wallet of one command."""

    api: ApiPlayer
    rpc_url: str
    key: str = ""

    @property
    def address(self) -> str:
        """The wallet's address."""
        from eth_account import Account

        return str(Account.from_key(self.key).address)

    def send(self, tx: dict[str, Any], what: str) -> str:
        """Send a transaction the API handed out from the wallet; its hash."""
        from ledger.chain.transport import JsonRpc
        from ledger.client.transactions import WalletSender

        with JsonRpc(self.rpc_url, timeout=30) as rpc:
            sent = WalletSender(rpc, self.key).send(
                tx["to"], tx["data"], int(tx.get("value", "0")), what=what
            )
        typer.echo(f"{what}: transaction {sent.tx_hash} in block {sent.block_number}")
        return sent.tx_hash


@contextmanager
def session(
    api: str | None,
    rpc: str | None,
    data_dir: Path | None,
    *,
    keystore: Path | None = None,
    password_file: Path | None = None,
    wallet: bool = False,
) -> Iterator[Session]:
    """The command's API client, RPC URL and wallet key."""
    from ledger.settings import get_settings

    use_data_dir(data_dir)
    settings = get_settings()
    if api is None or rpc is None:
        from ledger.devstack.stackinfo import find_stack

        try:
            stack = find_stack(settings)
            api, rpc = api or stack.api_url, rpc or stack.rpc_url
        except ConfigurationError:
            if api is None:
                raise
            rpc = rpc or settings.rpc_url
    key = ""
    if wallet:
        from ledger.client.wallet import wallet_key

        key = wallet_key(settings, keystore, password_file)
    with httpx.Client(base_url=api, timeout=60) as http:
        yield Session(ApiPlayer(http, key), rpc, key)


#: opens the command's session with the wallet
OpenWallet = Callable[[], AbstractContextManager[Session]]

_WALLET_OPTIONS = [
    inspect.Parameter(
        name, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=default, annotation=kind
    )
    for name, kind, default in (
        ("api", str, Api),
        ("rpc", str, Rpc),
        ("keystore", Path, Keystore),
        ("password_file", Path, PasswordFile),
        ("data_dir", DataDir, None),
    )
]


def wallet_command(name: str) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """Register `run` as the command `name` that acts from the wallet: `run` takes an OpenWallet
    first, then its own options; the command adds the --api, --rpc, --keystore, --password-file
    and --data-dir options after those."""

    def register(run: Callable[..., None]) -> Callable[..., None]:
        hints = typing.get_type_hints(run, include_extras=True)
        own = list(inspect.signature(run).parameters.values())[1:]
        options = [p.replace(annotation=hints[p.name]) for p in own] + _WALLET_OPTIONS

        def command(**values: Any) -> None:
            api, rpc, keystore, password_file, data_dir = (
                values.pop(p.name) for p in _WALLET_OPTIONS
            )
            wallet = functools.partial(
                session,
                api,
                rpc,
                data_dir,
                keystore=keystore,
                password_file=password_file,
                wallet=True,
            )
            run(wallet, **values)

        command.__name__, command.__doc__ = run.__name__, run.__doc__
        command.__annotations__ = {p.name: p.annotation for p in options}
        command.__signature__ = inspect.Signature(options)  # type: ignore[attr-defined]  # what typer reads
        app.command(name)(command)
        return run

    return register


def parse_cards(specs: list[str], option: str) -> list[tuple[int, int]]:
    """`GAME:CARD[=N]` (or a token id) -> (token id, amount) pairs."""
    from ledger.protocol.tokenids import token_id

    cards = []
    for spec in specs:
        name, _, count = spec.partition("=")
        try:
            amount = int(count) if count else 1
        except ValueError:
            raise ConfigurationError(
                f"{option} {spec!r}: the amount after = must be a number"
            ) from None
        if ":" in name:
            game, card = name.split(":", 1)
            cards.append((token_id(game, card), amount))
        elif name.startswith("0x") or name.isdigit():
            cards.append((int(name, 0), amount))
        else:
            raise ConfigurationError(
                f"{option} {spec!r}: write GAME:CARD_ID[=N], e.g. metax:JL-001=2"
            )
    return cards


def _cards(cards: list[dict[str, Any]]) -> str:
    return ", ".join(f"{c['amount']}x {c['name'] or c['token_id']}" for c in cards) or "nothing"


def _line(offer: dict[str, Any]) -> str:
    wei = int(offer["asked_wei"])
    asks = _cards(offer["asked"]) if offer["asked"] else ""
    if wei:
        asks = f"{asks} + {wei} wei" if asks else f"{wei} wei"
    to = f" to {offer['taker']}" if offer["taker"] else ""
    reason = (
        f" ({offer['status_reason']})"
        if offer["status_reason"] and offer["status"] != "filled"
        else ""
    )
    return (
        f"{offer['offer_hash']}  {offer['status']}{reason}  {offer['maker']} gives "
        f"{_cards(offer['given'])} for {asks}{to}"
    )


@app.command("list")
def list_offers(
    game: str = typer.Option(None, help="only offers with cards of this game"),
    card: str = typer.Option(None, help="GAME:CARD_ID or a token id"),
    side: str = typer.Option(None, help="with --card: selling or asking"),
    maker: str = typer.Option(None, help="only this maker's offers"),
    status: str = typer.Option(
        "open", help="open, filled, cancelled, withdrawn, expired, unfillable, any"
    ),
    sort: str = typer.Option("newest", help="newest, oldest, price_asc, price_desc"),
    limit: int = typer.Option(20, help="how many offers"),
    api: str = Api,
    data_dir: DataDir = None,
) -> None:
    """List offers of the book."""
    params: dict[str, Any] = {"status": status, "sort": sort, "limit": limit}
    if card:
        params["card"] = str(parse_cards([card], "--card")[0][0])
    for name, value in (("game", game), ("side", side), ("maker", maker)):
        if value:
            params[name] = value
    with session(api, "", data_dir) as s:
        page = s.api.call("GET", "/offers?" + str(httpx.QueryParams(params)))
    for offer in page["offers"]:
        typer.echo(_line(offer))
    if not page["offers"]:
        typer.echo("no offers")


@wallet_command("offer")
def offer(
    wallet: OpenWallet,
    give: list[str] = typer.Option(..., help="a card you give: GAME:CARD_ID[=N] (repeat)"),
    ask: list[str] = typer.Option([], help="a card you ask for: GAME:CARD_ID[=N] (repeat)"),
    ask_wei: int = typer.Option(0, help="wei you ask for"),
    taker: str = typer.Option(None, help="only this address may fill it (default: anyone)"),
    expires_in: int = typer.Option(86_400, help="seconds until the offer expires"),
    approve: bool = typer.Option(
        False, help="if needed, first send setApprovalForAll(exchange, true) from the wallet"
    ),
) -> None:
    """Sign an offer with the wallet and put it on the book."""
    from ledger.chain.exchange import ExchangeReads
    from ledger.chain.transport import JsonRpc
    from ledger.protocol import eip712
    from ledger.protocol.hexcodec import to_hex

    given, asked = parse_cards(give, "--give"), parse_cards(ask, "--ask")
    with wallet() as s:
        info = s.api.call("GET", "/exchange")
        with JsonRpc(s.rpc_url, timeout=30) as chain:
            reads = ExchangeReads(chain, info["exchange"], info["card_token"])
            approved, now = reads.is_approved(s.address), reads.head_timestamp()
        if not approved:
            if not approve:
                raise ConfigurationError(
                    f"{s.address} has not approved the exchange {info['exchange']}; run again with "
                    "--approve to send setApprovalForAll(exchange, true), which lets the exchange "
                    "move any of your cards, but only as offers you signed say (docs/trading.md)"
                )
            s.send(info["approval_transaction"], "approval of the exchange")
        nonce = int(s.api.call("GET", f"/wallets/{s.address}/offer-nonce")["next_nonce"])
        signed = eip712.Offer(
            maker=s.address,
            taker=taker or eip712.ZERO_ADDRESS,
            given_ids=tuple(i for i, _ in given),
            given_amounts=tuple(n for _, n in given),
            asked_ids=tuple(i for i, _ in asked),
            asked_amounts=tuple(n for _, n in asked),
            asked_wei=ask_wei,
            expiry=max(now, int(time.time())) + expires_in,
            nonce=nonce,
        )
        typed = eip712.offer_typed_data(signed, info["chain_id"], info["exchange"])
        signature = to_hex(eip712.sign_offer(s.key, signed, info["chain_id"], info["exchange"]))
        created = s.api.call(
            "POST",
            "/offers",
            {"domain": typed["domain"], "offer": typed["message"], "signature": signature},
        )
    typer.echo(f"offer {created['offer_hash']} is on the book (nonce {created['nonce']})")
    typer.echo(_line(created))


@wallet_command("fill")
def fill(
    wallet: OpenWallet,
    offer_hash: str = typer.Argument(..., help="the offer's hash"),
    approve: bool = typer.Option(
        False, help="if needed, first send setApprovalForAll(exchange, true) from the wallet"
    ),
) -> None:
    """Fill an offer from the wallet: you get its given cards, the maker gets what it asks."""
    with wallet() as s:
        plan = s.api.call("GET", f"/offers/{offer_hash}/fill?taker={s.address}")
        typer.echo(
            f"you give {_cards(plan['taker_gives']['cards'])} + {plan['taker_gives']['wei']} wei; "
            f"you get {_cards(plan['taker_gets']['cards'])}"
        )
        error = plan["simulation"]["error"]
        if error is not None and not (
            plan["approval"]["needed"] and error["name"] == "ERC1155MissingApprovalForAll"
        ):
            from ledger.chain.artifacts import Revert
            from ledger.client.transactions import TransactionRefused

            raise TransactionRefused("the fill", Revert(error["name"], error["args"]))
        if plan["approval"]["needed"]:
            if not approve:
                raise ConfigurationError(
                    "the exchange needs your approval to move the cards you give; run again with "
                    "--approve (setApprovalForAll(exchange, true); docs/trading.md)"
                )
            s.send(plan["approval"]["transaction"], "approval of the exchange")
        s.send(plan["transaction"], "fill")


@wallet_command("cancel")
def cancel(
    wallet: OpenWallet,
    offer_hash: str = typer.Argument(..., help="the offer's hash"),
    on_chain: bool = typer.Option(
        False,
        help="also cancel its nonce on-chain, so that nobody holding the signed offer can fill it",
    ),
) -> None:
    """Withdraw your offer from the book (a signature); with --on-chain also cancel its nonce."""
    from ledger.protocol import eip712
    from ledger.protocol.hexcodec import to_hex

    with wallet() as s:
        info = s.api.call("GET", "/exchange")
        current = s.api.call("GET", f"/offers/{offer_hash}")
        if current["status"] != "withdrawn":
            withdrawal = eip712.OfferWithdrawal(current["offer_hash"])
            signature = to_hex(eip712.sign(s.key, withdrawal, info["chain_id"], info["exchange"]))
            done = s.api.call("DELETE", f"/offers/{offer_hash}", {"signature": signature})
            typer.echo(f"offer {offer_hash} withdrawn from the book")
            tx = done["cancel_transaction"]
        else:
            tx = s.api.call("GET", f"/offers/{offer_hash}/cancel")["transaction"]
        if on_chain:
            s.send(tx, "on-chain cancel")
        else:
            typer.echo("the signed offer stays valid on-chain until you cancel it: --on-chain")


@app.command("history")
def history(
    address: str = typer.Argument(None, help="the wallet (default: yours)"),
    limit: int = typer.Option(20, help="how many trades"),
    api: str = Api,
    keystore: Path = Keystore,
    password_file: Path = PasswordFile,
    data_dir: DataDir = None,
) -> None:
    """A wallet's trades (fills as maker or taker), newest first."""
    with session(
        api, "", data_dir, keystore=keystore, password_file=password_file, wallet=address is None
    ) as s:
        who = address or s.address
        page = s.api.call("GET", f"/wallets/{who}/trades?limit={limit}")
    for t in page["trades"]:
        role = "maker" if t["maker"] == page["address"] else "taker"
        gave = t["maker_gave"] if role == "maker" else t["taker_gave"]
        got = t["taker_gave"] if role == "maker" else t["maker_gave"]
        wei = f" ({t['wei']} wei from the taker)" if t["wei"] and t["wei"] != "0" else ""
        typer.echo(
            f"block {t['block_number']} tx {t['tx_hash']}: as {role} gave "
            f"{_cards(gave or [])}, got {_cards(got or [])}{wei}"
        )
    if not page["trades"]:
        typer.echo("no trades")
