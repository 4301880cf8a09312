"""Sign-in with Ethereum (EIP-4361) and sessions."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends
from fastapi.security import HTTPAuthorizationCredentials

from api import ratelimit, schemas
from api.deps import Caller, Ctx, bearer, run
from ledger.auth import service as auth

router = APIRouter(prefix="/auth", tags=["auth"])


@router.post("/nonce", response_model=schemas.NonceOut, dependencies=[ratelimit.SIGN_IN])
def nonce(ctx: Ctx) -> schemas.NonceOut:
    """A single-use nonce; build an EIP-4361 message with it (domain, URI, chain id) and sign it.
    Rate-limited per client address (METALEDGER_SIGN_IN_RATE_LIMIT)."""
    return schemas.NonceOut.model_validate(run(ctx, lambda db: auth.issue_nonce(db, ctx)))


@router.post("/verify", response_model=schemas.SessionOut, dependencies=[ratelimit.SIGN_IN])
def verify(body: schemas.SignInIn, ctx: Ctx) -> schemas.SessionOut:
    """Verify a signed sign-in message; returns a session token."""
    signed = run(ctx, lambda db: auth.sign_in(db, ctx, body.message, body.signature))
    return schemas.SessionOut.model_validate(signed)


@router.post("/logout", status_code=204)
def logout(
    ctx: Ctx,
    caller: Caller,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)],
) -> None:
    """End the current session."""
    token = credentials.credentials if credentials else ""
    run(ctx, lambda db: auth.sign_out(db, token, ctx))


@router.get("/me", response_model=schemas.MeOut)
def me(caller: Caller) -> schemas.MeOut:
    """The signed-in address."""
    return schemas.MeOut(address=caller)
