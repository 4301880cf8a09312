"""Browser test fixtures: one `metaledger run` stack (what `make run` starts) and one headless
Chromium (npm @sparticuz/chromium, driven by Python playwright) for the whole session, and a
browser context per wallet with the test wallet injected (tests/web/wallet.js).

Screenshots go to METALEDGER_SCREENSHOT_DIR (docs/pages when refreshing the docs) or the
session's temp folder; the measured figures (first contentful paint per page, click-to-board
per move) are written as JSON to `<basetemp>/browser-metrics.json` and printed at the end.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from eth_account import Account
from playwright.sync_api import Browser, BrowserContext, Page, Playwright, sync_playwright
from playwright.sync_api import Error as PlaywrightError

from tests.fixtures.stack import stack_env, start_run, stop_stack

REPO = Path(__file__).resolve().parents[2]
WALLET_JS = (Path(__file__).parent / "wallet.js").read_text()
#: launch arguments of @sparticuz/chromium that do not suit a test browser with several contexts
DROPPED_ARGS = ("--single-process", "--disable-web-security", "--allow-running-insecure-content")
#: the methods a real wallet asks its user about
PROMPTS = frozenset(
    {"eth_requestAccounts", "personal_sign", "eth_signTypedData_v4", "eth_sendTransaction"}
)


@dataclass
class Stack:
    """The running `metaledger run` stack."""

    api_url: str
    rpc_url: str
    data: Path
    log: Path

    def rpc(self, method: str, *params: Any) -> Any:
        """One JSON-RPC call to the stack's Anvil."""
        out = httpx.post(
            self.rpc_url, json={"jsonrpc": "2.0", "id": 1, "method": method, "params": list(params)}
        ).json()
        if "error" in out:
            raise RuntimeError(out["error"])
        return out["result"]


@pytest.fixture(scope="package")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    """`metaledger run` as `make run` starts it (free ports, batches closing after 2 s)."""
    tmp = tmp_path_factory.mktemp("web-stack")
    data, log = tmp / "data", tmp / "run.log"
    process = start_run(data, log, stack_env(batch_max_seconds="2"), 180)
    try:
        info = json.loads((data / "stack.json").read_text())
        yield Stack(info["api_url"], info["rpc_url"], data, log)
    finally:
        stop_stack(process, grace=30)


def chromium_launch() -> tuple[str, list[str]]:
    """The @sparticuz/chromium executable (unpacked on first use) and its arguments."""
    out = subprocess.run(
        ["node", str(REPO / "web" / "chromium.mjs")],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    info = json.loads(out.stdout)
    args = [a for a in info["args"] if a not in DROPPED_ARGS and not a.startswith("--headless")]
    return info["executable_path"], args


# The stack, the driver and Chromium live as long as tests/web, not the worker's session: the
# sync API keeps an event loop running in the main thread while it is open, and the worker's
# next group (asyncio.run in tests/api/test_startup.py) would find it running.
@pytest.fixture(scope="package")
def playwright() -> Iterator[Playwright]:
    """Python playwright's driver."""
    with sync_playwright() as p:
        yield p


@pytest.fixture(scope="package")
def browser(playwright: Playwright) -> Iterator[Browser]:
    """One headless Chromium for the session."""
    executable, args = chromium_launch()
    chromium = playwright.chromium.launch(executable_path=executable, args=args, headless=True)
    yield chromium
    chromium.close()


@dataclass
class Metrics:
    """What the browser tests measure, written to browser-metrics.json."""

    first_contentful_paint_ms: dict[str, list[float]] = field(default_factory=dict)
    move_to_board_ms: dict[str, list[float]] = field(default_factory=dict)
    #: of which the POST /matches/{id}/actions round trip (the bot's reply included)
    move_api_ms: dict[str, list[float]] = field(default_factory=dict)
    #: per move [signing, the POST round trip, drawing the answer], in the page
    move_phases_ms: dict[str, list[list[float]]] = field(default_factory=dict)

    def summary(self) -> dict[str, Any]:
        """Per page the worst FCP; per game and over all moves the p50/p95/max click-to-board."""

        def pct(values: list[float], q: float) -> float:
            ordered = sorted(values)
            return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))], 1)

        def spread(by_game: dict[str, list[float]]) -> dict[str, Any]:
            every = [v for game, vs in by_game.items() if "no bot" not in game for v in vs]
            out: dict[str, Any] = {
                game: {
                    "p50": pct(v, 0.5),
                    "p95": pct(v, 0.95),
                    "max": round(max(v), 1),
                    "moves": len(v),
                }
                for game, v in sorted(by_game.items())
                if v
            }
            if every:
                out["all_with_the_bot"] = {
                    "p50": pct(every, 0.5),
                    "p95": pct(every, 0.95),
                    "moves": len(every),
                }
            return out

        phases = [p for game, ps in self.move_phases_ms.items() if "no bot" not in game for p in ps]
        return {
            "move_phases_ms": {
                name: {
                    "p50": pct([p[i] for p in phases], 0.5),
                    "p95": pct([p[i] for p in phases], 0.95),
                }
                for i, name in enumerate(("sign", "post", "draw"))
            }
            if phases
            else {},
            "first_contentful_paint_ms": {
                page: {"max": round(max(v), 1), "samples": len(v)}
                for page, v in sorted(self.first_contentful_paint_ms.items())
            },
            "move_to_board_ms": spread(self.move_to_board_ms),
            "move_api_round_trip_ms": spread(self.move_api_ms),
            "load": os.getloadavg()[0],
        }


@pytest.fixture(scope="package")
def metrics(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Metrics]:
    """The session's measurements (browser-metrics.json in the base temp folder; under xdist
    the run's, not the worker's `popen-gwN`: one worker runs all of tests/web)."""
    found = Metrics()
    yield found
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent
    path = base / "browser-metrics.json"
    path.write_text(json.dumps(found.summary(), indent=2))
    print(f"\nbrowser metrics ({path}):\n{path.read_text()}")


@pytest.fixture(scope="session")
def screenshot_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where the tests save a screenshot of each page."""
    chosen = os.environ.get("METALEDGER_SCREENSHOT_DIR")
    path = Path(chosen) if chosen else tmp_path_factory.getbasetemp() / "screenshots"
    path.mkdir(parents=True, exist_ok=True)
    return path


@dataclass
class WalletPage:
    """A browser context whose injected wallet holds one Anvil dev account, and its page."""

    context: BrowserContext
    page: Page
    address: str
    stack: Stack
    prompts: list[str] = field(default_factory=list)
    #: wallet prompts the user turns down (answered with EIP-1193's 4001 "user rejected")
    rejects: set[str] = field(default_factory=set)
    screenshots: Path | None = None
    metrics: Metrics | None = None

    def goto(self, path: str) -> None:
        """Open an app path and wait until the page has rendered; record its FCP."""
        self.page.goto(self.stack.api_url + path)
        self.page.wait_for_selector("main[data-ready]")
        # the paint entry is queued after the frame is shown: wait for it, not just the DOM
        self.page.wait_for_function(
            "() => performance.getEntriesByName('first-contentful-paint').length > 0",
            timeout=10_000,
        )
        fcp = self.page.evaluate(
            "() => performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? -1"
        )
        assert fcp > 0, "no first contentful paint recorded"
        if self.metrics is not None:
            page = path.split("?")[0]
            self.metrics.first_contentful_paint_ms.setdefault(page, []).append(fcp)

    def shot(self, name: str) -> None:
        """Save a screenshot of the page as <name>.png."""
        if self.screenshots is not None:
            self.page.screenshot(path=str(self.screenshots / f"{name}.png"))

    def sign_in(self) -> None:
        """Sign in with the wallet from the account box."""
        self.page.get_by_role("button", name="Sign in with Test Wallet").click()
        self.page.wait_for_selector(
            f"[data-address='{self.address}'], .message.error:not([hidden])", timeout=40_000
        )
        error = self.page.query_selector(".message.error:not([hidden])")
        assert error is None, error.inner_text()


@pytest.fixture
def wallet(
    browser: Browser, stack: Stack, screenshot_dir: Path, metrics: Metrics
) -> Iterator[Callable[[str], WalletPage]]:
    """Open a browser context with the test wallet of dev key `key` (closed after the test)."""
    opened: list[BrowserContext] = []

    def open_wallet(key: str, width: int = 1100, height: int = 800) -> WalletPage:
        address = Account.from_key(key).address
        context = browser.new_context(viewport={"width": width, "height": height})
        opened.append(context)
        page_wallet = WalletPage(
            context, context.new_page(), address, stack, screenshots=screenshot_dir, metrics=metrics
        )

        def rpc(method: str, params: list[Any]) -> dict[str, Any]:
            if method in PROMPTS:
                page_wallet.prompts.append(method)
            if method in page_wallet.rejects:
                return {"error": {"code": 4001, "message": "User rejected the request."}}
            if method in ("eth_requestAccounts", "eth_accounts"):
                return {"result": [address]}
            if method == "personal_sign" and params[1].lower() != address.lower():
                return {"error": {"code": 4100, "message": "not this wallet's account"}}
            out = httpx.post(
                stack.rpc_url,
                json={"jsonrpc": "2.0", "id": 1, "method": method, "params": params},
                timeout=30,
            ).json()
            return {"error": out["error"]} if "error" in out else {"result": out["result"]}

        context.expose_function("__testWalletRpc", rpc)
        context.add_init_script(WALLET_JS)
        page_wallet.page.set_default_timeout(20_000)
        return page_wallet

    yield open_wallet
    for context in opened:
        context.close()


def transfer_card(stack: Stack, sender: str, to: str, game: str, card_id: str, copies: int) -> None:
    """`sender` (an Anvil dev account) sends copies of a card to `to` with ERC-1155
    safeTransferFrom, signed by Anvil itself (eth_sendTransaction)."""
    from web3 import Web3

    from ledger.chain.deployment import Deployment
    from ledger.devstack.deploy import contract
    from ledger.protocol.tokenids import token_id

    deployment = Deployment.load(stack.data / "deployment.json")
    w3 = Web3(Web3.HTTPProvider(stack.rpc_url))
    token = contract(w3, deployment, "CardToken")
    data = token.encode_abi("safeTransferFrom", [sender, to, token_id(game, card_id), copies, b""])
    tx = stack.rpc(
        "eth_sendTransaction", {"from": sender, "to": deployment.card_token, "data": data}
    )
    receipt = w3.eth.wait_for_transaction_receipt(tx)
    assert receipt["status"] == 1


def save_starter_deck(w: WalletPage, game: str, which: int = 1) -> str:
    """Build `game`'s starter deck `which` (1 or 2) in the deck builder, save it; its id."""
    w.goto(f"/deck-builder?game={game}")
    w.page.get_by_role("button", name=f"Start from starter deck {which}").click()
    w.page.wait_for_selector("#deck-rules [data-ok='1']")
    w.page.click("#save-deck")
    w.page.wait_for_selector("text=Deck (reopened)")
    return w.page.url.split("deck=")[1]


def click_move(w: WalletPage) -> None:
    """Click the first legal action the page offers (not a position change) and wait for the
    updated board (the page records the click's time to it); fails on an error message."""
    before = w.page.evaluate("() => window.__metaledger.moves.length")
    # MetaMasters (ruleset 2) sets no limit on position changes: always clicking the first legal
    # action would switch one Actor back and forth for ever
    # a pushed update may redraw the moves between finding a button and clicking it: find again
    for attempt in range(50):
        buttons = w.page.query_selector_all("#actions button.move:not([disabled])")
        try:
            if not buttons:
                raise PlaywrightError("no enabled move yet")
            chosen = next(
                (
                    b
                    for b in buttons
                    if not (b.get_attribute("data-action") or "").startswith('["position"')
                ),
                buttons[0],
            )
            chosen.click(timeout=2000)
            break
        except PlaywrightError:
            if attempt == 49:
                raise
            w.page.wait_for_timeout(20)
    w.page.wait_for_function(
        "(n) => window.__metaledger.moves.length > n || document.querySelector('.message.error:not([hidden])')",
        arg=before,
    )
    error = w.page.query_selector(".message.error:not([hidden])")
    assert error is None, error.inner_text()


def record_moves(w: WalletPage, game: str) -> None:
    """Move the page's click-to-board times (and API round trips) into the session's metrics."""
    if w.metrics is not None:
        moves = w.page.evaluate("() => window.__metaledger.moves.splice(0)")
        fetches = w.page.evaluate("() => window.__metaledger.fetches.splice(0)")
        phases = w.page.evaluate("() => window.__metaledger.phases.splice(0)")
        w.metrics.move_to_board_ms.setdefault(game, []).extend(moves)
        w.metrics.move_api_ms.setdefault(game, []).extend(fetches)
        w.metrics.move_phases_ms.setdefault(game, []).extend(phases)


def play_by_clicking(w: WalletPage, game: str, max_moves: int = 3000) -> int:
    """Click the first legal action until the match ends; the number of clicks."""
    clicks = 0
    while clicks < max_moves:
        w.page.wait_for_selector("#actions button.move, #result h2", state="attached")
        if w.page.query_selector("#result h2"):
            break
        if w.page.query_selector("#actions button.move:not([disabled])") is None:
            w.page.wait_for_timeout(20)
            continue
        click_move(w)
        clicks += 1
    assert w.page.query_selector("#result h2"), f"no result after {clicks} clicks"
    record_moves(w, game)
    return clicks
