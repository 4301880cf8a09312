"""The dishonest operator: it holds the result signer key and the anchorer key, so it can write,
sign and anchor any legal transcript. Against a match whose players signed their moves, verify
still catches it: a rewritten human move fails `player-signatures` naming the move, and a second
result for the same match in one batch fails `batch-leaves`."""

from __future__ import annotations

import copy
import dataclasses
import json
from typing import Any

import httpx
import pytest
from eth_account import Account

from engine import Action, RandomBot, Recorder, get_game
from ledger.audit.verify import verify_bundle
from ledger.chain.contracts import MatchLedger, anchor_calldata
from ledger.chain.deployment import Deployment
from ledger.chain.transport import JsonRpc
from ledger.devstack.anvil import AnvilNode
from ledger.protocol import eip712, merkle
from ledger.protocol.hexcodec import from_hex, to_hex
from ledger.protocol.signatures import SECP256K1_N, sign_digest
from ledger.protocol.signedmoves import EntryChain, canonical_action, transcript_hash
from tests.api.conftest import start_duel
from tests.api.helpers import acknowledge, play_out
from tests.ledger.anchor_support import ANCHORER_KEY, SIGNER_KEY, anchor_pending

pytestmark = pytest.mark.chain


def _played_bundle(
    client: httpx.Client, url: str, anvil: AnvilNode, deployment: Deployment
) -> tuple[dict[str, Any], Any]:
    """A MetaX match between two wallets played through the API, acknowledged by both,
    anchored; its bundle, and the (signed-in) player of seat 0."""
    a, b, match_id, _decks = start_duel(client, anvil, deployment, "metax")
    assert play_out({0: a, 1: b}, match_id)["status"] == "finished"
    acknowledge(a, match_id)
    acknowledge(b, match_id)
    anchor_pending(url, anvil.rpc_url, deployment.match_ledger)
    r = client.get(f"/matches/{match_id}/bundle")
    assert r.status_code == 200, r.text
    return dict(r.json()), a


def _anchor(anvil: AnvilNode, deployment: Deployment, digests: list[bytes]) -> merkle.MerkleTree:
    """Anchor a batch of these digests with the anchorer key (the operator's other key)."""
    rpc = JsonRpc(anvil.rpc_url)
    ledger = MatchLedger(rpc, deployment.match_ledger)
    batch_id = ledger.latest_batch_id() + 1
    tree = merkle.build(digests)
    w3 = anvil.w3
    anchorer = Account.from_key(ANCHORER_KEY)
    tx = {
        "to": deployment.match_ledger,
        "from": anchorer.address,
        "data": to_hex(
            anchor_calldata(batch_id, tree.root, len(digests), ledger.head_batch_hash())
        ),
        "nonce": w3.eth.get_transaction_count(anchorer.address),
        "gas": 300_000,
        "gasPrice": w3.eth.gas_price,
        "chainId": w3.eth.chain_id,
    }
    sent = w3.eth.send_raw_transaction(anchorer.sign_transaction(tx).raw_transaction)
    assert w3.eth.wait_for_transaction_receipt(sent)["status"] == 1
    return tree


def _point_at_batch(
    bundle: dict[str, Any],
    anvil: AnvilNode,
    deployment: Deployment,
    tree: merkle.MerkleTree,
    i: int,
) -> None:
    """Make the bundle's anchor section the newest batch (`tree`), leaf `i` being its result."""
    ledger = MatchLedger(JsonRpc(anvil.rpc_url), deployment.match_ledger)
    event = ledger.anchored_batch(ledger.latest_batch_id())
    assert event is not None
    bundle["anchor"] = {
        "batch_id": event.batch_id,
        "root": to_hex(event.root),
        "count": event.count,
        "prev_batch_hash": to_hex(event.prev_batch_hash),
        "batch_hash": to_hex(event.batch_hash),
        "tx_hash": event.tx_hash,
        "block_number": event.block_number,
        "block_hash": event.block_hash,
        "tree_index": tree.tree_index[i],
        "proof": [to_hex(p) for p in tree.proof(i)],
    }


def _resign_result(bundle: dict[str, Any], **changes: Any) -> bytes:
    """Re-sign the bundle's result with `changes` (snake_case fields) using the signer key."""
    domain = bundle["result"]["typed_data"]["domain"]
    struct = eip712.MatchResult.from_message(bundle["result"]["typed_data"]["message"])
    forged = dataclasses.replace(struct, **changes)
    digest = eip712.digest(forged, domain["chainId"], domain["verifyingContract"])
    bundle["result"]["typed_data"]["message"] = forged.as_message()
    bundle["result"]["digest"] = to_hex(digest)
    bundle["result"]["signature"] = to_hex(sign_digest(SIGNER_KEY, digest))
    return digest


def _rewrite_a_human_move(bundle: dict[str, Any]) -> tuple[dict[str, Any], int]:
    """The operator's forgery: the first human move that had another legal choice is replaced,
    the match played on from there by a bot, the entry chain recomputed (re-receipted in format
    2; the players' signatures are kept: the operator cannot make new ones)."""
    forged = copy.deepcopy(bundle)
    t = forged["transcript"]
    engine_t = t["engine"]
    game = get_game(engine_t["game"])
    seed = int(engine_t["seed"], 16)
    state = game.new_match((engine_t["decks"][0], engine_t["decks"][1]), seed, engine_t["options"])
    actions = engine_t["actions"]
    for k, action in enumerate(actions):
        others = [a for a in state.legal_actions() if a.to_json() != action]
        if others and not t["entries"][k]["by_bot"]:
            break
        state.apply(Action.from_json(action))
    else:
        raise AssertionError("no human move had an alternative")
    new_actions = [*actions[:k], others[0].to_json()]
    state.apply(others[0])
    bots = [RandomBot(7), RandomBot(8)]
    while not state.is_over:
        action = bots[state.current_player].choose(state)
        new_actions.append(action.to_json())
        state.apply(action)
    recorder = Recorder(game.name, engine_t["decks"], seed, engine_t["options"])
    for action in new_actions:
        recorder.apply(Action.from_json(action))
    engine_new = recorder.finish().to_json()
    chain = EntryChain(t["match_id"], 31337, forged["chain"]["match_ledger"])
    prev = from_hex(t["genesis_hash"])
    entries = []
    movers = recorder_seats(game, engine_t, new_actions)
    for i, action in enumerate(new_actions):
        old = t["entries"][i] if i < len(t["entries"]) else t["entries"][-1]
        text = canonical_action(action)
        salt = from_hex(old["salt"])
        seat = movers[i]
        entry_hash = chain.entry_hash(seat, i, prev, text, salt)
        entry = {
            "index": i,
            "seat": seat,
            "by_bot": False,
            "action": text,
            "salt": old["salt"],
            "signature": old["signature"],
            "entry_hash": to_hex(entry_hash),
        }
        if "receipt" in old:  # format 2 carries the operator's receipts: re-made
            receipt = sign_digest(SIGNER_KEY, chain.receipt_digest(i, entry_hash))
            entry["receipt"] = to_hex(receipt)
        entries.append(entry)
        prev = entry_hash
    t["engine"] = engine_new
    t["entries"] = entries
    return forged, k


def recorder_seats(game: Any, engine_t: dict[str, Any], actions: list[list[Any]]) -> list[int]:
    """Who moved at each index of `actions`."""
    state = game.new_match(
        (engine_t["decks"][0], engine_t["decks"][1]), int(engine_t["seed"], 16), engine_t["options"]
    )
    seats = []
    for action in actions:
        seats.append(state.current_player)
        state.apply(Action.from_json(action))
    return seats


def test_a_rewritten_human_move_fails_player_signatures_and_a_second_result_fails_batch_leaves(
    api: tuple[httpx.Client, str], evm_snapshot: AnvilNode, deployment: Deployment
) -> None:
    client, url = api
    genuine, _player = _played_bundle(client, url, evm_snapshot, deployment)
    checks = verify_bundle(genuine, evm_snapshot.rpc_url)
    assert all(c.ok for c in checks), [c for c in checks if not c.ok]

    forged, k = _rewrite_a_human_move(genuine)
    engine_t = forged["transcript"]["engine"]
    winner = engine_t["winner"]
    message = forged["result"]["typed_data"]["message"]
    digest = _resign_result(
        forged,
        transcript_hash=transcript_hash(forged["transcript"]),
        final_state_hash=bytes.fromhex(engine_t["final_hash"]),
        winner=eip712.ZERO_ADDRESS if winner is None else message[f"player{winner}"],
    )
    tree = _anchor(evm_snapshot, deployment, [digest])
    _point_at_batch(forged, evm_snapshot, deployment, tree, 0)
    forged["batch_leaves"] = [
        {"tree_index": tree.tree_index[0], "result": forged["result"]["typed_data"]["message"]}
    ]
    json.dumps(forged)  # still a JSON document
    report = {c.name: c for c in verify_bundle(forged, evm_snapshot.rpc_url)}
    failed = {name for name, c in report.items() if not c.ok}
    # everything the operator's keys can make is in order; the players' signatures are not
    assert failed == {"player-signatures", "players-acknowledged"}, report
    assert report["player-signatures"].detail.startswith(f"entry {k} (seat ")
    assert "the signature is not by seat" in report["player-signatures"].detail

    # a second, different result for the same match, anchored beside the genuine one
    second = copy.deepcopy(genuine)
    other = _resign_result(second, winner=eip712.ZERO_ADDRESS)
    tree = _anchor(evm_snapshot, deployment, [from_hex(genuine["result"]["digest"]), other])
    leaves = [
        {"tree_index": tree.tree_index[0], "result": genuine["result"]["typed_data"]["message"]},
        {"tree_index": tree.tree_index[1], "result": second["result"]["typed_data"]["message"]},
    ]
    for bundle, i in ((copy.deepcopy(genuine), 0), (second, 1)):
        _point_at_batch(bundle, evm_snapshot, deployment, tree, i)
        bundle["batch_leaves"] = leaves
        report = {c.name: c for c in verify_bundle(bundle, evm_snapshot.rpc_url)}
        assert not report["batch-leaves"].ok
        assert "another result for match" in report["batch-leaves"].detail
    # with only its own leaf listed, the list does not recompute the on-chain root
    second["batch_leaves"] = leaves[1:]
    report = {c.name: c for c in verify_bundle(second, evm_snapshot.rpc_url)}
    assert not report["batch-leaves"].ok


def test_a_move_signature_that_is_missing_high_s_or_another_keys_fails_at_its_entry(
    api: tuple[httpx.Client, str], evm_snapshot: AnvilNode, deployment: Deployment
) -> None:
    client, url = api
    genuine, _player = _played_bundle(client, url, evm_snapshot, deployment)
    entries = genuine["transcript"]["entries"]
    k = next(i for i, e in enumerate(entries) if e["signature"] is not None and i > 2)
    seat = genuine["transcript"]["seats"][entries[k]["seat"]]
    signature = from_hex(entries[k]["signature"])
    s = int.from_bytes(signature[32:64], "big")
    high_s = signature[:32] + (SECP256K1_N - s).to_bytes(32, "big") + bytes([55 - signature[64]])
    stranger = Account.create()
    by_stranger = sign_digest(stranger.key, from_hex(entries[k]["entry_hash"]))
    expected = {
        None: "a player's move without its signature",
        to_hex(high_s): "signature is not in low-s form (EIP-2)",
        to_hex(by_stranger): (
            f"the signature is not by seat {seat['seat']}'s session key {seat['session_key']}"
        ),
    }
    for forged_signature, reason in expected.items():
        forged = copy.deepcopy(genuine)
        forged["transcript"]["entries"][k]["signature"] = forged_signature
        report = {c.name: c for c in verify_bundle(forged, evm_snapshot.rpc_url)}
        detail = report["player-signatures"].detail
        assert not report["player-signatures"].ok
        assert detail.startswith(f"entry {k} (seat {entries[k]['seat']}, "), detail
        assert reason.lower() in detail.lower(), detail
    assert f"(it recovers to {stranger.address})" in detail
