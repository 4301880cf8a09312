"""Bulk audit of signed (format-2) bundles: the batch's leaf list, carried by every bundle, is read
and digested once per batch, and still checked for each bundle: a bundle whose leaf list was
changed fails `batch-leaves`, and the list is taken from memory only where the document has it."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from ledger.audit.batches import BatchMemo
from ledger.audit.bulk import _Worker
from ledger.chain.deployment import Deployment
from ledger.chain.snapshot import SnapshotRpc
from ledger.devstack.anvil import AnvilNode
from ledger.errors import InvalidInput
from ledger.protocol.untrusted import JsonLimits
from ledger.settings import Settings
from tests.api.conftest import start_duel
from tests.api.helpers import acknowledge, play_out
from tests.ledger.anchor_support import anchor_pending
from tests.ledger.audit.test_verify_bulk import _verify

pytestmark = pytest.mark.chain


def _batch_of_two(
    client: httpx.Client, url: str, anvil: AnvilNode, deployment: Deployment
) -> list[dict[str, Any]]:
    """Two MetaX duels played through the API, anchored in one batch; their bundles."""
    ids = []
    for _ in range(2):
        a, b, match_id, _decks = start_duel(client, anvil, deployment, "metax")
        assert play_out({0: a, 1: b}, match_id)["status"] == "finished"
        acknowledge(a, match_id)
        acknowledge(b, match_id)
        ids.append(match_id)
    anchor_pending(url, anvil.rpc_url, deployment.match_ledger)
    bundles = []
    for match_id in ids:
        r = client.get(f"/matches/{match_id}/bundle")
        assert r.status_code == 200, r.text
        bundles.append(dict(r.json()))
    assert bundles[0]["anchor"]["batch_id"] == bundles[1]["anchor"]["batch_id"]
    assert len(bundles[0]["batch_leaves"]) == 2
    return bundles


def _exported(folder: Path, name: str, bundle: Any) -> Path:
    """Written as the exporter and `bench verify` write bundles (sorted keys)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(json.dumps(bundle, sort_keys=True))
    return path


def _other_leaf_list(bundle: dict[str, Any]) -> dict[str, Any]:
    """The bundle with another winner in one leaf of its batch's leaf list (not its own)."""
    forged = copy.deepcopy(bundle)
    mine = forged["result"]["typed_data"]["message"]["matchId"]
    leaf = next(x for x in forged["batch_leaves"] if x["result"]["matchId"] != mine)
    seats = (leaf["result"]["player0"], leaf["result"]["player1"])
    leaf["result"]["winner"] = seats[1] if leaf["result"]["winner"] == seats[0] else seats[0]
    return forged


def test_a_batch_leaf_list_is_read_once_and_still_checked_in_every_bundle(
    api: tuple[httpx.Client, str], evm_snapshot: AnvilNode, deployment: Deployment, tmp_path: Path
) -> None:
    client, url = api
    bundles = _batch_of_two(client, url, evm_snapshot, deployment)
    rpc = evm_snapshot.rpc_url
    folder = tmp_path / "batch"
    for i, bundle in enumerate(bundles):
        _exported(folder, f"b{i}.json", bundle)
    _exported(folder, "z-forged-leaves.json", _other_leaf_list(bundles[0]))
    done = _verify(str(folder), "--rpc", rpc, "--jobs", "1")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "z-forged-leaves.json" in done.stdout and "batch-leaves" in done.stdout
    assert "b0.json" not in done.stdout and "b1.json" not in done.stdout  # the good ones pass
    assert "Traceback" not in done.stderr

    worker = _Worker(SnapshotRpc(rpc), JsonLimits.for_bundles(Settings()))
    worker.rpc.pin()
    outcomes = [worker.verify_chunk([p])[0] for p in sorted(folder.iterdir())]
    assert [o.ok for o in outcomes] == [True, True, False]
    assert outcomes[2].failed == ("batch-leaves",), outcomes[2]
    assert worker.batches.reused == 1  # b1 took b0's list from memory; the forged one could not

    memo = BatchMemo()
    _the_list_is_taken_from_memory_only_where_the_document_has_it(memo, bundles)


def _the_list_is_taken_from_memory_only_where_the_document_has_it(
    memo: BatchMemo, bundles: list[dict[str, Any]]
) -> None:
    limits = JsonLimits.for_bundles(Settings())
    first = memo.parse(json.dumps(bundles[0], sort_keys=True).encode(), limits, "a")
    leaves = first["batch_leaves"]
    again = memo.parse(json.dumps(bundles[1], sort_keys=True).encode(), limits, "b")
    assert again["batch_leaves"] is leaves and memo.reused == 1
    assert again == json.loads(json.dumps(bundles[1]))  # the same document

    text = json.dumps(leaves, sort_keys=True)
    # the list's bytes inside a string, the document's own list empty: nothing is substituted
    hidden = {**bundles[1], "batch_leaves": [], "note": text}
    data = json.dumps(hidden, sort_keys=True).encode()
    assert data.find(b'"batch_leaves": ') > 0
    assert memo.parse(data, limits, "c")["batch_leaves"] == []
    # the list where the exporter writes it, then a second `batch_leaves` key (the last wins)
    twice = json.dumps(bundles[1], sort_keys=True)[:-1] + ', "batch_leaves": []}'
    assert memo.parse(twice.encode(), limits, "d")["batch_leaves"] == []
    assert memo.reused == 1
    # a shape-checked list is not walked again; a malformed bundle is still refused
    memo.check_shape(again)
    broken = {**again, "anchor": "nowhere"}
    with pytest.raises(InvalidInput, match="anchor"):
        memo.check_shape(broken)
