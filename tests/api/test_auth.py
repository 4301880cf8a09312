"""Sign-in with Ethereum over HTTP: the happy path and every rejection."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import httpx
import pytest
from eth_account import Account
from eth_account.messages import encode_defunct

from ledger.devstack.anvil import AnvilNode
from ledger.protocol import siwe
from tests.api.conftest import PLAYER_KEYS
from tests.api.helpers import sign_in, signed_message

pytestmark = pytest.mark.chain

#: EIP-1271 wallets as raw runtime code: one accepts every signature, one none
ALWAYS_VALID_1271 = "0x631626ba7e60e01b60005260206000f3"
NEVER_VALID_1271 = "0x60206000f3"


def _verify(client: httpx.Client, message: str, signature: str) -> httpx.Response:
    return client.post("/auth/verify", json={"message": message, "signature": signature})


def _problem(response: httpx.Response, status: int, reason: str | None = None) -> dict:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    body = response.json()
    assert body["status"] == status and body["type"].startswith("https://")
    if reason is not None:
        assert body["reason"] == reason, body
    return dict(body)


def test_sign_in_opens_a_session(client: httpx.Client) -> None:
    player = sign_in(client, PLAYER_KEYS[0])
    me = player.get("/auth/me")
    assert me.status_code == 200 and me.json()["address"] == player.address
    assert player.post("/auth/logout").status_code == 204
    _problem(player.get("/auth/me"), 401, "unknown-session")


def test_forged_signature_is_refused(client: httpx.Client) -> None:
    message, _ = signed_message(client, PLAYER_KEYS[0])
    forged = Account.sign_message(
        encode_defunct(text=message), PLAYER_KEYS[1]
    ).signature.to_0x_hex()
    _problem(_verify(client, message, forged), 401, "bad-signature")


def test_altered_message_is_refused(client: httpx.Client) -> None:
    message, signature = signed_message(client, PLAYER_KEYS[0])
    _problem(
        _verify(client, message.replace("Sign in to MetaLedger.", "Sign in to Evil."), signature),
        401,
        "bad-signature",
    )


def test_replayed_sign_in_is_refused(client: httpx.Client) -> None:
    message, signature = signed_message(client, PLAYER_KEYS[0])
    assert _verify(client, message, signature).status_code == 200
    _problem(_verify(client, message, signature), 401, "replayed-nonce")


def test_expired_sign_in_is_refused(client: httpx.Client) -> None:
    past = datetime.now(UTC) - timedelta(hours=1)
    message, signature = signed_message(
        client, PLAYER_KEYS[0], issued_at=past, ttl=timedelta(minutes=5)
    )
    _problem(_verify(client, message, signature), 401, "expired")


def test_wrong_chain_id_is_refused(client: httpx.Client) -> None:
    message, signature = signed_message(client, PLAYER_KEYS[0], chain_id=1)
    _problem(_verify(client, message, signature), 401, "wrong-chain")


def test_wrong_domain_is_refused(client: httpx.Client) -> None:
    message, signature = signed_message(client, PLAYER_KEYS[0], domain="evil.example")
    _problem(_verify(client, message, signature), 401, "wrong-domain")


def test_unknown_nonce_is_refused(client: httpx.Client) -> None:
    message, signature = signed_message(client, PLAYER_KEYS[0], nonce="abcdef0123456789")
    _problem(_verify(client, message, signature), 401, "unknown-nonce")


def test_malformed_message_is_refused(client: httpx.Client) -> None:
    _problem(_verify(client, "hello", "0x" + "00" * 65), 401, "malformed")


def test_requests_without_a_session_are_refused(client: httpx.Client) -> None:
    _problem(client.post("/decks", json={"game": "metax", "cards": {"x": 1}}), 401)
    _problem(
        client.get("/auth/me", headers={"Authorization": "Bearer nope"}), 401, "unknown-session"
    )


def test_eip1271_contract_wallets(client: httpx.Client, anvil: AnvilNode) -> None:
    good, bad = "0x" + "12" * 20, "0x" + "34" * 20
    anvil.rpc("anvil_setCode", good, ALWAYS_VALID_1271)
    anvil.rpc("anvil_setCode", bad, NEVER_VALID_1271)
    for wallet, expected in ((good, 200), (bad, 401)):
        grant = client.post("/auth/nonce").json()
        message = siwe.build_message(
            domain=grant["domain"], address=wallet, chain_id=grant["chain_id"], nonce=grant["nonce"]
        ).text()
        response = _verify(client, message, "0x" + "ab" * 65)
        assert response.status_code == expected, response.text
        if expected == 200:
            assert response.json()["contract_wallet"] is True


# -- EIP-4361 as the EIP and its reference implementation say (issue 11) --------------------


def _sign_text(message: str, key: str) -> bytes:
    return bytes(Account.sign_message(encode_defunct(text=message), key).signature)


def _grant_message(client: httpx.Client, **overrides: object) -> str:
    grant = client.post("/auth/nonce").json()
    fields: dict[str, object] = {
        "domain": grant["domain"],
        "address": Account.from_key(PLAYER_KEYS[0]).address,
        "chain_id": grant["chain_id"],
        "nonce": grant["nonce"],
        "uri": grant["uri"],
    }
    fields.update(overrides)
    return siwe.build_message(**fields).text()  # type: ignore[arg-type]


def test_a_message_without_expiration_time_signs_in(client: httpx.Client) -> None:
    message = _grant_message(client, ttl=None)
    assert "Expiration Time" not in message
    response = _verify(client, message, "0x" + _sign_text(message, PLAYER_KEYS[0]).hex())
    assert response.status_code == 200, response.text


def test_optional_fields_of_the_eip_are_accepted(client: httpx.Client) -> None:
    message = _grant_message(client)
    message += (
        "\nNot Before: 2020-01-01T00:00:00.000Z\nRequest ID: req-1\nResources:\n- ipfs://bafy/x"
    )
    response = _verify(client, message, "0x" + _sign_text(message, PLAYER_KEYS[0]).hex())
    assert response.status_code == 200, response.text


def test_a_uri_of_another_origin_is_refused(client: httpx.Client) -> None:
    message = _grant_message(client, uri="https://evil.example/login")
    _problem(
        _verify(client, message, "0x" + _sign_text(message, PLAYER_KEYS[0]).hex()),
        401,
        "wrong-uri",
    )


def test_a_right_to_left_override_in_a_resource_is_refused(client: httpx.Client) -> None:
    message = _grant_message(client) + "\nResources:\n- https://example.com/\u202egpj.exe"
    _problem(
        _verify(client, message, "0x" + _sign_text(message, PLAYER_KEYS[0]).hex()),
        401,
        "malformed",
    )


def test_the_high_s_twin_is_refused_and_the_compact_form_accepted(client: httpx.Client) -> None:
    message = _grant_message(client)
    signature = _sign_text(message, PLAYER_KEYS[0])
    r, s, v = signature[:32], int.from_bytes(signature[32:64], "big"), signature[64]
    high_s = r + (siwe.SECP256K1_N - s).to_bytes(32, "big") + bytes([55 - v])
    _problem(_verify(client, message, "0x" + high_s.hex()), 401, "bad-signature")
    compact = r + (((v - 27) << 255) | s).to_bytes(32, "big")
    response = _verify(client, message, "0x" + compact.hex())
    assert response.status_code == 200, response.text
