"""Matches: create (open seat or bot), join, seed commit-reveal, play, resign, turn timeout.

Seeding: the operator commits first (its commit is published when the match is created);
each player then commits `keccak256(secret)` for a 32-byte secret, and reveals the secret
only once every seat has committed. The engine seed is
`uint256(keccak256(operatorSecret ‖ secret0 ‖ secret1))`, so no single party chooses it.

Concurrency: `matches.version` counts applied actions; an action is written with
`UPDATE ... WHERE version = <the version it was validated against> AND status = 'active'` and
each action index is a primary key, so of two submissions of the same turn exactly one applies
(the other gets 409).

Timeouts: whoever must act (commit, reveal, or move) has `turn_timeout_seconds`; after that,
an active match is lost by the idle player (end reason "timeout"), a match still seeding is
cancelled. Deadlines are enforced on every request touching the match and by
`expire_matches` (for a periodic task)."""

from __future__ import annotations

import logging
import secrets
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any, NoReturn

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
    end_reason_of,
    make_bot,
)
from ledger.catalogue.service import load_game, token_ids
from ledger.db import DB, after_commit, keep_on_refusal, orm
from ledger.db.models import Match, MatchAction, MatchSeat, MatchStatus, utcnow
from ledger.decks.received import held_copies_received
from ledger.decks.service import (
    check_rules,
    live_requirements,
    refuse_held_elsewhere,
    shortfalls,
)
from ledger.errors import (
    Conflict,
    Forbidden,
    IllegalMove,
    InvalidInput,
    MatchNotActive,
    NotFound,
    OutOfTurn,
    OwnershipChanged,
    StaleTurn,
)
from ledger.matches import repository as repo
from ledger.matches import signing
from ledger.matches.options import check_options
from ledger.matches.outcomes import AppliedAction, MoveOutcome
from ledger.matches.repository import AnyMatch, LiveMatch
from ledger.matches.seat_decks import check_copies_free, player_seat, usable_deck
from ledger.matches.starting import StartPin, StartReads, read_start
from ledger.matches.states import SNAPSHOT_EVERY, load_state
from ledger.protocol.decks import deck_hash
from ledger.protocol.hexcodec import bytes32, to_hex
from ledger.protocol.seeds import commit_of, derive_seed
from ledger.protocol.signedmoves import RESIGN_ACTION, TIMEOUT_ACTION, canonical_action
from ledger.results import service as results
from ledger.runtime.context import Context

log = logging.getLogger(__name__)

#: the status whose seats do not change (an end acknowledgement is added once finished)
_SEATED = (MatchStatus.ACTIVE,)
_MASK64 = (1 << 64) - 1
#: a match and its seats, as a change leaves them (what the API answers with, without reading
#: them again)
Seated = tuple[Match, list[MatchSeat]]


# -- loading -------------------------------------------------------------------------------


def get_match(db: DB, match_id: str, ctx: Context | None = None) -> tuple[Match, list[MatchSeat]]:
    """A match and its seats; NotFound if there is none. With `ctx`, the seats of an active
    match come from the process's seat cache (they do not change while it is played)."""
    match = repo.get_match(db, match_id)
    if match is None:
        raise NotFound(f"no match {match_id!r}")
    return match, _seats_of(db, ctx, match_id, match.status)


def _live(db: DB, ctx: Context, match_id: str) -> tuple[LiveMatch, list[MatchSeat]]:
    """A match as the move path reads it (no ORM, no snapshot) and its seats; NotFound."""
    match = repo.live_match(db, match_id)
    if match is None:
        raise NotFound(f"no match {match_id!r}")
    return match, _seats_of(db, ctx, match_id, match.status)


def _seats_of(db: DB, ctx: Context | None, match_id: str, status: str) -> list[MatchSeat]:
    if ctx is None or status not in _SEATED:
        return repo.seats(db, match_id)
    seats = ctx.seats.get(match_id)
    if seats is None:
        # bound to no session (a rollback of this one would expire the rows); read only
        seats = repo.detached_seats(db, match_id)
        ctx.seats.put(match_id, seats)
    return seats


def listing(
    db: Session, caller: str, status: str, game: str | None = None
) -> list[tuple[Match, list[MatchSeat]]]:
    """The caller's matches (`status` "mine") or the matches waiting for an opponent ("open"),
    newest first, each with its seats."""
    rows = repo.open_matches(db, game) if status == "open" else repo.matches_of(db, caller)
    return [(m, repo.seats(db, m.id)) for m in rows]


def actions_of(
    db: Session, match_id: str, caller: str, *, since: int = 0, limit: int = 200
) -> Sequence[MatchAction]:
    """The match's actions from index `since`: for its players while it is played, for anyone
    once it is over."""
    match, seats = get_match(db, match_id)
    if match.status != MatchStatus.FINISHED:
        seat_of(seats, caller)
    return repo.match_actions(db, match_id, since=since, limit=limit)


def seat_of(seats: list[MatchSeat], address: str) -> MatchSeat:
    """The caller's seat; Forbidden if the caller does not play in this match."""
    for seat in seats:
        if seat.address == address and not seat.is_bot:
            return seat
    raise Forbidden("you do not play in this match")


def _sync(match: AnyMatch, values: dict[str, Any]) -> None:
    """Mirror values already written with a Core UPDATE onto the match object (for the ORM's,
    as committed values: no second write)."""
    for key, value in values.items():
        if isinstance(match, Match):
            set_committed_value(match, key, value)
        elif key != "state":  # the move path does not hold the snapshot
            setattr(match, key, value)


# -- timeouts ------------------------------------------------------------------------------


def enforce_timeout(
    db: Session, ctx: Context, match: Match, seats: list[MatchSeat], now: datetime | None = None
) -> bool:
    """Apply the turn timeout if the deadline has passed; True if the match changed. The change
    is kept even if the request then refuses what it was asked (the match is over)."""
    now = now or utcnow()
    if match.turn_deadline is None or match.turn_deadline > now:
        return False
    if match.status == MatchStatus.SEEDING:
        changed = _cancel(db, match, MatchStatus.SEEDING, "seed-timeout")
    elif (
        match.status != MatchStatus.ACTIVE
        or match.current_player is None
        or match.current_player == match.bot_seat
    ):
        return False
    else:
        state = load_state(db, ctx, match, take=False)
        idle = match.current_player
        # a match that started before seats were authorized has no entry chain to extend
        entry = (
            signing.EntryWriter(ctx, match).operator(idle, TIMEOUT_ACTION)
            if match.head_hash is not None
            else None
        )
        _finish(db, ctx, match, seats, state, 1 - idle, "timeout", forfeit=entry)
        changed = True
    if changed:
        keep_on_refusal(db)
    return changed


def expire_matches(db: Session, ctx: Context, limit: int = 100) -> int:
    """Apply turn timeouts to every live match past its deadline (for a periodic task)."""
    now = utcnow()
    changed = 0
    for match_id in repo.expired_matches(db, now, limit):
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
    if not repo.update_match_if_status(db, match.id, status.value, values):
        return False
    _sync(match, values)
    return True


# -- creating and joining ------------------------------------------------------------------


def _match_options(game: Game, options: dict[str, Any] | None) -> dict[str, Any]:
    """The options of a new match: checked against the game's option schema, over the defaults."""
    extra = options or {}
    check_options(game.name, game.option_schema, extra)
    return {**game.default_options, **extra}


def create_match(
    db: Session,
    ctx: Context,
    creator: str,
    game_name: str,
    deck_id: str,
    opponent: str = "open",
    bot: str = "greedy",
    options: dict[str, Any] | None = None,
) -> Seated:
    """Create a match with the creator in seat 0 and an open seat 1 or the operator's bot."""
    game = load_game(game_name)
    if opponent not in ("open", "bot"):
        raise InvalidInput("opponent must be 'open' or 'bot'", field="opponent")
    if opponent == "bot" and bot not in BOT_NAMES:
        raise InvalidInput(f"bot must be one of {', '.join(BOT_NAMES)}", field="bot")
    merged = _match_options(game, options)
    deck = usable_deck(db, game, deck_id, creator)
    check_rules(game, deck.cards, merged)  # e.g. the agreed number of Token cards
    check_copies_free(db, game, deck)
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
        operator_secret=to_hex(operator_secret),
        turn_deadline=_deadline(ctx) if opponent == "bot" else None,
        created_at=now,
    )
    rows: list[Any] = [match, player_seat(match, 0, deck)]
    if opponent == "bot":
        bot_deck = {k: int(v) for k, v in sorted(game.starter_decks[1].items())}
        bot_secret = secrets.token_bytes(32)
        bot_seat = MatchSeat(
            match_id=match.id,
            seat=1,
            address=ctx.bot_address,
            deck_id=None,
            deck_hash=deck_hash(game.name, bot_deck),
            cards=bot_deck,
            is_bot=True,
            seed_commit=commit_of(bot_secret),
            seed_secret=to_hex(bot_secret),
        )
        signing.authorize_bot_seat(ctx, match, bot_seat)
        rows.append(bot_seat)
    repo.add(db, rows[0])
    repo.add(db, *rows[1:])
    return match, rows[1:]


def join_match(db: Session, ctx: Context, match_id: str, address: str, deck_id: str) -> Seated:
    """Take the open seat of a match."""
    match, seats = get_match(db, match_id)
    if match.status != MatchStatus.OPEN:
        raise MatchNotActive(f"match {match_id} is not open (status {match.status})")
    if any(s.address == address for s in seats):
        raise Conflict("you already sit in this match")
    game = load_game(match.game)
    deck = usable_deck(db, game, deck_id, address)
    check_rules(game, deck.cards, match.options)
    check_copies_free(db, game, deck)
    values = {"status": MatchStatus.SEEDING.value, "turn_deadline": _deadline(ctx)}
    if not repo.update_match_if_status(db, match.id, MatchStatus.OPEN.value, values):
        raise Conflict("someone else took the seat first")
    _sync(match, values)
    seat = player_seat(match, 1, deck)
    try:
        repo.add(db, seat)
    except IntegrityError:
        raise Conflict("someone else took the seat first") from None
    return match, [*seats, seat]


# -- seed commit-reveal --------------------------------------------------------------------


def _seat_while(
    db: Session,
    ctx: Context,
    match_id: str,
    address: str,
    statuses: tuple[MatchStatus, ...],
    otherwise: str,
) -> tuple[Match, list[MatchSeat], MatchSeat]:
    """The match, its seats and the caller's seat once the turn timeout is applied;
    MatchNotActive (saying `otherwise`) unless the match's status is one of `statuses`."""
    match, seats = get_match(db, match_id)
    seat = seat_of(seats, address)
    if enforce_timeout(db, ctx, match, seats):
        raise MatchNotActive(f"the match was {match.status} ({match.end_reason})")
    if match.status not in statuses:
        raise MatchNotActive(f"the match is {match.status}; {otherwise}")
    return match, seats, seat


def commit_seed(
    db: Session,
    ctx: Context,
    match_id: str,
    address: str,
    commit: str,
    authorization: signing.SeatGrant,
) -> Seated:
    """Record the caller's seed commitment keccak256(secret) with its seat authorization (the
    wallet's EIP-712 SeatAuthorization of a session key for this seat, deck and commitment)."""
    match, _seats, seat = _seat_while(
        db, ctx, match_id, address, (MatchStatus.OPEN, MatchStatus.SEEDING), "seeding is over"
    )
    bytes32(commit, "commit")
    if seat.seed_commit is not None:
        raise Conflict("you already committed a seed for this match")
    signing.check_seat_authorization(ctx, match, seat, commit.lower(), authorization)
    written = {
        "seed_commit": commit.lower(),
        "session_key": authorization.session_key,
        "authorization_expiry": authorization.expiry,
        "authorization": authorization.signature,
    }
    if not repo.set_seat_once(db, seat, "seed_commit", written):
        raise Conflict("you already committed a seed for this match")
    return match, _seats


def reveal_seed(
    db: Session,
    ctx: Context,
    match_id: str,
    address: str,
    secret: str,
    read: StartPin | None = None,
) -> Seated:
    """Reveal the caller's secret (only after every seat committed); the last reveal starts the
    match (`read`: its chain reads, made before the transaction by `read_start`)."""
    match, seats, seat = _seat_while(
        db, ctx, match_id, address, (MatchStatus.SEEDING,), "reveals happen while seeding"
    )
    if len(seats) < 2 or any(s.seed_commit is None for s in seats):
        raise Conflict("reveal after every seat has committed", reason="awaiting-commitments")
    raw = bytes32(secret, "secret")
    if seat.seed_secret is not None:
        raise Conflict("you already revealed your secret")
    if commit_of(raw) != seat.seed_commit:
        raise InvalidInput(
            "the secret does not match your commitment keccak256(secret)", field="secret"
        )
    if not repo.set_seat_once(db, seat, "seed_secret", {"seed_secret": to_hex(raw)}):
        raise Conflict("you already revealed your secret")
    if all(s.seed_secret is not None for s in seats):
        _start(db, ctx, match, seats, read)
    return match, seats


def _start(
    db: Session, ctx: Context, match: Match, seats: list[MatchSeat], read: StartPin | None = None
) -> None:
    """Pin the ownership block, check both decks there (one balanceOfBatch), seed the engine.
    `read`: those chain reads made before the transaction, used if they were made for these
    seats and cards (else they are made here)."""
    game = load_game(match.game)
    humans = [s for s in seats if not s.is_bot]
    needs = [game.required_tokens(s.cards) for s in humans]
    wanted = StartReads(
        match.game, tuple((s.seat, s.address, n) for s, n in zip(humans, needs, strict=True))
    )
    if read is None or read.reads != wanted:
        read = read_start(ctx, wanted)
    pin, helds = read.pin, read.helds
    problems = []
    ids = token_ids(game.name)
    for s, need, held in zip(humans, needs, helds, strict=True):
        committed = live_requirements(db, game, s.address, exclude_match=match.id)
        received = held_copies_received(db, ctx, game, s.address, need, pin, match.id)
        for entry in shortfalls(need, held, committed, ids, received):
            problems.append({"seat": s.seat, "address": s.address, **entry})
    if problems and all(
        p.get("held_by_matches") and p["needed"] + p["committed_elsewhere"] <= p["held"]
        for p in problems
    ):
        _cancel(db, match, MatchStatus.SEEDING, "copies-committed")
        keep_on_refusal(db)  # the cancellation stands
        refuse_held_elsewhere(problems, pin)
    if problems:
        _cancel(db, match, MatchStatus.SEEDING, "ownership-changed")
        keep_on_refusal(db)  # the cancellation stands
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
        keep_on_refusal(db)  # the cancellation stands
        raise MatchNotActive(
            f"the engine refused to start the match ({exc}); the match is cancelled",
            match_id=match.id,
            status_now=match.status,
        ) from exc
    match.seed = hex(seed)
    match.genesis_hash = match.head_hash = signing.genesis(ctx, match, seats, seed)
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
    progress = _Progress(ctx, match)
    _run_bot(match, game, state, progress)
    if progress.recorded or state.is_over:
        _save_progress(db, ctx, match, seats, state, progress)


# -- playing -------------------------------------------------------------------------------


class _Progress:
    """Actions applied in this request, their entries and the checkpoint hashes they produced."""

    __slots__ = ("checkpoints", "entries", "recorded")

    def __init__(self, ctx: Context, match: AnyMatch) -> None:
        self.recorded: list[AppliedAction] = []
        self.checkpoints: list[str] = list(match.checkpoints)
        self.entries = signing.EntryWriter(ctx, match)

    def record(
        self,
        state: GameState,
        action: Action,
        entry: signing.Entry,
        views: tuple[dict[str, Any], ...],
    ) -> None:
        """Keep an applied action (`state` is the state after it)."""
        self.recorded.append(
            AppliedAction(entry.index, entry.seat, action.to_json(), entry, views, entry.by_bot)
        )
        if (entry.index + 1) % CHECKPOINT_EVERY == 0:
            self.checkpoints.append(state.state_hash())


def _run_bot(match: AnyMatch, game: Game, state: GameState, progress: _Progress) -> None:
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
        views = state.project_all(action)
        state.apply(action)
        entry = progress.entries.operator(
            match.bot_seat, canonical_action(action.to_json()), bot=True
        )
        progress.record(state, action, entry, views)


def _save_progress(
    db: DB,
    ctx: Context,
    match: AnyMatch,
    seats: list[MatchSeat],
    state: GameState,
    progress: _Progress,
) -> AnyMatch:
    """Write the actions applied and the match's new version (guarded by the old one); the match
    as it is now (the ORM's once the game is over: the result is signed from it)."""
    recorded = progress.recorded
    old = match.version
    new = old + len(recorded)
    values: dict[str, Any] = {
        "version": new,
        "current_player": None if state.is_over else state.current_player,
        "turn_deadline": None if state.is_over else _deadline(ctx),
        "head_hash": to_hex(progress.entries.head),
    }
    if len(progress.checkpoints) != len(match.checkpoints):
        values["checkpoints"] = progress.checkpoints
    if state.is_over or new - match.state_version >= SNAPSHOT_EVERY:
        values["state"] = state.to_json()
        values["state_version"] = new
    if not repo.update_match_if_version(db, match.id, old, values):
        _refuse_stale(db, match.id, old)
    now = utcnow()
    rows = [
        {
            "match_id": match.id,
            "index": a.index,
            "seat": a.seat,
            "action": a.action,
            "label": "",
            "by_bot": a.by_bot,
            "move": a.entry.action,
            "salt": to_hex(a.entry.salt),
            "signature": a.entry.signature,
            "entry_hash": to_hex(a.entry.entry_hash),
            "receipt": a.entry.receipt,
            "views": list(a.views),
            "created_at": now,
        }
        for a in recorded
    ]
    try:
        repo.insert_actions(db, rows)
    except IntegrityError:
        raise StaleTurn(
            "another action was applied to this match first; reload and retry", version=old
        ) from None
    _sync(match, values)
    if state.is_over:
        # a match the engine's safety cap ended is a draw reported as an engine limit
        reason = "engine-limit" if end_reason_of(state) == "engine-limit" else "completed"
        ended = match if isinstance(match, Match) else _orm(db, match.id)
        _finish(orm(db), ctx, ended, seats, state, winner_seat=state.winner, reason=reason)
        return ended
    cache, match_id = ctx.cache, match.id
    row = match if isinstance(match, LiveMatch) else None  # an ORM row belongs to its session
    after_commit(db, lambda: cache.put(match_id, new, state, row))
    _announce(db, ctx, match_id)
    return match


def _refuse_stale(db: DB, match_id: str, version: int) -> NoReturn:
    """Why the version-guarded write of a move found no match active at `version`: it ended
    meanwhile (MatchNotActive), or another action was applied first (StaleTurn)."""
    now = repo.live_match(db, match_id)
    if now is not None and now.status != MatchStatus.ACTIVE:
        raise MatchNotActive(
            f"the match is {now.status} ({now.end_reason}), not active", status_now=now.status
        )
    raise StaleTurn(
        "another action was applied to this match first; reload and retry",
        version=version if now is None else now.version,
    )


def _orm(db: DB, match_id: str) -> Match:
    """The ORM's match row, fresh (with what this transaction wrote)."""
    match = repo.get_match(db, match_id)
    assert match is not None
    return match


def _finish(
    db: Session,
    ctx: Context,
    match: Match,
    seats: list[MatchSeat],
    state: GameState,
    winner_seat: int | None,
    reason: str,
    forfeit: signing.Entry | None = None,
) -> None:
    values: dict[str, Any] = {
        "status": MatchStatus.FINISHED.value,
        "winner_seat": winner_seat,
        "end_reason": reason,
        "finished_at": utcnow(),
        "turn_deadline": None,
        "current_player": None,
        "state": state.to_json(),
        "state_version": match.version,
    }
    if forfeit is not None:
        values["forfeit_entry"] = forfeit.record()
        values["head_hash"] = to_hex(forfeit.entry_hash)
    if not repo.update_match_if_status(db, match.id, MatchStatus.ACTIVE.value, values):
        raise StaleTurn("the match changed meanwhile; reload")
    _sync(match, values)
    rows = repo.transcript_rows(db, match.id)
    results.sign_and_store(db, ctx, match, seats, state, rows, winner_seat, reason)
    _announce(db, ctx, match.id)


def _announce(db: DB, ctx: Context, match_id: str) -> None:
    """Tell the match's live-update streams (in every process) once this change is committed."""
    events = ctx.events
    after_commit(db, lambda: events.publish(match_id))


def _active_seat(
    db: DB, ctx: Context, match_id: str, address: str, expected_version: int | None
) -> tuple[LiveMatch, list[MatchSeat], MatchSeat]:
    """The match, its seats and the caller's seat, if the match is active at
    `expected_version` (when given) once the turn timeout is applied. The match is the row
    this process cached when it wrote that version, if it holds one (no read), else read."""
    held = None if expected_version is None else ctx.cache.row(match_id, expected_version)
    if isinstance(held, LiveMatch):
        # the row this process wrote at that version: the version-guarded UPDATE of the move
        # (`_save_progress`) refuses it if the match moved on or ended meanwhile
        match, seats = held, _seats_of(db, ctx, match_id, held.status)
    else:
        match, seats = _live(db, ctx, match_id)
    seat = seat_of(seats, address)
    if match.turn_deadline is not None and match.turn_deadline <= utcnow():
        expired, seats = get_match(db, match_id, ctx)
        if enforce_timeout(orm(db), ctx, expired, seats):
            raise MatchNotActive(
                f"the match is {expired.status} ({expired.end_reason})", status_now=expired.status
            )
    if match.status != MatchStatus.ACTIVE:
        raise MatchNotActive(f"the match is {match.status}, not active", status_now=match.status)
    if expected_version is not None and expected_version != match.version:
        raise StaleTurn(
            f"the match is at version {match.version}, not {expected_version}; reload",
            version=match.version,
        )
    return match, seats, seat


def _move_text(move: Any) -> str:
    if not isinstance(move, list) or not move:
        raise InvalidInput("action must be [kind, *args]", field="action")
    return canonical_action(move)


def submit_action(
    db: DB,
    ctx: Context,
    match_id: str,
    address: str,
    move: Any,
    salt: str,
    signature: str,
    expected_version: int | None = None,
) -> MoveOutcome:
    """Check the caller's signed move (its session key's MatchAction after the match's head),
    apply it on the engine in the caller's ids, then the bot's replies; every entry receipted."""
    match, seats, seat = _active_seat(db, ctx, match_id, address, expected_version)
    if match.current_player != seat.seat:
        raise OutOfTurn(
            f"it is seat {match.current_player}'s turn, you are seat {seat.seat}",
            current_player=match.current_player,
        )
    progress = _Progress(ctx, match)
    entry = progress.entries.player(seat, _move_text(move), salt, signature)
    state = load_state(db, ctx, match, take=True)
    try:
        action, views = state.apply_move(move, seat.seat)
    except IllegalAction as exc:
        # apply_move leaves the state as it was: put it back
        ctx.cache.put(match.id, match.version, state, match)
        raise IllegalMove(exc.message, rule=exc.rule, action=move) from None
    except EngineError as exc:  # the state may be half-applied: drop it (the entry was taken)
        raise IllegalMove(str(exc), rule="engine.error", action=move) from None
    progress.record(state, action, entry, views)
    _run_bot(match, load_game(match.game), state, progress)
    now = _save_progress(db, ctx, match, seats, state, progress)
    return MoveOutcome(now, progress.recorded, state)


def resign(
    db: Session,
    ctx: Context,
    match_id: str,
    address: str,
    salt: str | None = None,
    signature: str | None = None,
) -> Seated:
    """The caller gives up: an active match is lost (end reason "resign"; the resignation is
    the caller's signed entry `["resign"]`); one not started is cancelled (nothing to sign)."""
    match, seats = get_match(db, match_id)
    seat = seat_of(seats, address)
    if enforce_timeout(db, ctx, match, seats):
        return match, seats
    if match.status in (MatchStatus.OPEN, MatchStatus.SEEDING):
        if not _cancel(db, match, MatchStatus(match.status), "resign"):
            raise StaleTurn("the match changed meanwhile; reload")
        return match, seats
    if match.status != MatchStatus.ACTIVE:
        raise MatchNotActive(f"the match is already {match.status}")
    if salt is None or signature is None:
        raise InvalidInput(
            "resigning an active match needs your session key's signed MatchAction "
            f"{RESIGN_ACTION} (salt and signature)",
            field="signature",
        )
    entry = signing.EntryWriter(ctx, match).player(seat, RESIGN_ACTION, salt, signature)
    state = load_state(db, ctx, match, take=False)
    _finish(db, ctx, match, seats, state, 1 - seat.seat, "resign", forfeit=entry)
    return match, seats


def acknowledge(db: Session, ctx: Context, match_id: str, address: str, signature: str) -> Seated:
    """Store the caller's session-key signature of MatchEnd over the whole transcript of a
    finished match (idempotent for the same signature)."""
    match, seats = get_match(db, match_id)
    seat = seat_of(seats, address)
    if match.status != MatchStatus.FINISHED:
        raise MatchNotActive(
            f"the match is {match.status}; acknowledge it once it is finished",
            status_now=match.status,
        )
    if match.head_hash is None or seat.session_key is None:
        raise Conflict("this match has no signed transcript to acknowledge")
    signing.check_end(ctx, match, seat, entry_count(match), signature)
    if seat.end_acknowledgement is not None:
        if seat.end_acknowledgement != signature.lower():
            raise Conflict("you already acknowledged this match with another signature")
        return match, seats
    seat.end_acknowledgement = signature.lower()
    db.add(seat)
    db.flush()
    return match, seats


def entry_count(match: Match) -> int:
    """How many entries the match's signed transcript has (its actions, and a forfeit)."""
    return match.version + (1 if match.forfeit_entry is not None else 0)


def legal_moves_of(db: DB, ctx: Context, match_id: str, address: str) -> list[dict[str, Any]]:
    """The caller's legal moves in match `match_id` now (the hot read: no ORM)."""
    return seat_turn(db, ctx, match_id, address)[2]


def seat_turn(
    db: DB, ctx: Context, match_id: str, address: str
) -> tuple[LiveMatch, MatchSeat, list[dict[str, Any]]]:
    """The match `match_id`, the caller's seat in it and its legal moves now (the hot read)."""
    match, seats = _live(db, ctx, match_id)
    seat = seat_of(seats, address)
    return match, seat, legal_actions(db, ctx, match, seat)


def legal_actions(db: DB, ctx: Context, match: AnyMatch, seat: MatchSeat) -> list[dict[str, Any]]:
    """The caller's legal moves in its own ids, with its labels (empty when it is not its turn)."""
    if match.status != MatchStatus.ACTIVE or match.current_player != seat.seat:
        return []
    return load_state(db, ctx, match, take=False).legal_moves(seat.seat)


def observation(db: Session, ctx: Context, match: Match, seat: MatchSeat) -> dict[str, Any] | None:
    """What the caller's seat may see (the engine's projection for that seat)."""
    if match.state is None:
        return None
    state = load_state(db, ctx, match, take=False)
    return state.observation(seat.seat)
