"""Collection (every card in every game, copies, filters; a transfer shows within 5 s) and the
deck builder (live deck-rule messages, save with ownership checked, list, reopen)."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest
from eth_account import Account

from engine import get_game
from ledger.devstack.demo import DEMO_KEYS
from tests.web.conftest import WalletPage, transfer_card

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_collection_lists_every_game_filters_and_updates_after_a_transfer(
    wallet: Callable[[str], WalletPage],
) -> None:
    w = wallet(DEMO_KEYS[0])
    w.goto("/collection")
    w.sign_in()
    w.page.wait_for_selector("#collection li.card")
    games = {
        c.split(":")[0]
        for c in w.page.eval_on_selector_all(
            "#collection li.card", "els => els.map(e => e.dataset.card)"
        )
    }
    assert games == {"metax", "metamasters", "metaversus"}
    deck = get_game("metax").required_tokens(dict(get_game("metax").starter_decks[0]))
    card, copies = sorted(deck.items())[0]
    assert w.page.get_attribute(f"li[data-card='metax:{card}']", "data-copies") == str(copies)
    # each card's face: its SVG from this origin, loaded and drawn
    face = w.page.wait_for_selector(f"li[data-card='metax:{card}'] img.face")
    assert (face.get_attribute("src") or "").startswith("/cards/")
    w.page.wait_for_function(
        "(img) => img.complete && img.naturalWidth === 300", arg=face, timeout=5_000
    )
    w.shot("collection")
    # updates are pushed (the wallet's event stream), the collection is not polled
    w.page.wait_for_selector("#collection[data-updates='pushed']")
    reads: list[str] = []
    w.page.on(
        "request", lambda r: reads.append(r.url) if f"/wallets/{w.address}/cards" in r.url else None
    )

    w.page.select_option("#filter-game", "metamasters")
    w.page.select_option("#filter-kind", "token")
    shown = w.page.eval_on_selector_all(
        "#collection li.card", "els => els.map(e => e.dataset.card)"
    )
    assert shown and all(c.startswith("metamasters:MM-T") for c in shown)
    w.page.select_option("#filter-game", "")
    w.page.select_option("#filter-kind", "")

    # another wallet sends one more copy: once it lands, the page shows it within 5 s, no reload
    sender = Account.from_key(DEMO_KEYS[2]).address
    transfer_card(w.stack, sender, w.address, "metax", card, 1)
    started = time.monotonic()  # the transfer has landed: its receipt is in
    w.page.wait_for_selector(
        f"li[data-card='metax:{card}'][data-copies='{copies + 1}']", timeout=5_000
    )
    assert time.monotonic() - started < 5
    assert reads == [], f"the page polled the collection: {reads}"


def test_build_check_save_list_and_reopen_a_deck(wallet: Callable[[str], WalletPage]) -> None:
    w = wallet(DEMO_KEYS[1])
    w.goto("/deck-builder?game=metamasters")
    w.sign_in()
    w.page.wait_for_selector("#deck-pool li")
    first = w.page.get_attribute("#deck-pool li", "data-card")
    w.page.click(f"#deck-pool li[data-card='{first}'] button")
    # the engine's deck-building messages, live
    w.page.wait_for_selector("#deck-rules [data-ok='0']")
    assert "metamasters.deck" in (
        w.page.get_attribute("#deck-rules li[data-rule]", "data-rule") or ""
    )
    w.page.get_by_role("button", name="Start from starter deck 2").click()
    w.page.wait_for_selector("#deck-rules [data-ok='1']")
    w.shot("deck-builder")
    w.page.click("#save-deck")
    w.page.wait_for_selector("text=Deck saved: ownership checked at block")
    w.page.wait_for_selector("text=Deck (reopened)")
    deck_id = w.page.url.split("deck=")[1]
    w.page.wait_for_selector(f"#saved-decks li[data-deck='{deck_id}']")
    # reopen from the list in a fresh load
    w.goto("/deck-builder?game=metamasters")
    w.page.click(f"#saved-decks li[data-deck='{deck_id}'] a:text('Open')")
    w.page.wait_for_selector("text=Deck (reopened)")
    starter = get_game("metamasters").starter_decks[1]
    assert w.page.inner_text("#deck-count") == f"{sum(starter.values())} cards"

    # a deck of cards the wallet does not hold: the API's problem+json, as a clear message
    w.page.get_by_role("button", name="Start from starter deck 1").click()
    w.page.wait_for_selector("#deck-rules [data-ok='1']")
    w.page.click("#save-deck")
    message = w.page.wait_for_selector(".message.error")
    text = message.inner_text()
    assert "needed" in text and "held" in text and "{" not in text
