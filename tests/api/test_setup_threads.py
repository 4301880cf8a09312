"""Where a match's setup runs: create, join, commit and reveal in a unit of work on the event
loop's thread (no thread hop), the last reveal's chain reads (a fresh pin, the decks' balances)
in the thread pool before its transaction, and a unit of work that asks for a chain read run
again, whole, in the thread pool (`api.deps.run_local`)."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import httpx
import pytest
from sqlmodel import Session, select

from api import deps
from api.routes import matches as routes
from engine import get_game
from ledger.chain.deployment import Deployment
from ledger.db.models import Wallet
from ledger.devstack.anvil import AnvilNode
from ledger.matches import service as matches
from tests.api.conftest import PLAYER_KEYS, LiveServer, mint
from tests.api.helpers import commit_and_reveal, register_deck, sign_in

pytestmark = pytest.mark.chain
GAME = "metamasters"


def test_setup_runs_on_the_loop_and_the_start_reads_the_chain_before_its_transaction(
    client: httpx.Client,
    live_api: LiveServer,
    anvil: AnvilNode,
    deployment: Deployment,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    g = get_game(GAME)
    a, b = sign_in(client, PLAYER_KEYS[0]), sign_in(client, PLAYER_KEYS[1])
    decks = [dict(g.starter_decks[0]), dict(g.starter_decks[1])]
    mint(
        anvil,
        deployment,
        {
            p.address: {(GAME, c): n for c, n in g.required_tokens(d).items()}
            for p, d in zip((a, b), decks, strict=True)
        },
    )
    d0, d1 = register_deck(a, GAME, decks[0]), register_deck(b, GAME, decks[1])
    seen: list[tuple[str, threading.Thread]] = []

    def spy(name: str, real: Any) -> Any:
        def call(*args: Any, **kwargs: Any) -> Any:
            seen.append((name, threading.current_thread()))
            return real(*args, **kwargs)

        return call

    for name in ("create_match", "join_match", "commit_seed", "reveal_seed"):
        monkeypatch.setattr(matches, name, spy(name, getattr(matches, name)))
    monkeypatch.setattr(routes, "read_start", spy("read_start", routes.read_start))
    rpc = live_api.chain.rpc
    monkeypatch.setattr(rpc, "_post", spy("chain", rpc._post))

    match = a.post("/matches", {"game": GAME, "deck_id": d0["id"]}).json()
    assert b.post(f"/matches/{match['id']}/join", {"deck_id": d1["id"]}).status_code == 200
    started = commit_and_reveal([a, b], match["id"])

    assert started["status"] == "active" and started["ownership_block"] is not None
    loop = live_api.thread  # uvicorn's event loop runs on the server's thread
    assert [n for n, t in seen if n != "chain" and t is loop] == [
        "create_match",
        "join_match",
        "commit_seed",
        "commit_seed",
        "reveal_seed",
        "reveal_seed",
    ]
    (pinning,) = [t for n, t in seen if n == "read_start"]
    chain_threads = {t for n, t in seen if n == "chain"}
    assert pinning is not loop and chain_threads == {pinning}  # the loop never waited on the node
    # the pin and the balances were read before the last reveal's transaction began
    names = [n for n, _ in seen]
    assert names.index("read_start") < len(names) - 1 - names[::-1].index("reveal_seed")
    assert names[-1] == "reveal_seed"


def test_a_unit_that_reads_the_chain_runs_again_in_the_thread_pool(
    live_api: LiveServer,
) -> None:
    ctx = live_api.app.state.ctx
    tries: list[threading.Thread] = []

    def work(db: Session) -> int:
        tries.append(threading.current_thread())
        db.add(Wallet(address=f"0x{len(tries):040x}"))
        db.flush()
        return ctx.chain.head(fresh=True).number

    async def both() -> tuple[int, threading.Thread]:
        return await deps.run_local(ctx, work), threading.current_thread()

    number, caller = asyncio.run(both())
    assert number == ctx.chain.head(fresh=True).number
    assert len(tries) == 2 and tries[0] is caller and tries[1] is not caller
    wallets = deps.run(ctx, lambda db: list(db.exec(select(Wallet.address)).all()), write=False)
    assert f"0x{1:040x}" not in wallets and f"0x{2:040x}" in wallets  # the first try rolled back
