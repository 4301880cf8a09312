"""Sign in with the browser wallet (SIWE), the session survives a reload, sign out; an API
error is shown as a clear message; the pages are usable with the keyboard and at phone width."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from ledger.devstack.demo import DEMO_KEYS
from tests.web.conftest import WalletPage

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_sign_in_survives_a_reload_and_signs_out(wallet: Callable[[str], WalletPage]) -> None:
    w = wallet(DEMO_KEYS[0])
    w.goto("/")
    w.shot("home-signed-out")
    w.sign_in()
    assert w.prompts == ["eth_requestAccounts", "personal_sign"]
    assert "Signed in as" in w.page.inner_text("main")
    w.shot("home")
    w.page.reload()
    w.page.wait_for_selector("main[data-ready]")
    w.page.wait_for_selector(f"[data-address='{w.address}']")  # no new signature asked
    assert w.prompts == ["eth_requestAccounts", "personal_sign"]
    token = w.page.evaluate("() => JSON.parse(localStorage.getItem('metaledger.session')).token")
    w.page.get_by_role("button", name="Sign out").click()
    w.page.wait_for_selector("text=Sign in with Test Wallet")
    assert w.page.evaluate("() => localStorage.getItem('metaledger.session')") is None
    # the API ended the session too
    status = w.page.evaluate(
        "async (t) => (await fetch('/auth/me', {headers: {Authorization: 'Bearer ' + t}})).status",
        token,
    )
    assert status == 401


def test_keyboard_only_and_phone_width(wallet: Callable[[str], WalletPage]) -> None:
    w = wallet(DEMO_KEYS[0], width=375, height=740)
    w.goto("/")
    # sign in and reach the collection with the keyboard alone
    w.page.wait_for_selector("text=Sign in with Test Wallet")
    for _ in range(12):
        w.page.keyboard.press("Tab")
        if (
            w.page.evaluate("() => document.activeElement?.textContent")
            == "Sign in with Test Wallet"
        ):
            break
    w.page.keyboard.press("Enter")
    w.page.wait_for_selector(f"[data-address='{w.address}']")
    w.page.focus("a[href='/collection']")
    w.page.keyboard.press("Enter")
    w.page.wait_for_selector("#collection li.card")
    assert w.page.evaluate("() => location.pathname") == "/collection"
    # nothing wider than the phone's screen
    overflow = w.page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"{overflow}px wider than the screen"
    w.page.keyboard.press("Tab")
    assert w.page.evaluate("() => document.activeElement !== document.body")
    w.shot("collection-phone")
