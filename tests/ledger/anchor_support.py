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

from ledger.chain.deployment import Deployment
from ledger.db.models.base import utcnow
from ledger.db.models.matches import Match, MatchSeat
from ledger.db.models.results import MatchResult, OutboxEntry
from ledger.db.models.wallets import Wallet
from ledger.devstack.anvil import AnvilNode
from ledger.devstack.deploy import deploy_all
from ledger.protocol import eip712
from ledger.protocol.signatures import sign_digest
from ledger.settings import ANVIL_DEV_KEYS

PUBLISHER_KEY, SIGNER_KEY, ANCHORER_KEY = ANVIL_DEV_KEYS[0], ANVIL_DEV_KEYS[1], ANVIL_DEV_KEYS[2]
PLAYER0 = Account.from_key(ANVIL_DEV_KEYS[5]).address
PLAYER1 = Account.from_key(ANVIL_DEV_KEYS[6]).address


def deploy(anvil: AnvilNode) -> Deployment:
    """Deploy the contracts with the dev keys (signer and anchorer registered)."""
    return deploy_all(
        anvil.w3,
        PUBLISHER_KEY,
        Account.from_key(SIGNER_KEY).address,
        Account.from_key(ANCHORER_KEY).address,
        rpc_url=anvil.rpc_url,
    )


def result_rows(deployment: Deployment, n: int, game: str = "metax") -> Iterator[dict[str, Any]]:
    """`n` signed MatchResult rows (random struct fields) for `deployment`."""
    for _ in range(n):
        result = eip712.MatchResult(
            match_id=os.urandom(32),
            game=game,
            ruleset_version="1",
            player0=PLAYER0,
            player1=PLAYER1,
            deck0=os.urandom(32),
            deck1=os.urandom(32),
            seed_commitments=os.urandom(32),
            transcript_hash=os.urandom(32),
            final_state_hash=os.urandom(32),
            winner=PLAYER0,
            ownership_block=1,
        )
        digest = eip712.result_digest(result, deployment.chain_id, deployment.match_ledger)
        sig = sign_digest(SIGNER_KEY, digest)
        yield {
            **result.as_record(),
            "chain_id": deployment.chain_id,
            "verifying_contract": deployment.match_ledger,
            "digest": "0x" + digest.hex(),
            "signature": "0x" + sig.hex(),
            "signer": Account.from_key(SIGNER_KEY).address,
            "end_reason": "ko",
            "transcript": {},
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


def _ensure_wallets(conn: Any, addresses: list[str]) -> None:
    """Wallet rows for the addresses that have none yet."""
    for address in addresses:
        if conn.execute(select(Wallet.address).where(Wallet.address == address)).first() is None:  # type: ignore[arg-type]
            conn.execute(insert(Wallet), [_row(Wallet, address=address)])


def insert_results(engine: Engine, rows: list[dict[str, Any]]) -> list[int]:
    """Insert result rows (with their matches and outbox rows) in one transaction."""
    with engine.begin() as conn:
        _ensure_wallets(conn, [PLAYER0])
        conn.execute(
            insert(Match),
            [
                _row(
                    Match,
                    id=r["match_id"],
                    game=r["game"],
                    ruleset_version="1",
                    catalogue_hash="0" * 64,
                    status="finished",
                    created_by=PLAYER0,
                    operator_commit="0x" + "00" * 32,
                    operator_secret="0x" + "00" * 32,
                )
                for r in rows
            ],
        )
        conn.execute(
            insert(MatchResult),
            [{k: v for k, v in _row(MatchResult, **r).items() if k != "id"} for r in rows],
        )
        by_match = dict(
            conn.execute(
                select(MatchResult.match_id, MatchResult.id).where(
                    MatchResult.match_id.in_([r["match_id"] for r in rows])
                )  # type: ignore[attr-defined]
            ).all()
        )
        ids = [by_match[r["match_id"]] for r in rows]
        conn.execute(
            insert(OutboxEntry),
            [{k: v for k, v in _row(OutboxEntry, result_id=i).items() if k != "id"} for i in ids],
        )
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


def store_played_match(
    engine: Engine,
    anvil: AnvilNode,
    deployment: Deployment,
    game_name: str = "metax",
    seed_salt: int = 0,
    bot: bool = False,
) -> str:
    """Mint both starter decks to two players, play a random-vs-random match on the engine and
    store it as the API does (match, seats with seed commits/reveals, signed result, outbox).
    Returns the match id."""
    from eth_hash.auto import keccak

    from engine import RandomBot, get_game, play_match
    from ledger.devstack.deploy import seed_demo
    from ledger.protocol.decks import deck_hash
    from ledger.protocol.seeds import seed_commitments
    from ledger.protocol.tokenids import token_id

    game = get_game(game_name)
    decks = game.starter_decks
    # the operator's bot plays seat 1 with the signer's address and holds no cards
    players = (PLAYER0, Account.from_key(SIGNER_KEY).address if bot else PLAYER1)
    seed_demo(
        anvil.w3,
        deployment,
        PUBLISHER_KEY,
        {
            p: [
                (token_id(game.name, card), n)
                for card, n in game.required_tokens(d).items()
                if n > 0
            ]
            for p, d in list(zip(players, decks, strict=True))[: 1 if bot else 2]
        },
    )
    block = anvil.w3.eth.get_block("latest")
    op, s0, s1 = (os.urandom(32) for _ in range(3))
    commits = ["0x" + keccak(s).hex() for s in (op, s0, s1)]
    seed = int.from_bytes(keccak(op + s0 + s1), "big")
    state, transcript = play_match(
        game.name, decks, seed, [RandomBot(1 + seed_salt), RandomBot(2 + seed_salt)]
    )
    match_id = "0x" + os.urandom(32).hex()
    struct = eip712.MatchResult(
        match_id=match_id,
        game=game.name,
        ruleset_version=game.ruleset_version,
        player0=players[0],
        player1=players[1],
        deck0=deck_hash(game.name, decks[0]),
        deck1=deck_hash(game.name, decks[1]),
        seed_commitments=seed_commitments(*commits),
        transcript_hash=keccak(transcript.canonical_bytes()),
        final_state_hash=bytes.fromhex(transcript.final_hash or ""),
        winner=eip712.ZERO_ADDRESS if state.winner is None else players[state.winner],
        ownership_block=block["number"],
    )
    digest = eip712.result_digest(struct, deployment.chain_id, deployment.match_ledger)
    with engine.begin() as conn:
        _ensure_wallets(conn, list(players))
        conn.execute(
            insert(Match),
            [
                _row(
                    Match,
                    id=match_id,
                    game=game.name,
                    ruleset_version=game.ruleset_version,
                    catalogue_hash=game.catalogue_hash,
                    status="finished",
                    created_by=PLAYER0,
                    operator_commit=commits[0],
                    operator_secret="0x" + op.hex(),
                    seed=hex(seed),
                    ownership_block=block["number"],
                    ownership_block_hash=block["hash"].to_0x_hex(),
                    winner_seat=state.winner,
                    end_reason="completed",
                )
            ],
        )
        conn.execute(
            insert(MatchSeat),
            [
                _row(
                    MatchSeat,
                    match_id=match_id,
                    seat=i,
                    address=p,
                    deck_hash=deck_hash(game.name, decks[i]),
                    cards=dict(decks[i]),
                    seed_commit=commits[i + 1],
                    seed_secret="0x" + (s0, s1)[i].hex(),
                    is_bot=bot and i == 1,
                )
                for i, p in enumerate(players)
            ],
        )
        result_id = conn.execute(
            insert(MatchResult)
            .values(
                {
                    k: v
                    for k, v in _row(
                        MatchResult,
                        **struct.as_record(),
                        chain_id=deployment.chain_id,
                        verifying_contract=deployment.match_ledger,
                        digest="0x" + digest.hex(),
                        signature="0x" + sign_digest(SIGNER_KEY, digest).hex(),
                        signer=Account.from_key(SIGNER_KEY).address,
                        end_reason="completed",
                        transcript=transcript.to_json(),
                    ).items()
                    if k != "id"
                }
            )
            .returning(MatchResult.id)
        ).scalar_one()  # type: ignore[arg-type]
        conn.execute(
            insert(OutboxEntry),
            [{k: v for k, v in _row(OutboxEntry, result_id=result_id).items() if k != "id"}],
        )
    return match_id


def anchor_pending(database_url: str, rpc_url: str, match_ledger: str) -> None:
    """Anchor every pending result of the database (as the worker does), waiting for none."""
    from ledger.anchoring.service import AnchorConfig, Anchorer
    from ledger.chain.transport import JsonRpc
    from ledger.db import make_engine

    engine = make_engine(database_url)
    try:
        Anchorer(
            engine, JsonRpc(rpc_url), match_ledger, ANCHORER_KEY, AnchorConfig()
        ).run_until_idle(force=True)
    finally:
        engine.dispose()
