"""Matches: create (open seat or bot), join, seed commit-reveal, play, resign, turn timeout.

Seeding: the operator commits first (its commit is published when the match is created);
each player then commits `keccak256(secret)` for a 32-byte secret, and reveals the secret
only once every seat has committed. The engine seed is
`uint256(keccak256(operatorSecret ‖ secret0 ‖ secret1))`, so no single party chooses it.

Concurrency: `matches.version` counts applied actions; an action is written with
`UPDATE ... WHERE version = <the version it was validated against>` and each action index is a
primary key, so of two submissions of the same turn exactly one applies (the other gets 409).

Timeouts: whoever must act (commit, reveal, or move) has `turn_timeout_seconds`; after that,
an active match is lost by the idle player (end reason "timeout"), a match still seeding is
cancelled. Deadlines are enforced on every request touching the match and by
`expire_matches` (for a periodic task)."""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from eth_utils import keccak
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm.attributes import set_committed_value
from sqlmodel import Session

from engine import (
    BOT_NAMES,
    CHECKPOINT_EVERY,
    MAX_ACTIONS,
    Action,
    EngineError,
    Game,
    GameState,
    IllegalAction,
    make_bot,
)
from ledger import queries
from ledger.db import after_commit
from ledger.errors import Conflict, Forbidden, InvalidInput, NotFound
from ledger.models import DeckCommitment, Match, MatchSeat, MatchStatus, utcnow
from ledger.services import results
from ledger.services.catalogue import load_game, token_ids
from ledger.services.context import Context
from ledger.services.decks import (
    check_rules,
    deck_hash,
    get_deck,
    live_requirements,
    read_holdings,
    shortfalls,
)
from ledger.services.errors import (
    CopiesCommitted,
    IllegalMove,
    MatchNotActive,
    OutOfTurn,
    OwnershipChanged,
    StaleTurn,
)
from ledger.services.options import check_options

#: a full state snapshot is written at least every this many actions
SNAPSHOT_EVERY = 64
_MASK64 = (1 << 64) - 1


def _b32(value: str, name: str) -> bytes:
    try:
        raw = bytes.fromhex(value.removeprefix("0x"))
    except (ValueError, AttributeError):
        raise InvalidInput(f"{name} must be 32 bytes as 0x-hex", field=name) from None
    if len(raw) != 32 or not value.startswith("0x"):
        raise InvalidInput(f"{name} must be 32 bytes as 0x-hex", field=name)
    return raw


def commit_of(secret: bytes) -> str:
    """The seed commitment of a 32-byte secret: keccak256(secret) as 0x-hex."""
    return "0x" + keccak(secret).hex()


def derive_seed(operator_secret: str, secret0: str, secret1: str) -> int:
    """The engine seed: uint256(keccak256(operatorSecret ‖ secret0 ‖ secret1))."""
    data = b"".join(
        bytes.fromhex(s.removeprefix("0x")) for s in (operator_secret, secret0, secret1)
    )
    return int.from_bytes(keccak(data), "big")


# -- loading -------------------------------------------------------------------------------


def get_match(db: Session, match_id: str) -> tuple[Match, list[MatchSeat]]:
    """A match and its seats; NotFound if there is none."""
    match = queries.get_match(db, match_id)
    if match is None:
        raise NotFound(f"no match {match_id!r}")
    return match, queries.seats(db, match_id)


def seat_of(seats: list[MatchSeat], address: str) -> MatchSeat:
    """The caller's seat; Forbidden if the caller does not play in this match."""
    for seat in seats:
        if seat.address == address and not seat.is_bot:
            return seat
    raise Forbidden("you do not play in this match")


def _sync(match: Match, values: dict[str, Any]) -> None:
    """Mirror values already written with a Core UPDATE onto the ORM object (no second write)."""
    for key, value in values.items():
        set_committed_value(match, key, value)


def load_state(db: Session, ctx: Context, match: Match, *, take: bool) -> GameState:
    """The engine state at `match.version`: from the cache, else the snapshot plus the later actions."""
    if take:
        cached = ctx.cache.take(match.id, match.version)
    else:
        peeked = ctx.cache.peek(match.id, match.version)
        cached = peeked.clone() if peeked is not None else None
    if cached is not None:
        return cached
    if match.state is None:
        raise MatchNotActive("the match has not started")
    game = load_game(match.game)
    state = game.state_class.from_json(match.state)
    if match.state_version < match.version:
        for row in queries.match_actions(
            db, match.id, since=match.state_version, limit=match.version - match.state_version
        ):
            state.apply(Action.from_json(list(row.action)))
    if not take:
        ctx.cache.put(match.id, match.version, state.clone())
    return state


# -- timeouts ------------------------------------------------------------------------------


def enforce_timeout(
    db: Session, ctx: Context, match: Match, seats: list[MatchSeat], now: datetime | None = None
) -> bool:
    """Apply the turn timeout if the deadline has passed; True if the match changed."""
    now = now or utcnow()
    if match.turn_deadline is None or match.turn_deadline > now:
        return False
    if match.status == MatchStatus.SEEDING:
        return _cancel(db, match, MatchStatus.SEEDING, "seed-timeout")
    if (
        match.status != MatchStatus.ACTIVE
        or match.current_player is None
        or match.current_player == match.bot_seat
    ):
        return False
    state = load_state(db, ctx, match, take=False)
    idle = match.current_player
    _finish(db, ctx, match, seats, state, winner_seat=1 - idle, reason="timeout")
    return True


def expire_matches(db: Session, ctx: Context, limit: int = 100) -> int:
    """Apply turn timeouts to every live match past its deadline (for a periodic task)."""
    now = utcnow()
    changed = 0
    for match_id in queries.expired_matches(db, now, limit):
        match, seats = get_match(db, match_id)
        changed += enforce_timeout(db, ctx, match, seats, now)
    return changed


def _deadline(ctx: Context) -> datetime:
    return utcnow() + timedelta(seconds=ctx.settings.turn_timeout_seconds)


def _cancel(db: Session, match: Match, status: MatchStatus, reason: str) -> bool:
    values = {
        "status": MatchStatus.CANCELLED.value,
        "end_reason": reason,
        "finished_at": utcnow(),
        "turn_deadline": None,
    }
    if not queries.update_match_if_status(db, match.id, status.value, values):
        return False
    _sync(match, values)
    return True


# -- creating and joining ------------------------------------------------------------------


def _match_options(game: Game, options: dict[str, Any] | None) -> dict[str, Any]:
    """The options of a new match: checked against the game's option schema, over the defaults."""
    extra = options or {}
    check_options(game.name, game.option_schema, extra)
    return {**game.default_options, **extra}


def _check_copies_free(
    db: Session, game: Game, deck: DeckCommitment, exclude_match: str | None = None
) -> None:
    """The deck's copies plus the owner's other live matches fit in what the deck's check saw."""
    queries.lock_wallet(db, deck.owner)
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


def _usable_deck(db: Session, game: Game, deck_id: str, owner: str) -> DeckCommitment:
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


def create_match(
    db: Session,
    ctx: Context,
    creator: str,
    game_name: str,
    deck_id: str,
    opponent: str = "open",
    bot: str = "greedy",
    options: dict[str, Any] | None = None,
) -> Match:
    """Create a match with the creator in seat 0 and an open seat 1 or the operator's bot."""
    game = load_game(game_name)
    if opponent not in ("open", "bot"):
        raise InvalidInput("opponent must be 'open' or 'bot'", field="opponent")
    if opponent == "bot" and bot not in BOT_NAMES:
        raise InvalidInput(f"bot must be one of {', '.join(BOT_NAMES)}", field="bot")
    merged = _match_options(game, options)
    deck = _usable_deck(db, game, deck_id, creator)
    check_rules(game, deck.cards, merged)  # e.g. the agreed number of Token cards
    _check_copies_free(db, game, deck)
    operator_secret = secrets.token_bytes(32)
    now = utcnow()
    match = Match(
        id="0x" + secrets.token_hex(32),
        game=game.name,
        ruleset_version=game.ruleset_version,
        catalogue_hash=game.catalogue_hash,
        options=merged,
        status=MatchStatus.SEEDING.value if opponent == "bot" else MatchStatus.OPEN.value,
        created_by=creator,
        bot_seat=1 if opponent == "bot" else None,
        bot_name=bot if opponent == "bot" else None,
        operator_commit=commit_of(operator_secret),
        operator_secret="0x" + operator_secret.hex(),
        turn_deadline=_deadline(ctx) if opponent == "bot" else None,
        created_at=now,
    )
    seat0 = MatchSeat(
        match_id=match.id,
        seat=0,
        address=creator,
        deck_id=deck.id,
        deck_hash=deck.deck_hash,
        cards=dict(deck.cards),
    )
    rows: list[Any] = [match, seat0]
    if opponent == "bot":
        bot_deck = {k: int(v) for k, v in sorted(game.starter_decks[1].items())}
        bot_secret = secrets.token_bytes(32)
        rows.append(
            MatchSeat(
                match_id=match.id,
                seat=1,
                address=ctx.bot_address,
                deck_id=None,
                deck_hash=deck_hash(game.name, bot_deck),
                cards=bot_deck,
                is_bot=True,
                seed_commit=commit_of(bot_secret),
                seed_secret="0x" + bot_secret.hex(),
            )
        )
    queries.add(db, rows[0])
    queries.add(db, *rows[1:])
    return match


def join_match(db: Session, ctx: Context, match_id: str, address: str, deck_id: str) -> Match:
    """Take the open seat of a match."""
    match, seats = get_match(db, match_id)
    if match.status != MatchStatus.OPEN:
        raise MatchNotActive(f"match {match_id} is not open (status {match.status})")
    if any(s.address == address for s in seats):
        raise Conflict("you already sit in this match")
    game = load_game(match.game)
    deck = _usable_deck(db, game, deck_id, address)
    check_rules(game, deck.cards, match.options)
    _check_copies_free(db, game, deck)
    if not queries.update_match_if_status(
        db,
        match.id,
        MatchStatus.OPEN.value,
        {"status": MatchStatus.SEEDING.value, "turn_deadline": _deadline(ctx)},
    ):
        raise Conflict("someone else took the seat first")
    try:
        queries.add(
            db,
            MatchSeat(
                match_id=match.id,
                seat=1,
                address=address,
                deck_id=deck.id,
                deck_hash=deck.deck_hash,
                cards=dict(deck.cards),
            ),
        )
    except IntegrityError:
        raise Conflict("someone else took the seat first") from None
    db.refresh(match)
    return match


# -- seed commit-reveal --------------------------------------------------------------------


def commit_seed(db: Session, ctx: Context, match_id: str, address: str, commit: str) -> Match:
    """Record the caller's seed commitment keccak256(secret)."""
    match, seats = get_match(db, match_id)
    seat = seat_of(seats, address)
    if enforce_timeout(db, ctx, match, seats):
        raise MatchNotActive(f"the match was {match.status} ({match.end_reason})")
    if match.status not in (MatchStatus.OPEN, MatchStatus.SEEDING):
        raise MatchNotActive(f"the match is {match.status}; seeding is over")
    _b32(commit, "commit")
    if seat.seed_commit is not None:
        raise Conflict("you already committed a seed for this match")
    seat.seed_commit = commit.lower()
    db.add(seat)
    db.flush()
    return match


def reveal_seed(db: Session, ctx: Context, match_id: str, address: str, secret: str) -> Match:
    """Reveal the caller's secret (only after every seat committed); the last reveal starts the match."""
    match, seats = get_match(db, match_id)
    seat = seat_of(seats, address)
    if enforce_timeout(db, ctx, match, seats):
        raise MatchNotActive(f"the match was {match.status} ({match.end_reason})")
    if match.status != MatchStatus.SEEDING:
        raise MatchNotActive(f"the match is {match.status}; reveals happen while seeding")
    if len(seats) < 2 or any(s.seed_commit is None for s in seats):
        raise Conflict("reveal after every seat has committed", reason="awaiting-commitments")
    raw = _b32(secret, "secret")
    if seat.seed_secret is not None:
        raise Conflict("you already revealed your secret")
    if commit_of(raw) != seat.seed_commit:
        raise InvalidInput(
            "the secret does not match your commitment keccak256(secret)", field="secret"
        )
    seat.seed_secret = "0x" + raw.hex()
    db.add(seat)
    db.flush()
    if all(s.seed_secret is not None for s in seats):
        _start(db, ctx, match, seats)
    return match


def _start(db: Session, ctx: Context, match: Match, seats: list[MatchSeat]) -> None:
    """Pin the ownership block, check both decks there (one balanceOfBatch), seed the engine."""
    game = load_game(match.game)
    humans = [s for s in seats if not s.is_bot]
    pin = ctx.chain.head(fresh=True)
    needs = [game.required_tokens(s.cards) for s in humans]
    helds = read_holdings(
        ctx, [(s.address, need) for s, need in zip(humans, needs, strict=True)], game.name, pin
    )
    problems = []
    ids = token_ids(game.name)
    for s, need, held in zip(humans, needs, helds, strict=True):
        committed = live_requirements(db, game, s.address, exclude_match=match.id)
        for entry in shortfalls(need, held, committed, ids):
            problems.append({"seat": s.seat, "address": s.address, **entry})
    if problems:
        _cancel(db, match, MatchStatus.SEEDING, "ownership-changed")
        raise OwnershipChanged(
            f"the match cannot start: at the pinned block {pin.number} {len(problems)} card(s) of the decks are no "
            "longer held (transferred after the deck commitment); the match is cancelled",
            cards=problems,
            block_number=pin.number,
            block_hash=pin.hash,
            match_id=match.id,
        )
    assert seats[0].seed_secret and seats[1].seed_secret
    seed = derive_seed(match.operator_secret, seats[0].seed_secret, seats[1].seed_secret)
    try:
        state = game.new_match(
            (seats[0].cards, seats[1].cards), seed, match.options, match.ruleset_version
        )
    except EngineError as exc:
        # never leave the match seeding (holding both decks' copies): cancel it, and say so
        _cancel(db, match, MatchStatus.SEEDING, "engine-refused")
        raise MatchNotActive(
            f"the engine refused to start the match ({exc}); the match is cancelled",
            match_id=match.id,
            status_now=match.status,
        ) from exc
    match.seed = hex(seed)
    match.ownership_block = pin.number
    match.ownership_block_hash = pin.hash
    match.status = MatchStatus.ACTIVE.value
    match.started_at = utcnow()
    match.state = state.to_json()
    match.state_version = 0
    match.version = 0
    match.checkpoints = []
    match.current_player = state.current_player if not state.is_over else None
    match.turn_deadline = _deadline(ctx)
    db.add(match)
    db.flush()
    progress = _Progress(match)
    _run_bot(match, game, state, progress)
    if progress.recorded or state.is_over:
        _save_progress(db, ctx, match, seats, state, progress)


# -- playing -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class AppliedAction:
    """One action applied in this request."""

    index: int
    seat: int
    action: list[Any]
    label: str
    by_bot: bool


@dataclass
class MoveOutcome:
    """What one submission did: the actions applied (the caller's and the bot's replies)."""

    match: Match
    applied: list[AppliedAction] = field(default_factory=list)
    state: GameState | None = None


class _Progress:
    """Actions applied in this request and the checkpoint hashes they produced."""

    __slots__ = ("checkpoints", "recorded")

    def __init__(self, match: Match) -> None:
        self.recorded: list[AppliedAction] = []
        self.checkpoints: list[str] = list(match.checkpoints)


def _record(
    match: Match,
    state: GameState,
    seat: int,
    action: Action,
    label: str,
    by_bot: bool,
    progress: _Progress,
) -> None:
    index = match.version + len(progress.recorded)
    progress.recorded.append(AppliedAction(index, seat, action.to_json(), label, by_bot))
    if (index + 1) % CHECKPOINT_EVERY == 0:
        progress.checkpoints.append(state.state_hash())


def _run_bot(match: Match, game: Game, state: GameState, progress: _Progress) -> None:
    if match.bot_seat is None or match.bot_name is None:
        return
    seed = int(match.seed or "0x0", 16) & _MASK64
    while not state.is_over and state.current_player == match.bot_seat:
        if match.version + len(progress.recorded) >= MAX_ACTIONS:
            raise Conflict("the match exceeded the engine's action limit")
        bot = make_bot(
            match.bot_name, game, (seed ^ (match.version + len(progress.recorded))) & _MASK64
        )
        action = bot.choose(state)
        label = state.label(action)
        state.apply(action)
        _record(match, state, match.bot_seat, action, label, True, progress)


def _save_progress(
    db: Session,
    ctx: Context,
    match: Match,
    seats: list[MatchSeat],
    state: GameState,
    progress: _Progress,
) -> None:
    recorded = progress.recorded
    old = match.version
    new = old + len(recorded)
    values: dict[str, Any] = {
        "version": new,
        "checkpoints": progress.checkpoints,
        "current_player": None if state.is_over else state.current_player,
        "turn_deadline": None if state.is_over else _deadline(ctx),
    }
    if state.is_over or new - match.state_version >= SNAPSHOT_EVERY:
        values["state"] = state.to_json()
        values["state_version"] = new
    if not queries.update_match_if_version(db, match.id, old, values):
        raise StaleTurn(
            "another action was applied to this match first; reload and retry", version=old
        )
    now = utcnow()
    rows = [
        {
            "match_id": match.id,
            "index": a.index,
            "seat": a.seat,
            "action": a.action,
            "label": a.label,
            "by_bot": a.by_bot,
            "created_at": now,
        }
        for a in recorded
    ]
    try:
        queries.insert_actions(db, rows)
    except IntegrityError:
        raise StaleTurn(
            "another action was applied to this match first; reload and retry", version=old
        ) from None
    _sync(match, values)
    if state.is_over:
        _finish(db, ctx, match, seats, state, winner_seat=state.winner, reason="completed")
    else:
        cache, match_id = ctx.cache, match.id
        after_commit(db, lambda: cache.put(match_id, new, state))


def _finish(
    db: Session,
    ctx: Context,
    match: Match,
    seats: list[MatchSeat],
    state: GameState,
    winner_seat: int | None,
    reason: str,
) -> None:
    values = {
        "status": MatchStatus.FINISHED.value,
        "winner_seat": winner_seat,
        "end_reason": reason,
        "finished_at": utcnow(),
        "turn_deadline": None,
        "current_player": None,
        "state": state.to_json(),
        "state_version": match.version,
    }
    if not queries.update_match_if_status(db, match.id, MatchStatus.ACTIVE.value, values):
        raise StaleTurn("the match changed meanwhile; reload")
    _sync(match, values)
    results.sign_and_store(db, ctx, match, seats, state, winner_seat, reason)


def submit_action(
    db: Session,
    ctx: Context,
    match_id: str,
    address: str,
    action_json: Any,
    expected_version: int | None = None,
) -> MoveOutcome:
    """Validate the caller's action on the engine and apply it (then the bot's replies)."""
    match, seats = get_match(db, match_id)
    seat = seat_of(seats, address)
    if enforce_timeout(db, ctx, match, seats):
        raise MatchNotActive(
            f"the match is {match.status} ({match.end_reason})", status_now=match.status
        )
    if match.status != MatchStatus.ACTIVE:
        raise MatchNotActive(f"the match is {match.status}, not active", status_now=match.status)
    if expected_version is not None and expected_version != match.version:
        raise StaleTurn(
            f"the match is at version {match.version}, not {expected_version}; reload",
            version=match.version,
        )
    if match.current_player != seat.seat:
        raise OutOfTurn(
            f"it is seat {match.current_player}'s turn, you are seat {seat.seat}",
            current_player=match.current_player,
        )
    try:
        action = Action.from_json(action_json)
    except ValueError as exc:
        raise InvalidInput(str(exc), field="action") from None
    state = load_state(db, ctx, match, take=True)
    try:
        label = state.label(action)
    except Exception:
        label = ""
    try:
        state.apply(action)
    except IllegalAction as exc:
        # the state may be half-applied: drop it (the cache entry was taken)
        raise IllegalMove(exc.message, rule=exc.rule, action=action.to_json()) from None
    except EngineError as exc:
        raise IllegalMove(str(exc), rule="engine.error", action=action.to_json()) from None
    progress = _Progress(match)
    _record(match, state, seat.seat, action, label, False, progress)
    _run_bot(match, load_game(match.game), state, progress)
    _save_progress(db, ctx, match, seats, state, progress)
    return MoveOutcome(match, progress.recorded, state)


def resign(db: Session, ctx: Context, match_id: str, address: str) -> Match:
    """The caller gives up: an active match is lost (end reason "resign"); one not started is cancelled."""
    match, seats = get_match(db, match_id)
    seat = seat_of(seats, address)
    if enforce_timeout(db, ctx, match, seats):
        return match
    if match.status in (MatchStatus.OPEN, MatchStatus.SEEDING):
        if not _cancel(db, match, MatchStatus(match.status), "resign"):
            raise StaleTurn("the match changed meanwhile; reload")
        return match
    if match.status != MatchStatus.ACTIVE:
        raise MatchNotActive(f"the match is already {match.status}")
    state = load_state(db, ctx, match, take=False)
    _finish(db, ctx, match, seats, state, winner_seat=1 - seat.seat, reason="resign")
    return match


def legal_actions(db: Session, ctx: Context, match: Match, seat: MatchSeat) -> list[dict[str, Any]]:
    """The caller's legal actions with labels (empty when it is not their turn)."""
    if match.status != MatchStatus.ACTIVE or match.current_player != seat.seat:
        return []
    state = load_state(db, ctx, match, take=False)
    return [{"action": a.to_json(), "label": state.label(a)} for a in state.legal_actions()]


def observation(db: Session, ctx: Context, match: Match, seat: MatchSeat) -> dict[str, Any] | None:
    """What the caller's seat may see (the engine hides the opponent's hidden information)."""
    if match.state is None:
        return None
    state = load_state(db, ctx, match, take=False)
    return state.observation(seat.seat)
