"""Sign-in with Ethereum: nonces, verification, sessions (bearer tokens, only hashes stored)."""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

from pydantic import BaseModel
from sqlmodel import Session

from ledger.auth import repository as repo
from ledger.db import DB, after_commit, orm
from ledger.db.models import Session as SessionRow
from ledger.db.models import utcnow
from ledger.errors import Unauthorized
from ledger.protocol import siwe
from ledger.runtime.context import Context


class NonceGrant(BaseModel, frozen=True):
    """A fresh nonce and the values a sign-in message must carry."""

    nonce: str
    domain: str
    chain_id: int
    uri: str
    issued_at: datetime
    expires_at: datetime


@dataclass(frozen=True)
class SignedIn:
    """A new session."""

    token: str
    address: str
    expires_at: datetime
    contract_wallet: bool


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def issue_nonce(db: Session, ctx: Context) -> NonceGrant:
    """Store a single-use nonce valid for `siwe_nonce_ttl_seconds`, purging expired ones."""
    now = utcnow()
    repo.purge_nonces(db, now=now)
    expires = now + timedelta(seconds=ctx.settings.siwe_nonce_ttl_seconds)
    nonce = siwe.new_nonce()
    repo.add_nonce(db, nonce, now=now, expires_at=expires)
    return NonceGrant(
        nonce=nonce,
        domain=ctx.settings.resolved_siwe_domain,
        chain_id=ctx.chain_id,
        uri=ctx.settings.resolved_siwe_uri,
        issued_at=now,
        expires_at=expires,
    )


def sign_in(db: Session, ctx: Context, message: str, signature: str) -> SignedIn:
    """Verify an EIP-4361 message and its signature, consume its nonce, open a session.

    Rejects (401, `reason` says which): malformed, wrong domain, wrong URI, wrong chain id,
    expired or not yet valid, unknown/used/expired nonce, bad signature (EOA or EIP-1271)."""
    parsed = siwe.parse_message(message)
    siwe.check_fields(
        parsed,
        domain=ctx.settings.resolved_siwe_domain,
        uri=ctx.settings.resolved_siwe_uri,
        chain_id=ctx.chain_id,
    )
    signer = siwe.signer_of(message, parsed.address, signature, ctx.chain)
    if signer is None:
        raise Unauthorized(siwe.signature_problem(signature), reason="bad-signature")
    is_eoa = signer is siwe.Signer.EOA
    now = utcnow()
    if not repo.consume_nonce(db, parsed.nonce, now=now):
        row = repo.get_nonce(db, parsed.nonce)
        if row is None:
            raise Unauthorized(
                "unknown sign-in nonce; ask for one at POST /auth/nonce", reason="unknown-nonce"
            )
        if row.used_at is not None:
            raise Unauthorized("this sign-in nonce was already used", reason="replayed-nonce")
        raise Unauthorized("this sign-in nonce has expired", reason="expired-nonce")
    repo.upsert_wallet(db, parsed.address, is_contract=not is_eoa, now=now)
    token = secrets.token_urlsafe(32)
    expires = now + timedelta(seconds=ctx.settings.session_ttl_seconds)
    repo.add_session(
        db,
        SessionRow(
            token_hash=_hash(token), address=parsed.address, created_at=now, expires_at=expires
        ),
    )
    return SignedIn(token, parsed.address, expires, not is_eoa)


def cached_address(token: str, ctx: Context) -> str | None:
    """The address of session `token` if this process read it less than
    `session_cache_seconds` ago and it has not expired (no database read); else None."""
    return ctx.sessions.get(_hash(token), utcnow())


def authenticate(db: DB, token: str, ctx: Context | None = None) -> str:
    """The address of the live session `token`; Unauthorized if unknown, revoked or expired.
    With `ctx`, a session this process read less than `session_cache_seconds` ago is trusted
    without reading it again."""
    if ctx is not None:
        cached = cached_address(token, ctx)
        if cached is not None:
            return cached
    token_hash, now = _hash(token), utcnow()
    row = repo.session_owner(orm(db), token_hash)
    if row is None or row[2]:
        raise Unauthorized("no such session; sign in again", reason="unknown-session")
    if row[1] <= now:
        raise Unauthorized("the session has expired; sign in again", reason="expired-session")
    if ctx is not None:
        ctx.sessions.put(token_hash, row[0], row[1])
    return row[0]


def sign_out(db: Session, token: str, ctx: Context | None = None) -> None:
    """Revoke the session `token` (and forget it in this process's session cache)."""
    token_hash = _hash(token)
    if ctx is not None:
        sessions = ctx.sessions
        sessions.drop(token_hash)
        # again once the revocation is committed: a request may have re-read it meanwhile
        after_commit(db, lambda: sessions.drop(token_hash))
    row = repo.get_session(db, token_hash)
    if row is not None:
        row.revoked = True
        db.add(row)
