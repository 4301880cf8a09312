"""The deck a player takes a seat with: the player's own registered deck of the match's game and
ruleset, whose copies, with those of the owner's other live matches, fit in the balances its
registration saw."""

from __future__ import annotations

from sqlmodel import Session

from engine import Game
from ledger.catalogue.service import token_ids
from ledger.db.models import DeckCommitment, Match, MatchSeat
from ledger.decks import repository as decks_repo
from ledger.decks.service import get_deck, live_requirements, shortfalls
from ledger.errors import Conflict, CopiesCommitted, InvalidInput


def check_copies_free(
    db: Session, game: Game, deck: DeckCommitment, exclude_match: str | None = None
) -> None:
    """The deck's copies plus the owner's other live matches fit in what the deck's check saw."""
    decks_repo.lock_wallet(db, deck.owner)
    committed = live_requirements(db, game, deck.owner, exclude_match)
    short = shortfalls(deck.required, deck.held, committed, token_ids(game.name))
    if short:
        raise CopiesCommitted(
            f"{len(short)} of the deck's cards are already committed to your other live matches "
            f"(balances as of block {deck.block_number})",
            cards=short,
            block_number=deck.block_number,
            block_hash=deck.block_hash,
        )


def usable_deck(db: Session, game: Game, deck_id: str, owner: str) -> DeckCommitment:
    """The caller's deck `deck_id`, if it is a deck of `game` checked under its ruleset."""
    deck = get_deck(db, deck_id, owner)
    if deck.game != game.name:
        raise InvalidInput(
            f"deck {deck_id} is a {deck.game} deck, not {game.name}", field="deck_id"
        )
    if deck.ruleset_version != game.ruleset_version:
        raise Conflict(
            f"deck {deck_id} was checked under ruleset {deck.ruleset_version}; register it again"
        )
    return deck


def player_seat(match: Match, seat: int, deck: DeckCommitment) -> MatchSeat:
    """Seat `seat` of `match`, taken by the owner of `deck` with that deck."""
    return MatchSeat(
        match_id=match.id,
        seat=seat,
        address=deck.owner,
        deck_id=deck.id,
        deck_hash=deck.deck_hash,
        cards=dict(deck.cards),
    )
