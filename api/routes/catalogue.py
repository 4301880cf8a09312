"""Games, their card catalogues (with token ids), and wallet collections."""

from __future__ import annotations

from dataclasses import asdict
from typing import Annotated

from fastapi import APIRouter, Path, Query

from api import ratelimit, schemas
from api.deps import Ctx, run
from ledger.catalogue import service as catalogue
from ledger.protocol.addresses import parse_address
from ledger.runtime.context import Context

router = APIRouter(tags=["catalogue"], dependencies=[ratelimit.PUBLIC])


@router.get("/games", response_model=list[schemas.GameOut])
def games() -> list[schemas.GameOut]:
    """Every game the engine hosts."""
    return [schemas.GameOut(**catalogue.game_summary(g)) for g in catalogue.available_games()]


@router.get("/games/{game}", response_model=schemas.GameOut)
def game(game: Annotated[str, Path(max_length=32)]) -> schemas.GameOut:
    """One game."""
    return schemas.GameOut(**catalogue.game_summary(catalogue.load_game(game)))


@router.get("/games/{game}/cards", response_model=list[schemas.CardOut])
def cards(game: Annotated[str, Path(max_length=32)], ctx: Ctx) -> list[schemas.CardOut]:
    """The game's card designs with their ERC-1155 token ids."""
    rows = run(ctx, lambda db: catalogue.cards(db, game), write=False)
    base = ctx.settings.resolved_public_base_url
    positions = catalogue.card_positions(game)
    return [
        schemas.CardOut.model_validate(
            {
                **r.model_dump(),
                **catalogue.card_links(base, r.token_id),
                "index": positions[r.card_id],
            }
        )
        for r in rows
    ]


@router.get("/wallets/{address}/cards", response_model=schemas.CollectionOut)
def collection(
    address: Annotated[str, Path(max_length=42)],
    ctx: Ctx,
    game: Annotated[str | None, Query(max_length=32)] = None,
    source: Annotated[str, Query(pattern="^(auto|indexer|chain)$")] = "auto",
) -> schemas.CollectionOut:
    """The cards a wallet holds: from the indexed balances once the indexer has run (`auto`),
    or read from the chain at the latest block (`chain`)."""
    return collection_of(ctx, parse_address(address, "address"), game, source)


def collection_of(
    ctx: Context, owner: str, game: str | None, source: str = "auto"
) -> schemas.CollectionOut:
    """A wallet's collection as `GET /wallets/{address}/cards` answers it."""
    block, used, holdings = run(
        ctx, lambda db: catalogue.collection(db, ctx, owner, game, source), write=False
    )
    base = ctx.settings.resolved_public_base_url
    return schemas.CollectionOut(
        address=owner,
        block_number=block,
        source=used,
        cards=[
            schemas.HoldingOut.model_validate(
                {**asdict(h), **catalogue.card_links(base, h.token_id)}
            )
            for h in holdings
        ],
    )
