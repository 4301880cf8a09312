"""The play channel: one WebSocket a player keeps open for a match, `/matches/{id}/play`.

The client sends its signed moves on it and gets each one's answer; the server pushes every
change the player did not make (the opponent's moves, a timeout, a resignation) as the
player's seat sees it, with its legal actions when it is its turn. No polling, and a move costs
no HTTP request. Nothing on it is new in kind: a move is the `POST /matches/{id}/actions` body
and its answer that route's answer (`api.moves`, the same code), an update is the entries of the
action log the player may read (`GET /matches/{id}/actions`) with the match's turn, and every
refusal is the problem+json the HTTP route would answer.

Messages (JSON text frames):
- first, without an `Authorization: Bearer` header on the upgrade (a browser cannot send one):
  `{"token": "<session token>"}`; optionally `"since": n` (or `?since=n`) to get the entries
  from index n;
- server: `{"type": "update", "seat", "version", "status", "current_player", "your_turn",
  "winner_seat", "end_reason", "head_hash", "applied": [entries], "legal_actions": [...]}`
  at once, then on every change the player did not send;
- client: `{"type": "move", "ref": <int or short text, echoed>, ...ActionIn}`;
- server: `{"type": "applied", "ref", ...ActionOut}` or `{"type": "error", "ref", "problem"}`.
The server closes the channel once the match is over (1000), after MAX_REFUSALS refused
messages in a row (1008), when the session is refused (1008), and when the process holds its
METALEDGER_EVENTS_MAX_STREAMS live streams already (1013). A message larger than the WebSocket
frame limit (twice METALEDGER_MAX_BODY_BYTES) closes it with 1009; a smaller one over
METALEDGER_MAX_BODY_BYTES gets a 413 problem.

Changes made by a move in this process are handed to the channel with the move
(`api.moves.hand_over`): sent without reading the database. Any other wake (another process's
change through the broker, a timeout, a resignation, news dropped because the client reads too
slowly) is read from the database from the version the client was last told, like the
server-sent event stream does.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
from typing import Any

from fastapi import APIRouter
from fastapi.exceptions import RequestValidationError
from pydantic import ValidationError
from pydantic_core import to_json
from sqlmodel import Session
from starlette.concurrency import run_in_threadpool
from starlette.websockets import WebSocket, WebSocketDisconnect

from api import present, problems, schemas
from api.deps import bearer_token, run, run_hot
from api.hotroute import validation_errors
from api.moves import apply_move
from api.routes.matches import viewer_entries
from api.sse import join_stream, news_or_keepalive
from engine import EngineError
from ledger.auth import service as auth
from ledger.db import Transaction
from ledger.db.models import MatchStatus
from ledger.errors import InvalidInput, MetaLedgerError, ServiceUnavailable, Unauthorized
from ledger.matches import service as matches
from ledger.protocol import untrusted
from ledger.runtime.context import Context
from ledger.runtime.events import StreamWaiter

router = APIRouter(prefix="/matches", tags=["matches"])
log = logging.getLogger("api")

_MATCH_ID = re.compile(r"0x[0-9a-f]{64}")
_OVER = (MatchStatus.FINISHED, MatchStatus.CANCELLED)
#: how long a channel opened without an Authorization header waits for the token message
HELLO_SECONDS = 10.0
#: refused messages in a row after which the channel is closed
MAX_REFUSALS = 20
#: entries read from the database at a time
PAGE = 200
#: the longest `ref` echoed back
MAX_REF_CHARS = 64


class _Close(Exception):
    """End the channel with this close code, after sending `problem` if there is one."""

    def __init__(self, code: int, reason: str, problem: dict[str, Any] | None = None) -> None:
        super().__init__(reason)
        self.code, self.reason, self.problem = code, reason, problem


def problem_of(exc: Exception, instance: str) -> dict[str, Any] | None:
    """The problem+json body the HTTP routes answer for `exc`; None for an unexpected error."""
    if isinstance(exc, MetaLedgerError):
        return problems.ours_body(exc, instance)
    if isinstance(exc, EngineError):
        return problems.engine_body(exc, instance)
    if isinstance(exc, RequestValidationError):
        return problems.validation_body(exc, instance)
    return None


@router.websocket("/{match_id}/play")
async def play(sock: WebSocket, match_id: str) -> None:
    """The play channel of `match_id` for one of its players (see the module's description)."""
    ctx: Context = sock.app.state.ctx
    await sock.accept()
    channel = _Channel(ctx, sock, match_id)
    try:
        await channel.serve()
    except _Close as close:
        await channel.close(close)
    except WebSocketDisconnect:
        pass
    except Exception:  # as the HTTP routes' 500: logged, the client told only that much
        log.exception("unhandled error on the play channel %s", channel.instance)
        await channel.close(
            _Close(1011, "internal error", problems.unexpected_body(channel.instance))
        )
    finally:
        channel.leave()


class _Channel:
    """One open play channel: its reader of moves and its pusher of changes."""

    def __init__(self, ctx: Context, sock: WebSocket, match_id: str) -> None:
        self.ctx, self.sock, self.match_id = ctx, sock, match_id
        self.instance = sock.url.path
        self.limits = untrusted.JsonLimits.for_requests(ctx.settings)
        self.token = ""
        self.waiter: StreamWaiter | None = None
        #: the match version and status the client was last told (by an answer or an update)
        self.known = 0
        self.status = ""

    async def serve(self) -> None:
        """Authenticate, send the match as the player sees it, then read moves and push
        changes until the match is over or the client leaves."""
        if not _MATCH_ID.fullmatch(self.match_id):
            raise self._refused(InvalidInput("match_id: 0x and 64 lowercase hex digits"))
        self.token, since = await self._hello()
        try:
            self.waiter = join_stream(self.ctx, self.match_id)
        except ServiceUnavailable as exc:
            raise _Close(1013, "too many live streams", self._problem(exc)) from None
        try:  # joined first: a change committed meanwhile wakes the pusher
            if since is None:
                update = run_hot(self.ctx, self._now, write=False)
            else:
                update = await run_in_threadpool(self._read, since)
        except MetaLedgerError as exc:
            raise self._refused(exc) from None
        self.waiter.seat = update["seat"]
        self.known, self.status = update["version"], update["status"]
        await self._send(update)
        if update["status"] in _OVER:
            raise _Close(1000, "the match is over")
        tasks = [asyncio.create_task(self._moves()), asyncio.create_task(self._changes())]
        try:
            done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in tasks:
                task.cancel()
            for task in tasks:
                with contextlib.suppress(asyncio.CancelledError, WebSocketDisconnect):
                    await task
        for task in done:
            task.result()  # a _Close or a disconnect from either side

    async def _hello(self) -> tuple[str, int | None]:
        """The session token (the Authorization header, else the first message) and `since`."""
        since = self._since(self.sock.query_params.get("since"))
        header = self.sock.headers.get("authorization")
        if header is not None:
            try:
                return bearer_token(header), since
            except Unauthorized as exc:
                raise self._refused(exc) from None
        try:
            message = await asyncio.wait_for(self.sock.receive(), HELLO_SECONDS)
        except TimeoutError:
            raise self._refused(
                Unauthorized(f'send {{"token": ...}} within {HELLO_SECONDS:g} seconds')
            ) from None
        if message["type"] == "websocket.disconnect":
            raise WebSocketDisconnect(int(message.get("code") or 1000))
        try:
            hello = self._document(message)
            token = hello.get("token")
            if not isinstance(token, str) or not token or len(token) > 256:
                raise Unauthorized('the first message must be {"token": "<session token>"}')
            if "since" in hello:
                since = self._since(hello["since"])
        except MetaLedgerError as exc:
            raise self._refused(exc) from None
        return token, since

    def _since(self, value: Any) -> int | None:
        if value is None:
            return None
        if isinstance(value, str) and value.isdigit() and len(value) <= 19:
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int):
            raise self._refused(InvalidInput("since: the index of an entry", field="since"))
        if not 0 <= value < untrusted.INT64_MAX:
            raise self._refused(InvalidInput("since: the index of an entry", field="since"))
        return value

    def _document(self, message: Any) -> dict[str, Any]:
        """A client message's JSON object, parsed within the request limits."""
        text = message.get("text")
        if text is None:
            raise InvalidInput("send JSON text frames", field="message")
        document = untrusted.parse(text.encode(), self.limits, "the message")
        if not isinstance(document, dict):
            raise InvalidInput("a message is a JSON object", field="message")
        return document

    async def _moves(self) -> None:
        """Read the client's moves; answer each (or say why it was refused)."""
        refusals = 0
        while True:
            message = await self.sock.receive()
            if message["type"] == "websocket.disconnect":
                return
            ref: Any = None
            try:
                document = self._document(message)
                ref = document.pop("ref", None)
                if not _echoable(ref):
                    ref = None
                    raise InvalidInput(
                        f"ref: an integer or at most {MAX_REF_CHARS} characters", field="ref"
                    )
                kind = document.pop("type", "move")
                if kind != "move":
                    raise InvalidInput('type: the client sends only "move"', field="type")
                try:
                    body = schemas.ActionIn.model_validate(document)
                except ValidationError as exc:
                    raise RequestValidationError(validation_errors(exc, ("body",))) from None
                out = apply_move(self.ctx, self.match_id, self.token, body, self.waiter)
            except (MetaLedgerError, EngineError, RequestValidationError) as exc:
                refusals += 1
                await self._send({"type": "error", "ref": ref, "problem": self._problem(exc)})
                if refusals >= MAX_REFUSALS:
                    raise _Close(1008, f"{MAX_REFUSALS} refused messages in a row") from None
                continue
            refusals = 0
            self.known, self.status = max(self.known, out["version"]), out["status"]
            out["type"], out["ref"] = "applied", ref
            await self._send(out)
            if out["status"] in _OVER:
                raise _Close(1000, "the match is over")

    async def _changes(self) -> None:
        """Push the changes the client did not make, as its seat sees them."""
        assert self.waiter is not None
        waiter = self.waiter
        while True:
            woke = await news_or_keepalive(waiter)
            behind = not waiter.pushed  # news without its change (or the keep-alive tick)
            while waiter.pushed and not behind:
                news = waiter.pushed.popleft()
                if news["version"] <= self.known:
                    continue
                if news["applied"][0]["index"] != self.known:
                    behind = True  # an earlier change was not handed over: read
                    break
                await self._push(news)
            if behind or not woke:
                waiter.pushed.clear()
                update = await self._catch_up()
                if update is not None:
                    await self._push(update)

    async def _catch_up(self) -> dict[str, Any] | None:
        """What the client was not told, read from the database (None if nothing); a session
        that ended meanwhile closes the channel with its problem."""
        try:
            now = run_hot(self.ctx, self._now, write=False)  # the lean read first
            if now["version"] == self.known and now["status"] == self.status:
                return None  # a wake-up without news
            update = await run_in_threadpool(self._read, self.known)
        except MetaLedgerError as exc:
            raise self._refused(exc) from None
        return update if update["version"] > self.known or update["applied"] else None

    async def _push(self, update: dict[str, Any]) -> None:
        self.known = max(self.known, update["version"])
        self.status = update["status"]
        await self._send(update)
        if update["status"] in _OVER:
            raise _Close(1000, "the match is over")

    def _read(self, since: int | None) -> dict[str, Any]:
        """The match as the player sees it now, with the entries from `since` it may read
        (from the database, in one unit of work: the thread pool's)."""

        def work(db: Session) -> dict[str, Any]:
            caller = auth.authenticate(db, self.token, self.ctx)
            match, seats = matches.get_match(db, self.match_id, self.ctx)
            seat = matches.seat_of(seats, caller)
            entries: list[Any] = []
            start = match.version if since is None else since
            while True:
                shown, _ = viewer_entries(db, self.match_id, caller, start, PAGE, self.ctx)
                entries += [e.model_dump() for e in shown]
                if len(shown) < PAGE:
                    break
                start = shown[-1].index + 1
            legal = matches.legal_actions(db, self.ctx, match, seat)
            return present.turn(match, seat.seat, entries, legal, kind="update")

        return run(self.ctx, work, write=False)

    def _now(self, db: Transaction) -> dict[str, Any]:
        """The match as the player sees it now, without entries (the hot read, no ORM: on the
        event loop's thread)."""
        caller = auth.authenticate(db, self.token, self.ctx)
        match, seat, legal = matches.seat_turn(db, self.ctx, self.match_id, caller)
        return present.turn(match, seat.seat, [], legal, kind="update")

    async def _send(self, message: dict[str, Any]) -> None:
        await self.sock.send_text(to_json(message).decode())

    def _problem(self, exc: Exception) -> dict[str, Any]:
        body = problem_of(exc, self.instance)
        assert body is not None  # only refusals are rendered here
        return body

    def _refused(self, exc: MetaLedgerError) -> _Close:
        """Close the channel (1008) after saying why the session or the match was refused."""
        return _Close(1008, exc.detail[:120], self._problem(exc))

    async def close(self, close: _Close) -> None:
        """Send the closing problem, if any, then close with its code."""
        with contextlib.suppress(WebSocketDisconnect, RuntimeError):
            if close.problem is not None:
                await self._send({"type": "error", "ref": None, "problem": close.problem})
            await self.sock.close(close.code, close.reason[:120])

    def leave(self) -> None:
        """Give the live-update slot back."""
        if self.waiter is not None:
            self.waiter.close()


def _echoable(ref: Any) -> bool:
    """Whether a client's `ref` can be echoed: None, an integer in 64 bits or a short text."""
    if ref is None or (isinstance(ref, str) and len(ref) <= MAX_REF_CHARS):
        return True
    return isinstance(ref, int) and not isinstance(ref, bool) and abs(ref) < untrusted.INT64_MAX
