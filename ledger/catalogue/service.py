"""Games and card designs (from the engine's catalogues, with ERC-1155 token ids) and collections."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from sqlmodel import Session

from engine import Game, game_names, get_game
from ledger.catalogue import repository as repo
from ledger.db.models import CardDesign
from ledger.errors import ConfigurationError, NotFound
from ledger.protocol.addresses import parse_address
from ledger.protocol.tokenids import image_url, metadata_url, token_id, token_id_hex
from ledger.runtime.context import Context


def load_game(name: str) -> Game:
    """The engine's game `name`; NotFound for a name the engine does not host, and
    ConfigurationError for a hosted game that does not load (a broken installation)."""
    if name not in game_names():
        raise NotFound(f"no game {name!r}; known: {', '.join(game_names())}")
    try:
        return get_game(name)
    except Exception as exc:  # any import or catalogue error of the game's package
        raise ConfigurationError(f"game {name!r} does not load: {exc!r}") from exc


def available_games() -> list[Game]:
    """Every game the engine hosts (ConfigurationError naming a game that does not load)."""
    return [load_game(name) for name in game_names()]


@lru_cache(maxsize=16)
def token_ids(game: str) -> dict[str, int]:
    """card id -> token id for every card of `game`."""
    return {str(card["id"]): token_id(game, str(card["id"])) for card in get_game(game).cards}


@lru_cache(maxsize=16)
def card_positions(game: str) -> dict[str, int]:
    """card id -> the card's position in the engine catalogue of `game`."""
    return {str(card["id"]): i for i, card in enumerate(get_game(game).cards)}


def sync_card_designs(db: Session) -> int:
    """Store every game's catalogue as card designs (replacing a game whose catalogue changed).
    Returns how many rows were written."""
    stored = repo.card_design_hashes(db)
    written = 0
    for game in available_games():
        if stored.get(game.name) == game.catalogue_hash:
            continue
        if game.name in stored:
            repo.delete_card_designs(db, game.name)
        rows = [
            CardDesign(
                token_id=token_id_hex(game.name, str(card["id"])),
                game=game.name,
                card_id=str(card["id"]),
                name=str(card.get("name", card["id"]))[:200],
                kind=str(card.get("kind", ""))[:64],
                catalogue_hash=game.catalogue_hash,
                data=dict(card),
            )
            for card in game.cards
        ]
        repo.add_card_designs(db, rows)
        written += len(rows)
    return written


@dataclass(frozen=True)
class Holding:
    """A card held by a wallet."""

    game: str
    card_id: str
    name: str
    token_id: str
    balance: int


def collection(
    db: Session, ctx: Context, address: str, game: str | None = None, source: str = "auto"
) -> tuple[int, str, list[Holding]]:
    """The cards `address` holds: from the indexer's balances when it has run (`source` "auto"
    or "indexer"), else one balanceOfBatch over every design at the latest block ("chain").
    Returns (block number, source used, holdings with a positive balance). A mixed-case
    address with a wrong EIP-55 checksum is refused (InvalidInput naming `address`)."""
    owner = parse_address(address, "address")
    if game:
        load_game(game)
    if source != "chain":
        block = repo.indexer_block(db, ctx.chain.addresses.card_token)
        if block is not None:
            rows = repo.indexed_holdings(db, owner, game)
            return (
                block,
                "indexer",
                [Holding(d.game, d.card_id, d.name, d.token_id, n) for d, n in rows],
            )
        if source == "indexer":
            raise NotFound("the indexer has not run yet; ask with source=chain", reason="no-index")
    designs = repo.card_designs(db, game) if game else repo.all_card_designs(db)
    pin = ctx.chain.head()
    balances = ctx.chain.balances(
        [owner] * len(designs), [int(d.token_id, 16) for d in designs], pin
    )
    return (
        pin.number,
        "chain",
        [
            Holding(d.game, d.card_id, d.name, d.token_id, b)
            for d, b in zip(designs, balances, strict=True)
            if b > 0
        ],
    )


def card_links(base_url: str, token_id_hex: str) -> dict[str, str]:
    """A card's ERC-1155 metadata URL (what `CardToken.uri(id)` resolves to) and its face."""
    value = int(token_id_hex, 16)
    return {"metadata_url": metadata_url(base_url, value), "image_url": image_url(base_url, value)}


def game_summary(game: Game) -> dict[str, Any]:
    """The public description of a game."""
    return {
        "name": game.name,
        "title": game.title,
        "ruleset_version": game.ruleset_version,
        "catalogue_hash": game.catalogue_hash,
        "cards": len(game.cards),
        "default_options": dict(game.default_options),
        "option_schema": dict(game.option_schema),
        "starter_decks": [dict(d) for d in game.starter_decks],
    }


def cards(db: Session, game: str) -> Sequence[CardDesign]:
    """The card designs of `game` by card id (NotFound for an unknown game)."""
    load_game(game)
    return repo.card_designs(db, game)
