"""A contract wallet's seat, end to end on a real Anvil: the API accepts its opaque EIP-1271
seat authorization, and `verify` asks the wallet at the anchoring block (code changed after
anchoring does not change the verdict; a wallet that says no at that block fails
`seat-authorizations`)."""

from __future__ import annotations

import secrets
from typing import Any

import httpx
import pytest

from ledger.audit.verify import verify_bundle
from ledger.chain.contracts import eip1271_accepts
from ledger.chain.deployment import Deployment
from ledger.chain.transport import JsonRpc
from ledger.devstack.anvil import AnvilNode
from ledger.protocol.hexcodec import from_hex
from tests.api.conftest import seat_duel
from tests.api.helpers import acknowledge, commit_body, play_out
from tests.api.test_auth import ALWAYS_VALID_1271, NEVER_VALID_1271
from tests.ledger.anchor_support import anchor_pending

pytestmark = pytest.mark.chain

#: an EIP-1271 signature as a contract wallet may send it: opaque bytes, not a 65-byte ECDSA one
OPAQUE_SIGNATURE = "0x" + "c0de" * 50


def _contract_wallet_bundle(
    client: httpx.Client,
    url: str,
    anvil: AnvilNode,
    deployment: Deployment,
    code_at_anchoring: str,
    code_after: str,
) -> dict[str, Any]:
    """A MetaX match whose seat 0 is a contract wallet (ALWAYS_VALID_1271 code when it commits
    with OPAQUE_SIGNATURE) against an EOA, played out, acknowledged, and anchored while seat 0
    runs `code_at_anchoring`; then seat 0's code becomes `code_after`. Its bundle."""
    a, b, match_id, _decks = seat_duel(client, anvil, deployment, "metax")

    anvil.rpc("anvil_setCode", a.address, ALWAYS_VALID_1271)
    for p in (a, b):
        p.secrets[match_id] = secrets.token_bytes(32)
    body = commit_body(a, match_id, a.secrets[match_id])
    body["authorization"] = OPAQUE_SIGNATURE
    r = a.post(f"/matches/{match_id}/commit", body)
    assert r.status_code == 200, r.text
    r = b.post(f"/matches/{match_id}/commit", commit_body(b, match_id, b.secrets[match_id]))
    assert r.status_code == 200, r.text
    for p in (a, b):
        r = p.post(f"/matches/{match_id}/reveal", {"secret": "0x" + p.secrets[match_id].hex()})
        assert r.status_code == 200, r.text

    assert play_out({0: a, 1: b}, match_id)["status"] == "finished"
    acknowledge(a, match_id)
    acknowledge(b, match_id)
    anvil.rpc("anvil_setCode", a.address, code_at_anchoring)
    anchor_pending(url, anvil.rpc_url, deployment.match_ledger)
    # anvil_setCode rewrites the newest block's state: mine past the anchoring block first
    anvil.rpc("evm_mine")
    anvil.rpc("anvil_setCode", a.address, code_after)
    r = client.get(f"/matches/{match_id}/bundle")
    assert r.status_code == 200, r.text
    bundle = dict(r.json())
    assert bundle["transcript"]["seats"][0]["signature"] == OPAQUE_SIGNATURE
    assert bundle["transcript"]["seats"][0]["player"].lower() == a.address.lower()
    return bundle


@pytest.mark.parametrize(
    ("code_at_anchoring", "code_after", "valid"),
    [
        (ALWAYS_VALID_1271, NEVER_VALID_1271, True),
        (NEVER_VALID_1271, ALWAYS_VALID_1271, False),
    ],
    ids=["accepts-at-anchoring-refuses-after", "refuses-at-anchoring-accepts-after"],
)
def test_verify_asks_a_contract_wallet_at_the_anchoring_block(
    api: tuple[httpx.Client, str],
    evm_snapshot: AnvilNode,
    deployment: Deployment,
    code_at_anchoring: str,
    code_after: str,
    valid: bool,
) -> None:
    client, url = api
    bundle = _contract_wallet_bundle(
        client, url, evm_snapshot, deployment, code_at_anchoring, code_after
    )
    anchored_at = bundle["anchor"]["block_number"]
    report = {c.name: c for c in verify_bundle(bundle, evm_snapshot.rpc_url)}
    failed = {name for name, c in report.items() if not c.ok}
    seat0 = bundle["transcript"]["seats"][0]
    with JsonRpc(evm_snapshot.rpc_url) as rpc:  # both codes answer the same for any digest
        now = eip1271_accepts(rpc, seat0["player"], b"\x11" * 32, from_hex(OPAQUE_SIGNATURE, "s"))
    assert now is not valid, "the wallet's answer now is the opposite of the one at anchoring"
    seats = report["seat-authorizations"]
    if valid:
        assert failed == set(), seats.detail
        assert f"(EIP-1271 at block {anchored_at})" in seats.detail
        assert "seat 1 " in seats.detail and "(EOA)" in seats.detail
    else:
        # the wallet's answer now is yes; its answer at the anchoring block was no
        assert failed == {"seat-authorizations"}, report
        assert seats.detail.startswith("seat 0's authorization is not signed by")
        assert f"EIP-1271 at the anchoring block {anchored_at}" in seats.detail
