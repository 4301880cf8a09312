"""Play by clicking: a whole match against the bot in each of the three games (the page does
the seed commit-reveal, shows the board and the legal actions, the log and the turn timer,
then the result while it waits for anchoring), and a match between two wallets in two browser
contexts."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from ledger.devstack.demo import DEMO_KEYS
from tests.web.conftest import (
    WalletPage,
    click_move,
    play_by_clicking,
    record_moves,
    save_starter_deck,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]

#: what each game's board must show (data-stat / data-zone of the page)
BOARD_PARTS = {
    "metax": [
        "[data-stat='mp']",
        "[data-stat='vp']",
        "[data-side='me'] [data-zone='hand']",
        "[data-zone='characters']",
    ],
    "metamasters": [
        "[data-stat='tokens']",
        "[data-side='me'] [data-zone='hand']",
        "[data-zone='actors']",
    ],
    "metaversus": ["[data-stat='hp']", "[data-stat='stars']", "[data-zone='market']"],
}


@pytest.mark.parametrize("game", ["metax", "metamasters", "metaversus"])
def test_a_whole_match_against_the_bot_by_clicking(
    wallet: Callable[[str], WalletPage], game: str
) -> None:
    w = wallet(DEMO_KEYS[0])
    w.goto("/")
    w.sign_in()
    deck = save_starter_deck(w, game)
    w.goto(f"/play?deck={deck}")
    w.page.select_option("#new-opponent", "bot:greedy" if game == "metax" else "bot:random")
    w.page.click("#create-match")
    w.page.wait_for_selector("#board .board")  # committed, revealed, started: the page did it
    assert w.page.locator("#board .board").get_attribute("data-game") == game
    for part in BOARD_PARTS[game]:
        assert w.page.query_selector(f"#board {part}"), part
    # the opponent's hand is never on the page
    assert not w.page.query_selector("#board [data-side='them'] [data-zone='hand']")
    w.page.wait_for_selector("#turn-timer:has-text('left for')")
    w.shot(f"play-{game}")
    signed_before = w.prompts.count("eth_signTypedData_v4")
    reads: list[str] = []
    w.page.on(
        "request",
        lambda r: reads.append(r.url) if r.method == "GET" and "/view" in r.url else None,
    )
    clicks = play_by_clicking(w, game)
    assert clicks > 3
    # the board after a move is the POST's answer: the stream's echo of the move and of the
    # bot's replies causes no re-read (it used to: one GET /view per move)
    assert len(reads) <= 2 + clicks // 10, (len(reads), clicks)
    # one wallet prompt for the match (the seat authorization), none per move: the page's
    # session key signed every move, and the page checked each operator receipt
    assert signed_before == 1 and w.prompts.count("eth_signTypedData_v4") == 1, w.prompts
    w.page.wait_for_function(
        "() => Number(document.querySelector('#receipts').dataset.checked) >= 4"
    )
    assert w.page.locator("#log li").count() >= clicks
    assert "Result:" in w.page.inner_text("#result h2")
    w.page.wait_for_selector("#anchored", timeout=60_000)
    if game == "metax":
        w.shot("play-result")


def test_a_match_between_two_wallets_in_two_browser_contexts(
    wallet: Callable[[str], WalletPage],
) -> None:
    a, b = wallet(DEMO_KEYS[0]), wallet(DEMO_KEYS[1])
    for w in (a, b):
        w.goto("/")
        w.sign_in()
    deck_a, _deck_b = save_starter_deck(a, "metax", 1), save_starter_deck(b, "metax", 2)
    a.goto(f"/play?deck={deck_a}")
    a.page.select_option("#new-opponent", "open")
    a.page.click("#create-match")
    link = a.page.wait_for_selector("#join-link").get_attribute("value")
    assert link and "/play?match=0x" in link
    a.shot("play-open")
    b.page.goto(link)
    b.page.wait_for_selector("#join-match")
    b.page.click("#join-match")
    for w in (a, b):
        w.page.wait_for_selector("#board .board", timeout=30_000)
    clicks = 0
    while clicks < 3000:
        done = [w.page.query_selector("#result h2") for w in (a, b)]
        if all(done):
            break
        mover = next(
            (w for w in (a, b) if w.page.query_selector("#actions button.move:not([disabled])")),
            None,
        )
        if mover is None:
            a.page.wait_for_timeout(50)
            continue
        click_move(mover)
        clicks += 1
    for w in (a, b):
        record_moves(w, "metax, two wallets (no bot)")
    texts = [w.page.inner_text("#result h2") for w in (a, b)]
    assert sorted(texts)[0].startswith("Result: you lost") or "draw" in texts[0], texts
    assert any("you won" in t for t in texts) or all("draw" in t for t in texts)
    # each saw the other's moves in its log, labelled as the opponent's
    assert a.page.locator("#log li:has-text('player 2')").count() > 0
    assert b.page.locator("#log li:has-text('player 1')").count() > 0


def test_resign_from_the_page_loses_the_match(wallet: Callable[[str], WalletPage]) -> None:
    w = wallet(DEMO_KEYS[2])
    w.goto("/")
    w.sign_in()
    deck = save_starter_deck(w, "metaversus", 2)
    w.goto(f"/play?deck={deck}")
    w.page.select_option("#new-opponent", "bot:random")
    w.page.click("#create-match")
    w.page.wait_for_selector("#board .board")
    click_move(w)
    w.page.once("dialog", lambda dialog: dialog.accept())
    w.page.click("#resign")
    w.page.wait_for_selector("#result h2:has-text('you lost (resign)')")
    assert w.page.query_selector("#anchoring, #anchored")
    assert not w.page.query_selector("#actions button.move")
