"""Card metadata: the ERC-1155 metadata JSON `CardToken.uri(id)` resolves to, and the SVG card
face it names as its image (docs/trading.md, "Card metadata")."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path
from fastapi.responses import Response

from api import ratelimit
from api.deps import Ctx, run
from ledger.catalogue import metadata

router = APIRouter(tags=["catalogue"], dependencies=[ratelimit.PUBLIC])

#: an SVG is a document that could run script: this one has none, and may load nothing
SVG_HEADERS = {
    "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; sandbox",
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "public, max-age=300",
}
MetadataId = Annotated[
    str,
    Path(
        pattern=r"^[0-9a-fA-F]{64}$",
        description="the token id as 64 hex digits without 0x (ERC-1155 `{id}`)",
    ),
]


@router.get("/cards/{id}.json")
def card_metadata(id: MetadataId, ctx: Ctx) -> Any:
    """A card's ERC-1155 metadata: name, description (its text), image, properties."""
    return run(ctx, lambda db: metadata.card_metadata(db, ctx, id), write=False)


@router.get(
    "/cards/{id}.svg",
    response_class=Response,
    responses={200: {"content": {"image/svg+xml": {}}, "description": "the card face"}},
)
def card_face(id: MetadataId, ctx: Ctx) -> Response:
    """A card's face as SVG, drawn from the catalogue (its game's frame, name, stats, text)."""
    svg = run(ctx, lambda db: metadata.card_image(db, id), write=False)
    return Response(svg, media_type="image/svg+xml", headers=SVG_HEADERS)
