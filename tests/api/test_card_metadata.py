"""Card metadata as a wallet finds it: `uri(id)` read from CardToken for every card of every
game, `{id}` substituted, fetched over HTTP: a name, a description and a card face."""

from __future__ import annotations

from xml.etree import ElementTree

import httpx
import pytest

from engine import game_names, get_game
from ledger.chain.deployment import Deployment
from ledger.devstack.anvil import AnvilNode
from ledger.devstack.deploy import contract, ensure_token_uri
from ledger.protocol.tokenids import metadata_uri_template, token_id
from ledger.settings import ANVIL_DEV_KEYS, Settings
from tests.api.conftest import LiveServer

pytestmark = pytest.mark.chain


def test_every_card_of_every_game_has_a_name_and_a_face(
    live_api: LiveServer,
    api_settings: Settings,
    client: httpx.Client,
    anvil: AnvilNode,
    deployment: Deployment,
) -> None:
    # as under `make run`: the API's public URL is where it answers (a free port here), and
    # uri() is pointed at it (the stack's point_metadata step)
    api_settings.public_base_url = live_api.url
    ensure_token_uri(anvil.w3, deployment, ANVIL_DEV_KEYS[0], metadata_uri_template(live_api.url))
    token = contract(anvil.w3, deployment, "CardToken")
    checked = 0
    with httpx.Client(timeout=30) as wallet:  # a wallet follows URLs; no Host header games
        for game in game_names():
            for card in get_game(game).cards:
                value = token_id(game, str(card["id"]))
                template = token.functions.uri(value).call()
                url = template.replace("{id}", format(value, "064x"))
                meta = wallet.get(url)
                assert meta.status_code == 200, (url, meta.text)
                data = meta.json()
                assert data["name"] == card["name"] and data["description"]
                assert data["properties"]["game"] == game
                assert data["properties"]["kind"] == card.get("kind", "")
                image = wallet.get(data["image"])
                assert image.status_code == 200
                assert image.headers["content-type"].startswith("image/svg+xml")
                assert "default-src 'none'" in image.headers["content-security-policy"]
                root = ElementTree.fromstring(image.text)  # well-formed XML, text escaped
                assert root.tag.endswith("svg")
                assert card["name"][:30] in "".join(root.itertext())
                checked += 1
    assert checked == sum(len(get_game(g).cards) for g in game_names())


def test_collection_and_catalogue_link_their_cards(
    client: httpx.Client, live_api: LiveServer
) -> None:
    cards = client.get("/games/metax/cards").json()
    assert all(c["metadata_url"].endswith(f"/cards/{c['token_id'][2:]}.json") for c in cards)
    face = client.get(cards[0]["image_url"].split("127.0.0.1:8000")[-1])
    assert face.status_code == 200


def test_metadata_refusals(client: httpx.Client) -> None:
    assert client.get("/cards/" + "0" * 64 + ".json").status_code == 404
    bad = client.get("/cards/xyz.json")
    assert bad.status_code == 422
    # a mixed-case address with a bad checksum is a 422 naming the field
    reply = client.get("/wallets/0xF39Fd6e51aad88F6F4ce6aB8827279cffFb92266/cards")
    assert reply.status_code == 422 and reply.json()["field"] == "address"
    ok = client.get("/wallets/0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266/cards")
    assert (
        ok.status_code == 200
        and ok.json()["address"] == "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"
    )
