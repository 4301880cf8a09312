"""Audit a finished match in the browser: the server's run of the one verifier (labelled so),
the browser's own signature and Merkle-proof checks against the chain, the anchoring
transaction and batch, a step-by-step replay; a tampered bundle dropped on the page shows ✗
on the right check and ✓ on the others."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from ledger.audit.verify import CHECKS
from ledger.devstack.demo import DEMO_KEYS
from tests.web.conftest import Stack, WalletPage

pytestmark = [pytest.mark.browser, pytest.mark.slow]

BROWSER_CHECKS = ["result-signature", "merkle-proof"]


@pytest.fixture(scope="module")
def anchored_match(stack: Stack) -> tuple[str, dict[str, Any]]:
    """A bot match played with the CLI (`metaledger play`, as a user runs it), once its bundle
    is served (its batch is anchored and confirmed): (match id, bundle)."""
    played = subprocess.run(
        [
            *(sys.executable, "-m", "ledger.cli", "play", "--data-dir", str(stack.data)),
            *("--key", DEMO_KEYS[2], "--game", "metamasters", "--bot", "random"),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert played.returncode == 0, played.stdout + played.stderr
    match_id = played.stdout.split("match ", 2)[1].split()[0]
    deadline = time.monotonic() + 60
    while True:
        r = httpx.get(f"{stack.api_url}/matches/{match_id}/bundle", timeout=30)
        if r.status_code == 200:
            return match_id, r.json()
        assert time.monotonic() < deadline, r.text
        time.sleep(0.5)


def wait_for_verdict(w: WalletPage) -> None:
    """Wait until the page has checked the bundle (failing with its message if it could not)."""
    w.page.wait_for_selector("#audit-verdict, .message.error:not([hidden])", timeout=60_000)
    error = w.page.query_selector(".message.error:not([hidden])")
    assert error is None, error.inner_text()


def outcomes(w: WalletPage, list_id: str) -> dict[str, bool]:
    """check name -> passed, as the page shows them."""
    rows = w.page.eval_on_selector_all(
        f"#{list_id} li", "els => els.map(e => [e.dataset.check, e.dataset.ok === '1'])"
    )
    return dict(rows)


def test_audit_a_finished_match(
    wallet: Callable[[str], WalletPage], anchored_match: tuple[str, dict[str, Any]]
) -> None:
    match_id, bundle = anchored_match
    w = wallet(DEMO_KEYS[0])  # an auditor need not sign in
    w.goto(f"/audit?match={match_id}")
    wait_for_verdict(w)
    assert outcomes(w, "server-checks") == dict.fromkeys(CHECKS, True)
    assert outcomes(w, "browser-checks") == dict.fromkeys(BROWSER_CHECKS, True)
    assert w.page.get_attribute("#audit-verdict", "data-ok") == "1"
    assert "the server ran metaledger verify" in w.page.inner_text("#server-label")
    anchor = bundle["anchor"]
    assert anchor["tx_hash"] in w.page.inner_text("#anchoring")
    w.page.wait_for_selector(
        f"#anchor-tx-status:has-text('success in block {anchor['block_number']}')"
    )
    # the replay: the deal, then step by step, then the last step
    w.page.wait_for_selector("#replay-board .board")
    assert "the deal" in w.page.inner_text("#replay-where")
    w.page.click("#replay-next")
    w.page.wait_for_selector("#replay-where:has-text('step 1 of')")
    total = len(engine_actions(bundle))
    w.page.click("#replay-last")
    w.page.wait_for_selector(f"#replay-where:has-text('step {total} of {total}')")
    assert w.page.query_selector("#replay-board [data-zone='actors']")
    w.shot("audit")


def engine_actions(bundle: dict[str, Any]) -> list[Any]:
    """The engine transcript's actions (inside a signed transcript/2 when the bundle has one)."""
    transcript = bundle["transcript"]
    actions: list[Any] = transcript.get("engine", transcript)["actions"]
    return actions


def tampered(bundle: dict[str, Any], change: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    copy = json.loads(json.dumps(bundle))
    change(copy)
    return copy


def flip_hex_digit(value: str, at: int) -> str:
    return value[:at] + ("0" if value[at] != "0" else "1") + value[at + 1 :]


@pytest.mark.parametrize(
    ("what", "change", "server_fails", "browser_fails"),
    [
        (
            "proof",
            lambda b: b["anchor"]["proof"].append("0x" + "11" * 32),
            {"merkle-proof"},
            {"merkle-proof"},
        ),
        (
            "signature",
            lambda b: b["result"].__setitem__(
                "signature", flip_hex_digit(b["result"]["signature"], 10)
            ),
            {"signature"},
            {"result-signature"},
        ),
        (
            "action",
            lambda b: engine_actions(b).pop(),
            {"transcript-hash", "replay", "player-signatures"},
            set(),
        ),
    ],
)
def test_a_tampered_bundle_shows_a_cross_on_the_right_check(
    wallet: Callable[[str], WalletPage],
    anchored_match: tuple[str, dict[str, Any]],
    tmp_path: Path,
    what: str,
    change: Callable[[dict[str, Any]], None],
    server_fails: set[str],
    browser_fails: set[str],
) -> None:
    _match_id, bundle = anchored_match
    path = tmp_path / f"tampered-{what}.json"
    path.write_text(json.dumps(tampered(bundle, change)))
    w = wallet(DEMO_KEYS[0])
    w.goto("/audit")
    w.page.set_input_files("#audit-file", str(path))
    wait_for_verdict(w)
    assert w.page.get_attribute("#audit-verdict", "data-ok") == "0"
    server = outcomes(w, "server-checks")
    assert {name for name, ok in server.items() if not ok} == server_fails
    assert set(server) == set(CHECKS)
    browser = outcomes(w, "browser-checks")
    assert {name for name, ok in browser.items() if not ok} == browser_fails
    if what == "proof":
        w.shot("audit-tampered")
