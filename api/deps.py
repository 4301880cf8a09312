"""Request plumbing: the process context, units of work (one transaction per request), and
the signed-in caller."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, TypeVar

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from fastapi.security.utils import get_authorization_scheme_param
from sqlmodel import Session
from starlette.concurrency import run_in_threadpool

from ledger.auth import service as auth
from ledger.chain.transport import ChainReadDeferred, deferring_chain_reads
from ledger.db import Transaction, run_lean, run_unit
from ledger.errors import Unauthorized
from ledger.runtime.context import Context

T = TypeVar("T")

bearer = HTTPBearer(auto_error=False, description="the session token from POST /auth/verify")


def context_of(request: Request) -> Context:
    """The process's service context (built at startup)."""
    ctx: Context = request.app.state.ctx
    return ctx


async def get_context(request: Request) -> Context:
    """The process's service context, as a dependency (async: no thread hop for it)."""
    return context_of(request)


def run(ctx: Context, work: Callable[[Session], T], *, write: bool = True) -> T:
    """Run `work` in the request's one unit of work (`ledger.db.unit`)."""
    return run_unit(ctx.db, work, write=write)


async def run_local(ctx: Context, work: Callable[[Session], T], *, write: bool = True) -> T:
    """Run `work` in the request's one unit of work on the event loop's thread, as long as it
    needs only the database; a unit that asks for a chain read is rolled back before the read
    and run again, whole, in the thread pool, where the node's answer may be awaited.

    A match's setup and end (create, join, commit, reveal, resign) are a few database
    statements: handed to a worker thread, each also cost a thread hop and, while the event loop
    serves moves, the two threads' contention for the GIL (context switches on both sides),
    which together cost more than the work. The last reveal's chain reads are made before its
    unit (`ledger.matches.starting`); what still reads the chain inside its unit (an EIP-1271
    seat authorization, a start whose seats changed meanwhile) takes the fallback."""
    try:
        with deferring_chain_reads():
            return run(ctx, work, write=write)
    except ChainReadDeferred:
        return await run_in_threadpool(run, ctx, work, write=write)


def run_hot(ctx: Context, work: Callable[[Transaction], T], *, write: bool = True) -> T:
    """Run `work` in the request's one unit of work, the lean kind (no ORM Session unless the
    work asks for one): the play loop's hot routes."""
    return run_lean(ctx.db, work, write=write)


def _bearer_credentials(scheme: str, credentials: str) -> str:
    if scheme.lower() != "bearer" or not credentials:
        raise Unauthorized(
            "sign in first (POST /auth/nonce, then POST /auth/verify) and send Authorization: Bearer <token>"
        )
    return credentials


async def session_token(
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)],
) -> str:
    """The bearer token of the request (401 if there is none); not yet checked."""
    if credentials is None:
        return _bearer_credentials("", "")
    return _bearer_credentials(credentials.scheme, credentials.credentials)


def request_token(request: Request) -> str:
    """`session_token` read straight from the request's Authorization header, as `bearer`
    parses it, without building its credentials model (the hot routes)."""
    return bearer_token(request.headers.get("Authorization"))


def bearer_token(authorization: str | None) -> str:
    """The token of an `Authorization: Bearer <token>` header's value (401 otherwise)."""
    return _bearer_credentials(*get_authorization_scheme_param(authorization))


async def current_address(request: Request, token: Annotated[str, Depends(session_token)]) -> str:
    """The signed-in caller's address (401 without a live session): from the process's session
    cache on the event loop when it holds the session, else read in the thread pool (a sync
    dependency would cost a thread hop and a unit of work on every request)."""
    ctx = context_of(request)
    cached = auth.cached_address(token, ctx)
    if cached is not None:
        return cached
    return await run_in_threadpool(
        run, ctx, lambda db: auth.authenticate(db, token, ctx), write=False
    )


Ctx = Annotated[Context, Depends(get_context)]
Caller = Annotated[str, Depends(current_address)]
#: the unchecked bearer token, for hot routes that authenticate inside their own transaction
Token = Annotated[str, Depends(session_token)]
