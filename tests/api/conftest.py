"""API test fixtures: the app on a fresh database (SQLite and PostgreSQL), the session
Anvil with the contracts deployed, and funded dev wallets."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import uvicorn
from pydantic import SecretStr

from api.app import create_app
from api.server import uvicorn_config
from ledger.chain.client import ChainClient
from ledger.chain.deployment import Deployment, load_addresses
from ledger.db import dispose_engine
from ledger.db.migrations import upgrade
from ledger.devstack.anvil import AnvilNode
from ledger.devstack.deploy import seed_demo
from ledger.devstack.ports import free_port
from ledger.protocol.tokenids import token_id
from ledger.settings import ANVIL_DEV_KEYS, Settings
from tests.api.helpers import Player, register_deck, sign_in

#: dev keys of the players (0-2 are publisher, signer, anchorer)
PLAYER_KEYS = ANVIL_DEV_KEYS[3:]


@pytest.fixture(scope="session")
def deployment_file(deployment: Deployment, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The session deployment as a file."""
    path = tmp_path_factory.mktemp("deploy") / "deployment.json"
    deployment.save(path)
    return path


def make_settings(
    anvil: AnvilNode, database_url: str, deployment_file: Path, **extra: object
) -> Settings:
    """Settings for an API under test."""
    return Settings(  # type: ignore[call-arg]
        _env_file=None,
        rpc_url=anvil.rpc_url,
        database_url=database_url,
        deployment_file=deployment_file,
        siwe_domain="testserver",
        chain_head_ttl_seconds=0.0,
        **extra,
    )


@pytest.fixture
def settings_overrides(request: pytest.FixtureRequest) -> dict[str, object]:
    """Extra settings for the app under test (parametrize indirectly to change them)."""
    return dict(getattr(request, "param", {}))


@pytest.fixture
def api_settings(
    anvil: AnvilNode,
    database_url: str,
    deployment_file: Path,
    settings_overrides: dict[str, object],
) -> Settings:
    """Settings for the app under test; the database is migrated to head."""
    upgrade(database_url)
    return make_settings(anvil, database_url, deployment_file, **settings_overrides)


class LiveServer:
    """The app served by uvicorn in a background thread on a free port."""

    def __init__(self, settings: Settings) -> None:
        self.chain = ChainClient(
            settings.rpc_url, load_addresses(settings.resolved_deployment_file), head_ttl=0.0
        )
        self.app = create_app(settings, chain=self.chain)
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        config = uvicorn_config(
            self.app, "127.0.0.1", self.port, settings, log_level="warning", lifespan="on"
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> LiveServer:
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the API did not start")
            time.sleep(0.01)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(10)
        self.chain.close()


@pytest.fixture
def live_api(api_settings: Settings, evm_snapshot: AnvilNode) -> Iterator[LiveServer]:
    """The app served over real HTTP, inside an EVM snapshot."""
    with LiveServer(api_settings) as server:
        yield server
    dispose_engine(api_settings.resolved_database_url)


@pytest.fixture
def healthy_api(
    anvil: AnvilNode, database_url: str, deployment_file: Path, broker_url: str
) -> Iterator[LiveServer]:
    """A live app whose every component is up (a broker and a worker heartbeat), so that
    /healthz answers 200 and any 5xx is the request's fault; inside an EVM snapshot."""
    from ledger.db import get_engine
    from ledger.health.heartbeat import HeartbeatThread

    upgrade(database_url)
    heartbeat = HeartbeatThread(get_engine(database_url), "celery@tests", 5.0)
    heartbeat.beat()
    heartbeat.start()
    snapshot = anvil.snapshot()
    settings = make_settings(anvil, database_url, deployment_file, broker_url=broker_url)
    try:
        with LiveServer(settings) as server:
            yield server
    finally:
        heartbeat.stop()
        anvil.revert(snapshot)
        dispose_engine(database_url)


@pytest.fixture
def healthy_client(healthy_api: LiveServer) -> Iterator[httpx.Client]:
    """An HTTP client for the healthy live app."""
    with httpx.Client(base_url=healthy_api.url, timeout=60, headers={"Host": "testserver"}) as c:
        yield c


@pytest.fixture
def client(live_api: LiveServer) -> Iterator[httpx.Client]:
    """An HTTP client for the live app."""
    with httpx.Client(base_url=live_api.url, timeout=60, headers={"Host": "testserver"}) as c:
        yield c


def mint(
    anvil: AnvilNode, deployment: Deployment, holdings: dict[str, dict[tuple[str, str], int]]
) -> None:
    """Mint cards: {address: {(game, card_id): copies}}."""
    seed_demo(
        anvil.w3,
        deployment,
        ANVIL_DEV_KEYS[0],
        {
            addr: [(token_id(g, c), n) for (g, c), n in cards.items()]
            for addr, cards in holdings.items()
        },
    )


def mint_decks(
    anvil: AnvilNode, deployment: Deployment, game_name: str, decks: dict[str, dict[str, int]]
) -> None:
    """Mint every address the cards its deck of `game_name` needs: {address: deck}."""
    from engine import get_game

    game = get_game(game_name)
    mint(
        anvil,
        deployment,
        {
            address: {(game_name, c): n for c, n in game.required_tokens(deck).items()}
            for address, deck in decks.items()
        },
    )


def own_starter_deck(
    anvil: AnvilNode, deployment: Deployment, player: Player, game_name: str, which: int = 0
) -> dict[str, object]:
    """Mint `game_name`'s starter deck `which` to the player and register it; the commitment."""
    from engine import get_game

    deck = dict(get_game(game_name).starter_decks[which])
    mint_decks(anvil, deployment, game_name, {player.address: deck})
    return register_deck(player, game_name, deck)


@pytest.fixture
def players(client: httpx.Client) -> list[Player]:
    """Two signed-in players (no cards yet)."""
    return [sign_in(client, PLAYER_KEYS[0]), sign_in(client, PLAYER_KEYS[1])]


def secret_str(value: str) -> SecretStr:
    return SecretStr(value)


def transfer(
    anvil: AnvilNode, deployment: Deployment, key: str, to: str, token: int, amount: int
) -> None:
    """ERC-1155 safeTransferFrom signed by `key` (mined at once on Anvil)."""
    from eth_account import Account

    from ledger.devstack.deploy import contract

    sender = Account.from_key(key)
    token_contract = contract(anvil.w3, deployment, "CardToken")
    data = token_contract.encode_abi("safeTransferFrom", [sender.address, to, token, amount, b""])
    w3 = anvil.w3
    tx = {
        "to": deployment.card_token,
        "data": data,
        "from": sender.address,
        "chainId": w3.eth.chain_id,
        "nonce": w3.eth.get_transaction_count(sender.address, "pending"),
        "gas": 200_000,
        "maxFeePerGas": 10**10,
        "maxPriorityFeePerGas": 10**9,
    }
    signed = sender.sign_transaction(tx)
    receipt = w3.eth.wait_for_transaction_receipt(
        w3.eth.send_raw_transaction(signed.raw_transaction)
    )
    assert receipt["status"] == 1


def start_duel(
    client: httpx.Client, anvil: AnvilNode, deployment: Deployment, game_name: str
) -> tuple[Player, Player, str, list[dict[str, int]]]:
    """Two wallets (PLAYER_KEYS[0] and [1]) own the game's two starter decks, register them,
    and start a match against each other (both seats authorized); returns (seat 0, seat 1,
    match id, the decks)."""
    from tests.api.helpers import commit_and_reveal

    a, b, match_id, decks = seat_duel(client, anvil, deployment, game_name)
    commit_and_reveal([a, b], match_id)
    return a, b, match_id, decks


def seat_duel(
    client: httpx.Client, anvil: AnvilNode, deployment: Deployment, game_name: str
) -> tuple[Player, Player, str, list[dict[str, int]]]:
    """start_duel up to both seats taken (nobody has committed yet)."""
    from engine import get_game
    from tests.api.helpers import register_deck, sign_in

    game = get_game(game_name)
    a, b = sign_in(client, PLAYER_KEYS[0]), sign_in(client, PLAYER_KEYS[1])
    decks = [dict(game.starter_decks[0]), dict(game.starter_decks[1])]
    mint_decks(anvil, deployment, game.name, {a.address: decks[0], b.address: decks[1]})
    d0, d1 = register_deck(a, game.name, decks[0]), register_deck(b, game.name, decks[1])
    match = a.post("/matches", {"game": game.name, "deck_id": d0["id"]}).json()
    assert b.post(f"/matches/{match['id']}/join", {"deck_id": d1["id"]}).status_code == 200
    return a, b, match["id"], decks
