"""Deck commitments."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path

from api import present, schemas
from api.deps import Caller, Ctx, run
from api.metrics import DECKS
from ledger.decks import service as decks
from ledger.errors import MetaLedgerError

router = APIRouter(prefix="/decks", tags=["decks"])


@router.post("", response_model=schemas.DeckOut, status_code=201)
def register(body: schemas.DeckIn, ctx: Ctx, caller: Caller) -> schemas.DeckOut:
    """Check a deck (rules, then ownership at a pinned block with one balanceOfBatch, then copies
    free of your other live matches) and store its commitment."""
    try:
        row = run(ctx, lambda db: decks.register_deck(db, ctx, caller, body.game, body.cards))
    except MetaLedgerError as exc:
        DECKS.labels(exc.slug).inc()
        raise
    DECKS.labels("ok").inc()
    return present.deck(row)


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
