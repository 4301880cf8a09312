"""Ending a match: build the transcript, sign the EIP-712 MatchResult with the operator's
signer key, and store the result with its outbox row in the caller's transaction."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlmodel import Session

from engine import (
    CHECKPOINT_EVERY,
    ENGINE_VERSION,
    FORFEIT_REASONS,
    GameState,
    Transcript,
    outcome_of,
)
from ledger.db.models import Match, MatchResult, MatchSeat, TranscriptRow, utcnow
from ledger.errors import Conflict, NotFound
from ledger.protocol import eip712
from ledger.protocol.hexcodec import bytes32, to_hex
from ledger.protocol.seeds import seed_commitments
from ledger.protocol.signedmoves import entry_record, signed_transcript, transcript_hash
from ledger.results import repository as repo
from ledger.runtime.context import Context


def build_transcript(
    match: Match,
    seats: list[MatchSeat],
    state: GameState,
    actions: list[list[Any]],
    forfeit: tuple[int, str] | None = None,
) -> Transcript:
    """The match's transcript (engine format) from its stored header, its actions in order and
    its checkpoints; `forfeit=(seat, "resign"|"timeout")` when it ended by a player's forfeit."""
    assert match.seed is not None
    over, winner, forfeit_record = outcome_of(state, forfeit)
    return Transcript(
        game=match.game,
        engine_version=ENGINE_VERSION,
        ruleset_version=match.ruleset_version,
        catalogue_hash=match.catalogue_hash,
        seed=int(match.seed, 16),
        decks=[dict(seats[0].cards), dict(seats[1].cards)],
        options=dict(match.options),
        actions=actions,
        checkpoint_every=CHECKPOINT_EVERY,
        checkpoints=list(match.checkpoints),
        final_hash=state.state_hash(),
        over=over,
        winner=winner,
        forfeit=forfeit_record,
    )


def _seat_record(seat: MatchSeat) -> dict[str, Any]:
    return {
        "seat": seat.seat,
        "player": seat.address,
        "by_bot": bool(seat.is_bot),
        "deck_hash": seat.deck_hash,
        "seed_commit": seat.seed_commit,
        "session_key": seat.session_key,
        "expiry": seat.authorization_expiry,
        "signature": seat.authorization,
    }


def _entry_record(row: TranscriptRow) -> dict[str, Any]:
    return entry_record(
        row.index,
        row.seat,
        bool(row.by_bot),
        row.move,
        row.salt,
        row.signature,
        row.entry_hash,
        row.receipt,
    )


def match_transcript(
    match: Match,
    seats: list[MatchSeat],
    state: GameState,
    rows: Sequence[TranscriptRow],
    forfeit: tuple[int, str] | None = None,
) -> dict[str, Any]:
    """The transcript a result commits to: `metaledger.transcript/3` (the engine transcript with
    the seat authorizations and every signed entry; the receipts stay with the players) for a
    match whose seats were authorized; the engine transcript alone (format 1) for a match that
    started unsigned."""
    engine = build_transcript(match, seats, state, [list(r.action) for r in rows], forfeit)
    if match.genesis_hash is None:
        return engine.to_json()
    entries = [_entry_record(r) for r in rows]
    if match.forfeit_entry is not None:
        entries.append(dict(match.forfeit_entry))
    return signed_transcript(
        engine.to_json(),
        match.id,
        [_seat_record(s) for s in seats],
        match.genesis_hash,
        entries,
    )


def sign_and_store(
    db: Session,
    ctx: Context,
    match: Match,
    seats: list[MatchSeat],
    state: GameState,
    rows: Sequence[TranscriptRow],
    winner_seat: int | None,
    reason: str,
) -> MatchResult:
    """Sign the result of `match` (whose action rows in order are `rows`) and insert it with
    its outbox row (no commit)."""
    if match.ownership_block is None or match.seed is None:
        raise Conflict("the match never started; there is no result to sign")
    forfeit = None
    if reason in FORFEIT_REASONS:
        assert winner_seat is not None
        forfeit = (1 - winner_seat, reason)
    transcript_json = match_transcript(match, seats, state, rows, forfeit)
    winner = seats[winner_seat].address if winner_seat is not None else eip712.ZERO_ADDRESS
    commits = [s.seed_commit for s in seats]
    assert commits[0] is not None and commits[1] is not None
    struct = eip712.MatchResult(
        match_id=bytes32(match.id, "match id"),
        game=match.game,
        ruleset_version=match.ruleset_version,
        player0=seats[0].address,
        player1=seats[1].address,
        deck0=bytes32(seats[0].deck_hash, "deck0"),
        deck1=bytes32(seats[1].deck_hash, "deck1"),
        seed_commitments=seed_commitments(match.operator_commit, commits[0], commits[1]),
        transcript_hash=transcript_hash(transcript_json),
        final_state_hash=bytes32("0x" + state.state_hash(), "final state hash"),
        winner=winner,
        ownership_block=match.ownership_block,
    )
    ledger_address = ctx.chain.addresses.match_ledger
    digest = eip712.result_digest(struct, ctx.chain_id, ledger_address)
    signature = ctx.signer.sign_digest(digest)
    row = MatchResult(
        **struct.as_record(),
        chain_id=ctx.chain_id,
        verifying_contract=ledger_address,
        digest=to_hex(digest),
        signature=to_hex(signature),
        signer=ctx.signer.address,
        end_reason=reason,
        transcript=transcript_json,
        created_at=utcnow(),
    )
    repo.add_result_with_outbox(db, row)
    return row


def typed_data(row: MatchResult) -> dict[str, Any]:
    """The full EIP-712 typed data of a stored result (for eth_signTypedData_v4-style verifiers)."""
    return eip712.result_typed_data(
        eip712.MatchResult.from_record(row), row.chain_id, row.verifying_contract
    )


def get_result(db: Session, match_id: str) -> MatchResult:
    """The signed result of a match; NotFound while it has none."""
    row = repo.result_of(db, match_id)
    if row is None:
        if not repo.match_exists(db, match_id):
            raise NotFound(f"no match {match_id!r}")
        raise NotFound(f"match {match_id} has no result yet", reason="no-result-yet")
    return row


def batch_of(db: Session, row: MatchResult) -> int | None:
    """The batch a stored result was put in (None while it waits in the outbox)."""
    entry = repo.outbox_entry(db, row.id or 0)
    return None if entry is None else entry.batch_id
