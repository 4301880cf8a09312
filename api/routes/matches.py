"""Matches: create, join, seed commit-reveal with the seat authorization, view, legal actions,
signed actions, resign, acknowledge, result, transcript. Every read of a live match is the
engine's projection for its reader."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Concatenate, ParamSpec

from fastapi import APIRouter, Path, Query, Response
from pydantic_core import to_json
from sqlmodel import Session
from starlette.concurrency import run_in_threadpool

from api import moves, present, ratelimit, schemas
from api.deps import Caller, Ctx, Token, run, run_hot, run_local
from api.hotroute import HotRoute
from api.metrics import RESULTS
from ledger.auth import service as auth
from ledger.db import Transaction, after_commit
from ledger.db.models import Match, MatchStatus
from ledger.errors import NotFound
from ledger.matches import service as matches
from ledger.matches import signing
from ledger.matches.starting import StartReads, read_start, start_reads
from ledger.protocol import eip712
from ledger.protocol.untrusted import INT64_MAX
from ledger.results import service as results
from ledger.runtime.context import Context

router = APIRouter(prefix="/matches", tags=["matches"])
#: the play loop's routes (a move, the legal actions), served by a lean handler (api.hotroute)
hot = APIRouter(prefix="/matches", tags=["matches"], route_class=HotRoute)
Args = ParamSpec("Args")
MatchId = Annotated[
    str, Path(pattern=r"^0x[0-9a-f]{64}$", description="the match id (the EIP-712 matchId)")
]


def _domain(ctx: Ctx) -> dict[str, Any]:
    """The EIP-712 domain of every signature of a match (the result's: MatchLedger's)."""
    return eip712.domain(eip712.RESULT_DOMAIN_NAME, ctx.chain_id, ctx.chain.addresses.match_ledger)


def _out(ctx: Ctx, seated: matches.Seated, caller: str, status: int = 200) -> Response:
    """The match as `caller` sees it, from the match and seats a change left (not read again),
    serialised once (FastAPI would validate the answer against its response model again)."""
    match, seats = seated
    out = present.match(match, seats, caller, _domain(ctx), ctx.signer.address)
    return Response(to_json(out), status_code=status, media_type="application/json")


async def _act(
    ctx: Ctx,
    match_id: str,
    token: str,
    change: Callable[Concatenate[Session, Context, str, str, Args], matches.Seated],
    *args: Args.args,
    **kwargs: Args.kwargs,
) -> Response:
    """Apply the change of the signed-in holder of `token` (a matches service function, called
    as `change(db, ctx, match_id, caller, *args)`) and answer with the match as the caller sees
    it, in one transaction (on the event loop's thread unless it reads the chain: `run_local`)."""

    def work(db: Session) -> Response:
        caller = auth.authenticate(db, token, ctx)
        return _out(ctx, change(db, ctx, match_id, caller, *args, **kwargs), caller)

    return await run_local(ctx, work)


# a match's setup: hot routes (api.hotroute), their units of work on the event loop's thread
@hot.post("", response_model=schemas.MatchOut, status_code=201)
async def create(body: schemas.MatchIn, ctx: Ctx, token: Token) -> Response:
    """Create a match: your deck in seat 0, seat 1 open or the operator's bot. The operator's
    seed commitment is published here, before any player commits."""

    def work(db: Session) -> Response:
        caller = auth.authenticate(db, token, ctx)
        seated = matches.create_match(
            db, ctx, caller, body.game, body.deck_id, body.opponent, body.bot, body.options
        )
        return _out(ctx, seated, caller, status=201)

    return await run_local(ctx, work)


@router.get("", response_model=list[schemas.MatchOut])
def listing(
    ctx: Ctx,
    caller: Caller,
    status: Annotated[str | None, Query(pattern="^(open|mine)$")] = "mine",
    game: Annotated[str | None, Query(max_length=32)] = None,
) -> list[schemas.MatchOut]:
    """Your matches (`status=mine`) or matches waiting for an opponent (`status=open`)."""

    def work(db: Session) -> list[schemas.MatchOut]:
        found = matches.listing(db, caller, status or "mine", game)
        return [
            present.match(m, seats, caller, _domain(ctx), ctx.signer.address) for m, seats in found
        ]

    return run(ctx, work, write=False)


@router.get("/{match_id}", response_model=schemas.MatchOut)
async def one(match_id: MatchId, ctx: Ctx, caller: Caller) -> schemas.MatchOut:
    """A match's public state (turn timeouts are applied first)."""

    def work(db: Session) -> schemas.MatchOut:
        match, seats = matches.get_match(db, match_id)
        matches.enforce_timeout(db, ctx, match, seats)
        return present.match(match, seats, caller, _domain(ctx), ctx.signer.address)

    return await run_local(ctx, work)


@hot.post("/{match_id}/join", response_model=schemas.MatchOut)
async def join(match_id: MatchId, body: schemas.JoinIn, ctx: Ctx, token: Token) -> Response:
    """Take the open seat with your deck."""
    return await _act(ctx, match_id, token, matches.join_match, body.deck_id)


@hot.post("/{match_id}/commit", response_model=schemas.MatchOut)
async def commit(match_id: MatchId, body: schemas.CommitIn, ctx: Ctx, token: Token) -> Response:
    """Commit to your seed secret keccak256(secret) and authorize your session key for this
    seat: your wallet's EIP-712 SeatAuthorization (the only wallet signature of a match)."""
    grant = signing.SeatGrant(body.session_key, body.expiry, body.authorization)
    return await _act(ctx, match_id, token, matches.commit_seed, body.commit, grant)


@hot.post("/{match_id}/reveal", response_model=schemas.MatchOut)
async def reveal(match_id: MatchId, body: schemas.RevealIn, ctx: Ctx, token: Token) -> Response:
    """Reveal your seed secret; the last reveal checks ownership at a freshly pinned block and starts the match."""

    def reads(db: Transaction) -> StartReads | None:
        return start_reads(db, match_id, auth.authenticate(db, token, ctx))

    # the last reveal's chain reads go to the thread pool before its transaction, which then
    # runs on the event loop like the other reveals (`ledger.matches.starting`); what they need
    # is read by prepared statements in a lean unit (no ORM Session)
    needed = run_hot(ctx, reads, write=False)
    read = None if needed is None else await run_in_threadpool(read_start, ctx, needed)
    return await _act(ctx, match_id, token, matches.reveal_seed, body.secret, read)


@router.get("/{match_id}/view", response_model=schemas.ViewOut)
async def view(match_id: MatchId, ctx: Ctx, caller: Caller) -> schemas.ViewOut:
    """Your view: your observation (the opponent's hidden information hidden) and your legal actions."""

    def work(db: Session) -> schemas.ViewOut:
        match, seats = matches.get_match(db, match_id)
        seat = matches.seat_of(seats, caller)
        matches.enforce_timeout(db, ctx, match, seats)
        legal = matches.legal_actions(db, ctx, match, seat)
        return schemas.ViewOut(
            match=present.match(match, seats, caller, _domain(ctx), ctx.signer.address),
            seat=seat.seat,
            your_turn=match.status == MatchStatus.ACTIVE and match.current_player == seat.seat,
            observation=matches.observation(db, ctx, match, seat),
            legal_actions=[schemas.LegalActionOut(**a) for a in legal],
        )

    return await run_local(ctx, work)


@hot.get("/{match_id}/legal-actions", response_model=list[schemas.LegalActionOut])
async def legal_actions(match_id: MatchId, ctx: Ctx, token: Token) -> Response:
    """Your legal actions now (empty when it is not your turn)."""

    def work(db: Transaction) -> list[dict[str, Any]]:
        return matches.legal_moves_of(db, ctx, match_id, auth.authenticate(db, token, ctx))

    # on the event loop's thread, like act(); the engine's moves already have the answer's shape
    return _json(run_hot(ctx, work, write=False))


@hot.post("/{match_id}/actions", response_model=schemas.ActionOut)
async def act(match_id: MatchId, body: schemas.ActionIn, ctx: Ctx, token: Token) -> Response:
    """Submit a move in your ids, signed by your session key (the MatchAction at index
    `version` after `head_hash`); validated by the engine. Pass `version` for optimistic
    concurrency: of two submissions for the same version, one applies and the other gets 409.
    The answer carries the operator's receipt of every entry appended (yours and the bot's)."""
    return _json(moves.apply_move(ctx, match_id, token, body))


def _json(value: Any) -> Response:
    """A JSON answer of plain values already in the response model's shape (serialised once,
    in pydantic-core, without building and re-validating the model)."""
    return Response(to_json(value), media_type="application/json")


@router.get("/{match_id}/actions", response_model=list[schemas.AppliedOut])
def actions(
    match_id: MatchId,
    ctx: Ctx,
    caller: Caller,
    since: Annotated[int, Query(ge=0, le=INT64_MAX)] = 0,
    limit: Annotated[int, Query(ge=1, le=1000)] = 200,
) -> list[schemas.AppliedOut]:
    """The match's entries from index `since` as you may read them (players only until the match
    is over; then anyone, with the real actions)."""

    def work(db: Session) -> list[schemas.AppliedOut]:
        return viewer_entries(db, match_id, caller, since, limit)[0]

    return run(ctx, work, write=False)


def viewer_entries(
    db: Session, match_id: str, caller: str, since: int, limit: int, ctx: Context | None = None
) -> tuple[list[schemas.AppliedOut], Match]:
    """The match's entries from `since` as `caller` may read them, and the match: what
    `GET /actions` answers and what a live-update stream sends."""
    match, seats = matches.get_match(db, match_id, ctx)
    rows = matches.actions_of(db, match_id, caller, since=since, limit=limit)
    reader = next((s.seat for s in seats if s.address == caller and not s.is_bot), None)
    over = match.status == MatchStatus.FINISHED
    return [present.logged(row, reader, over) for row in rows], match


@router.post("/{match_id}/resign", response_model=schemas.MatchOut)
async def resign(
    match_id: MatchId, ctx: Ctx, caller: Caller, body: schemas.ResignIn | None = None
) -> Response:
    """Give up: an active match is lost (your signed entry `["resign"]`, receipted in
    `forfeit_entry`); a match not yet started is cancelled (no body needed)."""
    salt, signature = (body.salt, body.signature) if body is not None else (None, None)

    def work(db: Session) -> Response:
        seated = matches.resign(db, ctx, match_id, caller, salt, signature)
        if seated[0].status == MatchStatus.FINISHED:
            after_commit(db, RESULTS.inc)
        return _out(ctx, seated, caller)

    return await run_local(ctx, work)


@hot.post("/{match_id}/acknowledge", response_model=schemas.MatchOut)
async def acknowledge(
    match_id: MatchId, body: schemas.AcknowledgeIn, ctx: Ctx, token: Token
) -> Response:
    """Acknowledge the end of a finished match: your session key's MatchEnd over `entries`
    entries ending at `head_hash` (stored and carried in the bundle)."""
    return await _act(ctx, match_id, token, matches.acknowledge, body.signature)


@router.get("/{match_id}/result", response_model=schemas.ResultOut, dependencies=[ratelimit.PUBLIC])
def result(match_id: MatchId, ctx: Ctx) -> schemas.ResultOut:
    """The operator-signed EIP-712 result (404 until the match ends)."""

    def work(db: Session) -> schemas.ResultOut:
        row = results.get_result(db, match_id)
        return present.result(row, results.batch_of(db, row))

    return run(ctx, work, write=False)


@router.get("/{match_id}/transcript", dependencies=[ratelimit.PUBLIC])
def transcript(match_id: MatchId, ctx: Ctx) -> dict[str, Any]:
    """The match transcript (engine format `metaledger.transcript/1`), once the match has ended."""
    row = run(ctx, lambda db: results.get_result(db, match_id), write=False)
    if row is None:  # pragma: no cover - get_result raises
        raise NotFound("no result")
    return dict(row.transcript)
