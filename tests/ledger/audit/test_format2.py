"""Bundles of the earlier signed format (`metaledger.bundle/2`, the transcript with the operator's
receipt in every entry) keep verifying with all their checks, receipts included, beside the
current format (`metaledger.bundle/3`, no receipts), which carries nothing the checks skip.

The format-2 bundle is made as the writer before format 3 made it: the API's own receipts of a
match played through it (as `GET /matches/{id}/actions` hands them to its players) put back in
its entries, the transcript hashed, the result signed with the result signer key and anchored
with the anchorer key (the operator's own keys, as the API and the anchoring service use them).
"""

from __future__ import annotations

import copy
from typing import Any

import httpx
import pytest

from ledger.audit.verify import verify_bundle
from ledger.chain.deployment import Deployment
from ledger.devstack.anvil import AnvilNode
from ledger.protocol.hexcodec import from_hex
from ledger.protocol.signedmoves import TRANSCRIPT_FORMAT_2, transcript_hash
from tests.ledger.audit.test_forgery import (
    _anchor,
    _played_bundle,
    _point_at_batch,
    _resign_result,
)

pytestmark = pytest.mark.chain


@pytest.fixture
def both_formats(
    api: tuple[httpx.Client, str], evm_snapshot: AnvilNode, deployment: Deployment
) -> tuple[dict[str, Any], dict[str, Any], str]:
    """A duel played through the API and acknowledged by both: its bundle as exported (format
    3), the same match as a format-2 bundle with the API's receipts, signed and anchored, and
    the RPC URL."""
    client, url = api
    anvil = evm_snapshot
    current, player = _played_bundle(client, url, anvil, deployment)
    match_id = current["result"]["typed_data"]["message"]["matchId"]
    # the receipts the API hands its players with each entry
    log = player.get(f"/matches/{match_id}/actions?since=0&limit=1000")
    assert log.status_code == 200, log.text
    receipts = {int(e["index"]): e["receipt"] for e in log.json()}

    old = copy.deepcopy(current)
    t = old["transcript"]
    t["format"] = TRANSCRIPT_FORMAT_2
    for entry in t["entries"]:
        entry["receipt"] = receipts[entry["index"]]
    old["format"] = "metaledger.bundle/2"
    digest = _resign_result(old, transcript_hash=transcript_hash(t))
    tree = _anchor(anvil, deployment, [digest])
    _point_at_batch(old, anvil, deployment, tree, 0)
    old["batch_leaves"] = [
        {"tree_index": tree.tree_index[0], "result": old["result"]["typed_data"]["message"]}
    ]
    return current, old, anvil.rpc_url


def _report(bundle: dict[str, Any], rpc: str) -> dict[str, Any]:
    return {c.name: c for c in verify_bundle(bundle, rpc)}


def test_format_2_bundles_verify_their_receipts_and_format_3_carries_none(
    both_formats: tuple[dict[str, Any], dict[str, Any], str],
) -> None:
    current, old, rpc = both_formats

    assert current["format"] == "metaledger.bundle/3"
    assert current["transcript"]["format"] == "metaledger.transcript/3"
    assert all("receipt" not in e for e in current["transcript"]["entries"])
    report = _report(current, rpc)
    assert all(c.ok for c in report.values()), [c for c in report.values() if not c.ok]
    assert "receipted" not in report["player-signatures"].detail

    report = _report(old, rpc)
    assert all(c.ok for c in report.values()), [c for c in report.values() if not c.ok]
    assert report["bundle-format"].detail == "metaledger.bundle/2"
    entries = len(old["transcript"]["entries"])
    assert f"{entries} entries chained from the genesis hash, each receipted by " in (
        report["player-signatures"].detail
    )
    assert report["players-acknowledged"].detail.startswith("2/2: ")

    # a receipt that is not the signer's fails at its entry
    forged = copy.deepcopy(old)
    k = entries // 2
    receipt = from_hex(forged["transcript"]["entries"][k]["receipt"])
    forged["transcript"]["entries"][k]["receipt"] = (
        "0x" + (receipt[:10] + bytes([receipt[10] ^ 1]) + receipt[11:]).hex()
    )
    report = _report(forged, rpc)
    failed = {name for name, c in report.items() if not c.ok}
    assert "player-signatures" in failed
    assert report["player-signatures"].detail.startswith(f"entry {k} (seat ")
    assert report["player-signatures"].detail.endswith("the receipt is not the signer's")


def test_the_formats_do_not_mix(both_formats: tuple[dict[str, Any], dict[str, Any], str]) -> None:
    current, old, rpc = both_formats

    # format 3 carries no receipt: one added is a field no check reads, so the bundle is malformed
    padded = copy.deepcopy(current)
    padded["transcript"]["entries"][0]["receipt"] = old["transcript"]["entries"][0]["receipt"]
    report = _report(padded, rpc)
    assert not report["bundle-format"].ok
    assert "transcript.entries.0.receipt" in report["bundle-format"].detail

    # a format-2 entry without its receipt is malformed
    bare = copy.deepcopy(old)
    del bare["transcript"]["entries"][0]["receipt"]
    report = _report(bare, rpc)
    assert not report["bundle-format"].ok
    assert "transcript.entries.0.receipt" in report["bundle-format"].detail

    # a format-3 transcript under a format-2 tag (and the other way round) fails bundle-format
    for bundle, tag in ((current, "metaledger.bundle/2"), (old, "metaledger.bundle/3")):
        relabelled = copy.deepcopy(bundle)
        relabelled["format"] = tag
        report = _report(relabelled, rpc)
        assert not report["bundle-format"].ok
