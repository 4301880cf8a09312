"""Helpers for the anchoring, bundle and verification tests: deploy on the session Anvil and
write operator-signed results with their outbox rows (as the API's result service does)."""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

from eth_account import Account
from sqlalchemy import Engine, insert, select

from ledger import signing
from ledger.deploy import Deployment, deploy_all
from ledger.devchain import AnvilNode
from ledger.models.base import utcnow
from ledger.models.matches import Match
from ledger.models.results import MatchResult, OutboxEntry
from ledger.models.wallets import Wallet
from ledger.settings import ANVIL_DEV_KEYS

PUBLISHER_KEY, SIGNER_KEY, ANCHORER_KEY = ANVIL_DEV_KEYS[0], ANVIL_DEV_KEYS[1], ANVIL_DEV_KEYS[2]
PLAYER0 = Account.from_key(ANVIL_DEV_KEYS[5]).address
PLAYER1 = Account.from_key(ANVIL_DEV_KEYS[6]).address


def deploy(anvil: AnvilNode) -> Deployment:
    """Deploy the contracts with the dev keys (signer and anchorer registered)."""
    return deploy_all(
        anvil.w3, PUBLISHER_KEY, Account.from_key(SIGNER_KEY).address,
        Account.from_key(ANCHORER_KEY).address, rpc_url=anvil.rpc_url,
    )


def result_rows(deployment: Deployment, n: int, game: str = "metax") -> Iterator[dict[str, Any]]:
    """`n` signed MatchResult rows (random struct fields) for `deployment`."""
    for _ in range(n):
        result = signing.MatchResult(
            match_id=os.urandom(32), game=game, ruleset_version="1", player0=PLAYER0, player1=PLAYER1,
            deck0=os.urandom(32), deck1=os.urandom(32), seed_commitments=os.urandom(32),
            transcript_hash=os.urandom(32), final_state_hash=os.urandom(32), winner=PLAYER0,
            ownership_block=1,
        )
        digest = signing.result_digest(result, deployment.chain_id, deployment.match_ledger)
        sig = signing.sign_digest(SIGNER_KEY, digest)
        m = result.as_message()
        yield {
            "match_id": m["matchId"], "chain_id": deployment.chain_id,
            "verifying_contract": deployment.match_ledger, "game": game, "ruleset_version": "1",
            "player0": PLAYER0, "player1": PLAYER1, "deck0": m["deck0"], "deck1": m["deck1"],
            "seed_commitments": m["seedCommitments"], "transcript_hash": m["transcriptHash"],
            "final_state_hash": m["finalStateHash"], "winner": PLAYER0, "ownership_block": 1,
            "digest": "0x" + digest.hex(), "signature": "0x" + sig.hex(),
            "signer": Account.from_key(SIGNER_KEY).address, "end_reason": "ko", "transcript": {},
        }


def add_results(engine: Engine, deployment: Deployment, n: int) -> list[int]:
    """Write `n` signed results and their outbox rows in one transaction; returns result ids."""
    return insert_results(engine, list(result_rows(deployment, n)))


def _row(model: type[Any], **values: Any) -> dict[str, Any]:
    """A full row of `model` with its defaults applied (timestamps made timezone-aware)."""
    row = model(**values).model_dump()
    for key, value in row.items():
        if isinstance(value, datetime) and value.tzinfo is None:
            row[key] = value.replace(tzinfo=UTC)
    return row  # type: ignore[no-any-return]


def insert_results(engine: Engine, rows: list[dict[str, Any]]) -> list[int]:
    """Insert result rows (with their matches and outbox rows) in one transaction."""
    with engine.begin() as conn:
        if conn.execute(select(Wallet.address).where(Wallet.address == PLAYER0)).first() is None:  # type: ignore[arg-type]
            conn.execute(insert(Wallet), [_row(Wallet, address=PLAYER0)])
        conn.execute(insert(Match), [
            _row(Match, id=r["match_id"], game=r["game"], ruleset_version="1", catalogue_hash="0" * 64,
                 status="finished", created_by=PLAYER0, operator_commit="0x" + "00" * 32,
                 operator_secret="0x" + "00" * 32)
            for r in rows
        ])
        conn.execute(insert(MatchResult), [{k: v for k, v in _row(MatchResult, **r).items() if k != "id"} for r in rows])
        by_match = dict(conn.execute(
            select(MatchResult.match_id, MatchResult.id).where(
                MatchResult.match_id.in_([r["match_id"] for r in rows]))  # type: ignore[attr-defined]
        ).all())
        ids = [by_match[r["match_id"]] for r in rows]
        conn.execute(insert(OutboxEntry), [{k: v for k, v in _row(OutboxEntry, result_id=i).items() if k != "id"}
                                           for i in ids])
    return ids


def timestamp() -> Any:
    """Now, as the API's timestamp columns want it (aware if the column type is aware)."""
    from sqlmodel.sql.sqltypes import UTCDateTime

    now = utcnow()
    if isinstance(OutboxEntry.__table__.c.created_at.type, UTCDateTime) and now.tzinfo is None:  # type: ignore[attr-defined]
        now = now.replace(tzinfo=UTC)
    return now


def random_hex(n: int = 32) -> str:
    """0x-hex of n random bytes."""
    return "0x" + secrets.token_hex(n)
