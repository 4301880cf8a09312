"""docs/api.md's JavaScript check of a signed move and its receipt (viem), run with node on a
move signed by `ledger.client.session` and a receipt signed as the API signs it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from eth_account import Account

from ledger.client.session import MatchSession
from ledger.protocol import eip712
from ledger.protocol.hexcodec import to_hex
from ledger.protocol.signatures import sign_digest
from ledger.protocol.signedmoves import EntryChain

ROOT = Path(__file__).resolve().parents[2]
CONTRACT = "0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512"


def _js_block() -> str:
    text = (ROOT / "docs" / "api.md").read_text()
    after = text.split("<!-- js-check -->", 1)[1]
    return after.split("```js\n", 1)[1].split("```", 1)[0]


def _run(cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
    node = shutil.which("node")
    if node is None or not (ROOT / "node_modules" / "viem").is_dir():
        pytest.fail("node and node_modules/viem are required (npm ci)")
    driver = (
        _js_block()
        + """
let input = "";
process.stdin.on("data", (c) => (input += c));
process.stdin.on("end", async () => {
  const out = [];
  for (const c of JSON.parse(input)) out.push(await checkMove(c));
  process.stdout.write(JSON.stringify(out));
});
"""
    )
    done = subprocess.run(
        [node, "--input-type=module", "-e", driver],
        input=json.dumps(cases),
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
        env={**os.environ},
    )
    assert done.returncode == 0, done.stderr
    return list(json.loads(done.stdout))


def test_the_documented_js_check_accepts_a_signed_move_and_its_receipt_and_nothing_else() -> None:
    wallet, operator = Account.create(), Account.create()
    match = {
        "id": "0x" + os.urandom(32).hex(),
        "game": "metax",
        "ruleset_version": "metax-2018.06",
        "domain": eip712.domain(eip712.RESULT_DOMAIN_NAME, 31337, CONTRACT),
        "seats": [{"deck_hash": "0x" + "11" * 32}, {"deck_hash": "0x" + "22" * 32}],
    }
    session = MatchSession(wallet.key.to_0x_hex(), match, 0, operator.address)
    head = "0x" + os.urandom(32).hex()
    body = session.move(["play", 3], 12, head)
    entry_hash = session.signed[12]
    chain = EntryChain(match["id"], 31337, CONTRACT)
    receipt = to_hex(sign_digest(operator.key, chain.receipt_digest(12, entry_hash)))
    move = {
        "matchId": match["id"],
        "seat": 0,
        "index": 12,
        "prevEntryHash": head,
        "action": '["play",3]',
        "salt": body["salt"],
    }
    case = {
        "domain": match["domain"],
        "move": move,
        "signature": body["signature"],
        "sessionKey": session.address,
        "receipt": receipt,
        "operator": operator.address,
    }
    elsewhere = {**case, "move": {**move, "index": 13}}
    wrong_operator = {**case, "operator": wallet.address}
    genuine, moved, impostor = _run([case, elsewhere, wrong_operator])
    assert genuine == {
        "entryHash": to_hex(entry_hash),
        "signedBySessionKey": True,
        "receiptByOperator": True,
    }
    assert moved["signedBySessionKey"] is False and moved["receiptByOperator"] is False
    assert impostor["signedBySessionKey"] is True and impostor["receiptByOperator"] is False
