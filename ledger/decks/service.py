"""Deck commitments: deck rules (engine) -> ownership at a pinned block (one balanceOfBatch)
-> copies free of the owner's other live matches and of other wallets' live matches (copies
received from a wallet whose started match holds them, see `received`) -> a stored commitment."""

from __future__ import annotations

import uuid
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlmodel import Session

from engine import Game
from ledger.catalogue.service import load_game, token_ids
from ledger.chain.transport import BlockRef
from ledger.db import DB
from ledger.db.models import DeckCommitment, utcnow
from ledger.decks import repository as repo
from ledger.decks.received import Holds, copies_received, started_holds
from ledger.errors import CopiesCommitted, DeckRejected, Forbidden, InvalidInput, NotFound, NotOwned
from ledger.protocol.decks import canonical_cards, deck_hash
from ledger.protocol.hexcodec import uint256_hex
from ledger.runtime.context import Context


def live_requirements(
    db: DB, game: Game, owner: str, exclude_match: str | None = None
) -> Counter[str]:
    """card id -> copies `owner` has committed to live matches of `game`."""
    total: Counter[str] = Counter()
    for cards in repo.live_seat_cards(db, owner, game=game.name, exclude_match=exclude_match):
        total.update(game.required_tokens(cards))
    return total


def shortfalls(
    required: Mapping[str, int],
    held: Mapping[str, int],
    committed: Mapping[str, int],
    ids: Mapping[str, int],
    received: Mapping[str, Mapping[str, int]] | None = None,
) -> list[dict[str, Any]]:
    """Every card where needed + committed elsewhere + copies other wallets' live matches hold
    (`received`: card -> {match id: copies}) > held, with the figures."""
    out = []
    for card, needed in sorted(required.items()):
        have = held.get(card, 0)
        other = committed.get(card, 0)
        holding = dict((received or {}).get(card, {}))
        if needed + other + sum(holding.values()) > have:
            entry: dict[str, Any] = {
                "card": card,
                "token_id": uint256_hex(ids[card]) if card in ids else None,
                "needed": needed,
                "held": have,
                "committed_elsewhere": other,
            }
            if holding:
                entry["held_by_matches"] = [
                    {"match_id": m, "copies": n} for m, n in sorted(holding.items())
                ]
            out.append(entry)
    return out


def refuse_held_elsewhere(short: list[dict[str, Any]], pin: BlockRef) -> None:
    """CopiesCommitted naming the card and the match holding it, if copies another wallet's
    live match holds are what the shortfall comes to (a plain shortfall is the caller's)."""
    held = [
        e
        for e in short
        if e.get("held_by_matches") and e["needed"] + e["committed_elsewhere"] <= e["held"]
    ]
    if held:
        first = held[0]
        raise CopiesCommitted(
            f"{first['card']} copies were received from a wallet whose live match "
            f"{first['held_by_matches'][0]['match_id']} holds them; they are free once it ends "
            f"({len(held)} card(s), balances as of block {pin.number})",
            cards=held,
            block_number=pin.number,
            block_hash=pin.hash,
        )


def rule_violations(
    game: Game, cards: Mapping[str, int], options: Mapping[str, Any] | None = None
) -> list[dict[str, Any]]:
    """Every deck-building rule of the game the deck breaks: [{rule, message, card}]."""
    found = game.check_deck(cards, {**game.default_options, **(options or {})})
    return [{"rule": v.rule, "message": v.message, "card": v.card} for v in found]


def check_rules(
    game: Game, cards: Mapping[str, int], options: Mapping[str, Any] | None = None
) -> None:
    """The game's deck-building rules; DeckRejected listing every violation."""
    violations = rule_violations(game, cards, options)
    if violations:
        raise DeckRejected(
            f"the deck breaks {len(violations)} deck-building rule(s) of {game.name}",
            violations=violations,
        )


def check_deck(game_name: str, cards: Mapping[str, Any]) -> dict[str, Any]:
    """A deck checked against the game's deck-building rules only, nothing stored (the deck
    builder's live messages): its canonical form, hash, the tokens it needs and every violation."""
    game = load_game(game_name)
    deck = canonical_cards(cards)
    violations = rule_violations(game, deck)
    ids = token_ids(game.name)
    return {
        "game": game.name,
        "ok": not violations,
        "cards": deck,
        "deck_hash": deck_hash(game.name, deck),
        "required": {c: n for c, n in game.required_tokens(deck).items() if n > 0 and c in ids},
        "violations": violations,
    }


def read_holdings(
    ctx: Context, owners_needs: Iterable[tuple[str, Mapping[str, int]]], game: str, pin: BlockRef
) -> list[dict[str, int]]:
    """For each (owner, required) pair, the owner's balances of those cards at `pin` — all in
    ONE balanceOfBatch call."""
    ids = token_ids(game)
    pairs = list(owners_needs)
    owners: list[str] = []
    tokens: list[int] = []
    for owner, required in pairs:
        for card in required:
            if card not in ids:
                raise InvalidInput(f"card {card!r} is not in the {game} catalogue", field="cards")
            owners.append(owner)
            tokens.append(ids[card])
    balances = ctx.chain.balances(owners, tokens, pin)
    out: list[dict[str, int]] = []
    i = 0
    for _owner, required in pairs:
        held = {}
        for card in required:
            held[card] = balances[i]
            i += 1
        out.append(held)
    return out


@dataclass(frozen=True)
class DeckPlan:
    """A deck that passed the game's rules: its canonical list, hash and the tokens it needs."""

    game: Game
    cards: dict[str, int]
    required: dict[str, int]
    deck_hash: str


@dataclass(frozen=True)
class Claims:
    """What the database says other live matches claim of a deck's cards."""

    committed: Counter[str]
    holds: Holds


def plan_deck(game_name: str, cards: Mapping[str, Any]) -> DeckPlan:
    """A deck checked against the game's rules (DeckRejected, InvalidInput), in canonical form."""
    game = load_game(game_name)
    deck = canonical_cards(cards)
    check_rules(game, deck)
    required = {c: n for c, n in game.required_tokens(deck).items() if n > 0}
    ids = token_ids(game.name)
    for card in required:
        if card not in ids:
            raise InvalidInput(f"card {card!r} is not in the {game.name} catalogue", field="cards")
    return DeckPlan(game, deck, required, deck_hash(game.name, deck))


def claims_on(db: DB, plan: DeckPlan, owner: str) -> Claims:
    """The copies `owner` has committed to live matches and the holds of other wallets' started
    matches on the deck's cards (database reads only)."""
    return Claims(
        live_requirements(db, plan.game, owner), started_holds(db, plan.game, plan.required)
    )


def check_ownership(
    ctx: Context, plan: DeckPlan, claims: Claims, owner: str, pin: BlockRef
) -> dict[str, int]:
    """The owner's balances of the deck's cards at `pin` (one pinned balanceOfBatch, shared with
    concurrent reads); NotOwned or CopiesCommitted if they do not cover the deck free of other
    live matches (chain reads only)."""
    (held,) = read_holdings(ctx, [(owner, plan.required)], plan.game.name, pin)
    received = copies_received(ctx, claims.holds, owner, pin)
    short = shortfalls(plan.required, held, claims.committed, token_ids(plan.game.name), received)
    refuse_held_elsewhere(short, pin)
    if short:
        raise NotOwned(
            f"{owner} does not hold {len(short)} of the deck's cards free of other live matches at block {pin.number}",
            cards=short,
            block_number=pin.number,
            block_hash=pin.hash,
        )
    return held


def store_deck(
    db: DB, plan: DeckPlan, owner: str, held: Mapping[str, int], pin: BlockRef
) -> DeckCommitment:
    """Store the commitment of a checked deck."""
    row = DeckCommitment(
        id=str(uuid.uuid4()),
        owner=owner,
        game=plan.game.name,
        ruleset_version=plan.game.ruleset_version,
        deck_hash=plan.deck_hash,
        cards=plan.cards,
        required=plan.required,
        held=dict(held),
        block_number=pin.number,
        block_hash=pin.hash,
        created_at=utcnow(),
    )
    repo.add_deck(db, row)
    return row


def register_deck(
    db: Session, ctx: Context, owner: str, game_name: str, cards: Mapping[str, Any]
) -> DeckCommitment:
    """Check and store a deck commitment for `owner` in one transaction (see the module
    docstring for the order; the API runs the same steps with the chain reads outside it)."""
    plan = plan_deck(game_name, cards)
    claims = claims_on(db, plan, owner)
    pin = ctx.chain.head()
    held = check_ownership(ctx, plan, claims, owner, pin)
    return store_deck(db, plan, owner, held, pin)


def get_deck(db: Session, deck_id: str, owner: str | None = None) -> DeckCommitment:
    """A deck commitment; NotFound, or Forbidden if `owner` is given and is not its owner."""
    deck = repo.get_deck(db, deck_id)
    if deck is None:
        raise NotFound(f"no deck {deck_id!r}")
    if owner is not None and deck.owner != owner:
        raise Forbidden("this deck belongs to another wallet")
    return deck


def decks_of(db: Session, owner: str) -> Sequence[DeckCommitment]:
    """The newest deck commitments of `owner`."""
    return repo.decks_of(db, owner)
