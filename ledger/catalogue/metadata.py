"""ERC-1155 metadata of every card design: the JSON `CardToken.uri(id)` resolves to, with the
card's name, its printed text as the description, its SVG card face as the image, and its
properties (game, kind, stats, edition size), in the ERC-1155 metadata JSON schema and the
marketplace conventions built on it (`attributes` as trait_type / value pairs)."""

from __future__ import annotations

import re
from typing import Any

from sqlmodel import Session

from ledger.catalogue import repository as repo
from ledger.catalogue.faces import card_face, card_stats
from ledger.catalogue.service import load_game
from ledger.chain.exchange import max_supply
from ledger.db.models import CardDesign
from ledger.errors import InvalidInput, NotFound
from ledger.protocol.tokenids import image_url, metadata_id
from ledger.runtime.context import Context

_METADATA_ID = re.compile(r"[0-9a-fA-F]{64}")
#: edition sizes read from CardToken; set once per id, so a size once read never changes
_EDITION_SIZES: dict[str, int] = {}


def design_of(db: Session, hex_id: str) -> CardDesign:
    """The card design of a token id in the metadata `{id}` form (64 hex digits, no 0x);
    InvalidInput for another form, NotFound for an id outside the catalogue."""
    if _METADATA_ID.fullmatch(hex_id) is None:
        raise InvalidInput("the id must be 64 hex digits without 0x (ERC-1155 {id})", field="id")
    design = repo.card_design(db, "0x" + hex_id.lower())
    if design is None:
        raise NotFound(f"no card design has token id 0x{hex_id.lower()}")
    return design


def edition_size(ctx: Context, token_id: str) -> int | None:
    """The card's edition size on CardToken (None while the publisher has set none)."""
    if token_id in _EDITION_SIZES:
        return _EDITION_SIZES[token_id]
    size = max_supply(ctx.chain.rpc, ctx.chain.addresses.card_token, int(token_id, 16))
    if size == 0:
        return None
    _EDITION_SIZES[token_id] = size
    return size


def description(design: CardDesign, game_title: str) -> str:
    """The card's printed text, or (for a card printed without text) what it is."""
    text = str(design.data.get("text") or "").strip()
    if text:
        return text
    stats = ", ".join(f"{k} {v}" for k, v in card_stats(design.data).items())
    return f"{design.name}: a {design.kind or 'card'} of {game_title}" + (
        f" ({stats})." if stats else "."
    )


def card_metadata(db: Session, ctx: Context, hex_id: str) -> dict[str, Any]:
    """The ERC-1155 metadata JSON of a card design."""
    design = design_of(db, hex_id)
    game = load_game(design.game)
    base = ctx.settings.resolved_public_base_url
    value = int(design.token_id, 16)
    stats = card_stats(design.data)
    size = edition_size(ctx, design.token_id)
    properties: dict[str, Any] = {
        "game": design.game,
        "game_title": game.title,
        "card_id": design.card_id,
        "kind": design.kind,
        "stats": stats,
        "edition_size": size,
        "catalogue_hash": design.catalogue_hash,
    }
    attributes: list[dict[str, Any]] = [
        {"trait_type": "Game", "value": game.title},
        {"trait_type": "Kind", "value": design.kind},
        *({"trait_type": k, "value": v} for k, v in stats.items()),
    ]
    if size is not None:
        attributes.append({"trait_type": "Edition size", "value": size, "display_type": "number"})
    return {
        "name": design.name,
        "description": description(design, game.title),
        "image": image_url(base, value),
        "external_url": f"{base}/games/{design.game}/cards",
        "decimals": 0,
        "properties": properties,
        "attributes": attributes,
        "id": metadata_id(value),
    }


def card_image(db: Session, hex_id: str) -> str:
    """The SVG card face of a card design."""
    design = design_of(db, hex_id)
    return card_face(
        design.game,
        load_game(design.game).title,
        design.card_id,
        design.name,
        design.kind,
        design.data,
    )
