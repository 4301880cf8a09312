"""Deck commitments."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Response
from fastapi.concurrency import run_in_threadpool

from api import present, schemas
from api.deps import Caller, Ctx, Token, run, run_hot
from api.hotroute import HotRoute
from api.metrics import DECKS
from ledger.auth import service as auth
from ledger.db import Transaction
from ledger.decks import service as decks
from ledger.errors import MetaLedgerError

router = APIRouter(prefix="/decks", tags=["decks"])
#: the registration, served by a lean handler (api.hotroute) like the play loop's routes
hot = APIRouter(prefix="/decks", tags=["decks"], route_class=HotRoute)


@hot.post("", response_model=schemas.DeckOut, status_code=201)
async def register(body: schemas.DeckIn, ctx: Ctx, token: Token) -> Response:
    """Check a deck (rules, then ownership at a pinned block with one balanceOfBatch, then copies
    free of your other live matches) and store its commitment."""

    def claims(db: Transaction) -> tuple[str, decks.DeckPlan, decks.Claims]:
        caller = auth.authenticate(db, token, ctx)
        plan = decks.plan_deck(body.game, body.cards)
        return caller, plan, decks.claims_on(db, plan, caller)

    # the short local transactions run on the event loop's thread (like a move), lean units of
    # prepared statements; only the chain reads (the head when its TTL is over, the pinned
    # balanceOfBatch shared with concurrent registrations) wait in a worker thread, outside any
    # transaction
    try:
        caller, plan, claimed = run_hot(ctx, claims, write=False)
        pin = ctx.chain.cached_head()
        if pin is None:
            pin = await run_in_threadpool(ctx.chain.head)
        held = await run_in_threadpool(decks.check_ownership, ctx, plan, claimed, caller, pin)
        row = run_hot(ctx, lambda db: decks.store_deck(db, plan, caller, held, pin))
    except MetaLedgerError as exc:
        DECKS.labels(exc.slug).inc()
        raise
    DECKS.labels("ok").inc()
    # serialised once from the row, skipping FastAPI's re-validation of the answer
    return Response(
        present.deck(row).model_dump_json(), status_code=201, media_type="application/json"
    )


@router.post("/check", response_model=schemas.DeckCheckOut)
def check(body: schemas.DeckIn, caller: Caller) -> schemas.DeckCheckOut:
    """Check a deck against the game's deck-building rules only, storing nothing (the deck
    builder's live messages); ownership is checked when you save it with POST /decks."""
    return schemas.DeckCheckOut.model_validate(decks.check_deck(body.game, body.cards))


@router.get("", response_model=list[schemas.DeckOut])
def mine(ctx: Ctx, caller: Caller) -> list[schemas.DeckOut]:
    """Your deck commitments, newest first."""
    return [present.deck(r) for r in run(ctx, lambda db: decks.decks_of(db, caller), write=False)]


@router.get("/{deck_id}", response_model=schemas.DeckOut)
def one(deck_id: Annotated[str, Path(max_length=36)], ctx: Ctx, caller: Caller) -> schemas.DeckOut:
    """One of your deck commitments."""
    return present.deck(run(ctx, lambda db: decks.get_deck(db, deck_id, caller), write=False))
