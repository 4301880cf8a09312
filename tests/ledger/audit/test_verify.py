"""Auditor verification: a real match, signed, anchored on a real Anvil, exported as a bundle and
verified with only the bundle and an RPC URL; tampering with any field fails a named check."""

from __future__ import annotations

import copy
import json
import os
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from ledger.anchoring.service import AnchorConfig, Anchorer
from ledger.audit.export import export_bundle
from ledger.audit.verify import CHECKS, verify_bundle
from ledger.chain.deployment import Deployment
from ledger.chain.transport import JsonRpc
from ledger.db import create_all, make_engine, unit_of_work
from ledger.devstack.anvil import AnvilNode
from tests.fixtures.chain import running_anvil
from tests.fixtures.cli import run_cli
from tests.ledger.anchor_support import (
    ANCHORER_KEY,
    PLAYER0,
    PLAYER1,
    add_results,
    deploy,
    store_played_match,
)

pytestmark = pytest.mark.chain


@pytest.fixture(scope="module")
def chain(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[AnvilNode, Deployment]]:
    """A private Anvil with the contracts (this module anchors outside any snapshot)."""
    with running_anvil(tmp_path_factory.mktemp("anvil-verify") / "anvil.log") as node:
        yield node, deploy(node)


@pytest.fixture(scope="module")
def anchored(
    chain: tuple[AnvilNode, Deployment], tmp_path_factory: pytest.TempPathFactory
) -> dict[str, Any]:
    """Three played matches among other results, anchored over two batches; the bundle of one."""
    anvil, deployment = chain
    url = f"sqlite:///{tmp_path_factory.mktemp('verify-db') / 'metaledger.db'}"
    engine = make_engine(url)
    create_all(engine)
    add_results(engine, deployment, 5)
    ids = [
        store_played_match(engine, anvil, deployment, game, salt, bot=game == "metaversus")
        for salt, game in enumerate(("metax", "metamasters", "metaversus"))
    ]
    add_results(engine, deployment, 3)
    Anchorer(
        engine,
        JsonRpc(anvil.rpc_url),
        deployment.match_ledger,
        ANCHORER_KEY,
        AnchorConfig(batch_max_results=7),
    ).run_until_idle(force=True)
    with unit_of_work(engine) as s:
        bundles = [
            export_bundle(
                s, m, card_token=deployment.card_token, deployment_block=deployment.deployment_block
            )
            for m in ids
        ]
    engine.dispose()
    return {"bundles": bundles, "rpc": anvil.rpc_url, "db": url, "deployment": deployment}


def failed(bundle: dict[str, Any], rpc: str) -> set[str]:
    checks = verify_bundle(bundle, rpc)
    assert [c.name for c in checks] == list(CHECKS)
    return {c.name for c in checks if not c.ok}


def test_a_genuine_bundle_passes_every_check_for_every_game(anchored: dict[str, Any]) -> None:
    for bundle in anchored["bundles"]:
        checks = verify_bundle(bundle, anchored["rpc"])
        assert all(c.ok for c in checks), [c for c in checks if not c.ok]
    assert {b["anchor"]["batch_id"] for b in anchored["bundles"]} == {1, 2}


def _flip(hex_value: str, at: int = -1) -> str:
    raw = bytearray(bytes.fromhex(hex_value.removeprefix("0x")))
    raw[at] ^= 0x01
    return "0x" + raw.hex()


def _change_card(b: dict[str, Any]) -> None:
    cards = b["decks"][0]["cards"]
    card = sorted(cards)[0]
    cards[card] += 1


def _change_transcript_card(b: dict[str, Any]) -> None:
    deck = b["transcript"]["decks"][1]
    card = sorted(deck)[0]
    deck[card] += 1


def _change_action(b: dict[str, Any]) -> None:
    actions = b["transcript"]["actions"]
    i = next(k for k, a in enumerate(actions) if len(a) > 1)
    actions[i] = [actions[i][0], actions[i][1] + 1, *actions[i][2:]]


def _set(path: str, value: Callable[[Any], Any]) -> Callable[[dict[str, Any]], None]:
    def tamper(b: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        node: Any = b
        for key in parents:
            node = node[int(key)] if key.isdigit() else node[key]
        key_: Any = int(last) if last.isdigit() else last
        node[key_] = value(node[key_])

    return tamper


TAMPERING: dict[str, tuple[Callable[[dict[str, Any]], None], set[str]]] = {
    "a card of a deck": (_change_card, {"decks"}),
    "a card in the transcript": (_change_transcript_card, {"decks", "transcript-hash"}),
    "an action": (_change_action, {"transcript-hash"}),
    "the winner": (
        _set("result.typed_data.message.winner", lambda w: PLAYER0 if w == PLAYER1 else PLAYER1),
        {"result-digest"},
    ),
    "a player's seed reveal": (_set("seeds.players.0.reveal", _flip), {"seed-commitments"}),
    "the operator's seed commit": (_set("seeds.operator.commit", _flip), {"seed-commitments"}),
    "the transcript seed": (
        _set("transcript.seed", lambda s: hex(int(s, 16) ^ 1)),
        {"seed-commitments", "transcript-hash"},
    ),
    "a proof node": (_set("anchor.proof.0", _flip), {"merkle-proof"}),
    "the batch id": (_set("anchor.batch_id", lambda i: 3 - i), {"merkle-proof"}),
    "the root": (_set("anchor.root", _flip), {"merkle-proof", "batch-hash-chain"}),
    "the signature": (_set("result.signature", lambda s: _flip(s, 5)), {"signature"}),
    "the signer": (_set("result.signer", lambda _s: PLAYER1), {"signature", "signer-registered"}),
    "the chain id": (_set("chain.chain_id", lambda _c: 1), {"chain-id"}),
    "the domain's chain id": (
        _set("result.typed_data.domain.chainId", lambda _c: 1),
        {"chain-id", "eip712-domain", "result-digest"},
    ),
    "the verifying contract": (
        _set("result.typed_data.domain.verifyingContract", lambda _a: PLAYER1),
        {"eip712-domain", "result-digest"},
    ),
    "the ownership block": (
        _set("result.typed_data.message.ownershipBlock", lambda _n: 1),
        {"result-digest", "ownership"},
    ),
    "the final state hash": (
        _set("result.typed_data.message.finalStateHash", _flip),
        {"result-digest", "replay"},
    ),
    "the digest": (_set("result.digest", _flip), {"result-digest"}),
    "a human seat marked as the bot": (_set("decks.0.is_bot", lambda _b: True), {"ownership"}),
}


@pytest.mark.parametrize("what", sorted(TAMPERING))
def test_tampering_with_any_field_fails_the_named_check(
    anchored: dict[str, Any], what: str
) -> None:
    tamper, expected = TAMPERING[what]
    for bundle in anchored["bundles"][:1] if what != "an action" else anchored["bundles"]:
        forged = copy.deepcopy(bundle)
        tamper(forged)
        assert forged != bundle
        fails = failed(forged, anchored["rpc"])
        assert expected <= fails, (
            f"{what}: failed {sorted(fails)}, expected at least {sorted(expected)}"
        )


def test_a_malformed_bundle_fails_cleanly(anchored: dict[str, Any]) -> None:
    forged = copy.deepcopy(anchored["bundles"][0])
    del forged["anchor"]
    assert "bundle-format" in failed(forged, anchored["rpc"])


def _cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return run_cli(*args, env={**os.environ, **(env or {})}, timeout=120)


@pytest.mark.slow
def test_cli_export_then_verify(anchored: dict[str, Any], tmp_path: Path) -> None:
    deployment: Deployment = anchored["deployment"]
    deployment_file = tmp_path / "deployment.json"
    deployment.save(deployment_file)
    match_id = anchored["bundles"][0]["result"]["typed_data"]["message"]["matchId"]
    out = tmp_path / "bundle.json"
    env = {
        "METALEDGER_DATABASE_URL": anchored["db"],
        "METALEDGER_DEPLOYMENT_FILE": str(deployment_file),
        "METALEDGER_RPC_URL": anchored["rpc"],
    }
    done = _cli("audit", "export", match_id, "-o", str(out), env=env)
    assert done.returncode == 0, done.stderr
    assert json.loads(out.read_text()) == anchored["bundles"][0]

    ok = _cli("verify", str(out), "--rpc", anchored["rpc"])
    assert ok.returncode == 0, ok.stdout + ok.stderr
    # a format-1 bundle: the checks of signed moves report that the players signed nothing
    reported = ("seat-authorizations", "player-signatures", "players-acknowledged", "batch-leaves")
    assert ok.stdout.count("✓") == len(CHECKS) - len(reported) and "✗" not in ok.stdout
    for name in reported:
        assert f"– {name}: " in ok.stdout
    assert (
        "– player-signatures: not applicable: moves not signed by players (format 1)" in ok.stdout
    )

    forged = json.loads(out.read_text())
    forged["anchor"]["proof"][0] = _flip(forged["anchor"]["proof"][0])
    out.write_text(json.dumps(forged))
    bad = _cli("verify", str(out), "--rpc", anchored["rpc"])
    assert bad.returncode == 1
    assert "✗ merkle-proof" in bad.stdout and "Traceback" not in bad.stderr

    missing = _cli("audit", "export", "0x" + "00" * 32, "-o", str(tmp_path / "x.json"), env=env)
    assert (
        missing.returncode == 2
        and missing.stderr.startswith("error: ")
        and "Traceback" not in missing.stderr
    )
