"""Match bundles: everything an auditor needs to verify one match, as one JSON document.

The format (``metaledger.bundle/1``) is documented in docs/verification.md. A bundle is
exported from the operator's database once the match's batch is confirmed on-chain; verifying
it (`ledger.verify`) needs only the bundle and an RPC URL.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from sqlmodel import Session

from ledger import anchoring_queries as q
from ledger import signing, untrusted
from ledger.errors import Conflict, InvalidInput, NotFound

BUNDLE_FORMAT = "metaledger.bundle/1"


def _struct(result: Any) -> signing.MatchResult:
    return signing.MatchResult(
        match_id=result.match_id,
        game=result.game,
        ruleset_version=result.ruleset_version,
        player0=result.player0,
        player1=result.player1,
        deck0=result.deck0,
        deck1=result.deck1,
        seed_commitments=result.seed_commitments,
        transcript_hash=result.transcript_hash,
        final_state_hash=result.final_state_hash,
        winner=result.winner,
        ownership_block=result.ownership_block,
    )


def export_bundle(
    session: Session, match_id: str, *, card_token: str, deployment_block: int
) -> dict[str, Any]:
    """The bundle of a match whose result is anchored and confirmed.

    NotFound if there is no such match or result; Conflict while the result is not yet anchored.
    """
    result = q.result_of_match(session, match_id)
    match, seats = q.match_and_seats(session, match_id)
    if match is None:
        raise NotFound(f"no match {match_id!r}")
    if result is None or result.id is None:
        raise NotFound(f"match {match_id} has no result yet", reason="no-result-yet")
    found = q.confirmed_proof(session, result.id)
    if found is None:
        status = q.proof_status(session, result.id) or "pending"
        raise Conflict(
            f"the result of match {match_id} is not anchored and confirmed yet (batch status: {status})",
            reason="not-anchored-yet",
            batch_status=status,
        )
    proof, batch = found
    if len(seats) != 2:
        raise Conflict(f"match {match_id} does not have two seats")
    return {
        "format": BUNDLE_FORMAT,
        "chain": {
            "chain_id": result.chain_id,
            "match_ledger": result.verifying_contract,
            "card_token": card_token,
            "deployment_block": deployment_block,
        },
        "result": {
            "typed_data": signing.result_typed_data(
                _struct(result), result.chain_id, result.verifying_contract
            ),
            "digest": result.digest,
            "signature": result.signature,
            "signer": result.signer,
            "end_reason": result.end_reason,
        },
        "transcript": result.transcript,
        "decks": [
            {
                "seat": s.seat,
                "player": s.address,
                "is_bot": bool(s.is_bot),
                "cards": dict(s.cards),
                "deck_hash": s.deck_hash,
            }
            for s in seats
        ],
        "seeds": {
            "operator": {"commit": match.operator_commit, "reveal": match.operator_secret},
            "players": [{"commit": s.seed_commit, "reveal": s.seed_secret} for s in seats],
            "seed": match.seed,
        },
        "ownership_block": {"number": match.ownership_block, "hash": match.ownership_block_hash},
        "anchor": {
            "batch_id": batch.id,
            "root": batch.root,
            "count": batch.count,
            "prev_batch_hash": batch.prev_batch_hash,
            "batch_hash": batch.batch_hash,
            "tx_hash": batch.tx_hash,
            "block_number": batch.block_number,
            "block_hash": batch.block_hash,
            "tree_index": proof.tree_index,
            "proof": list(proof.proof),
        },
    }


def export_from_settings(session: Session, match_id: str) -> dict[str, Any]:
    """The bundle of a match, with contract addresses from the configured deployment file."""
    from ledger.chain import load_addresses
    from ledger.settings import get_settings

    addresses = load_addresses(get_settings().resolved_deployment_file)
    return export_bundle(
        session,
        match_id,
        card_token=addresses.card_token,
        deployment_block=addresses.deployment_block,
    )


# -- reading a bundle nobody vouches for -----------------------------------------------------

Hex32 = Annotated[str, Field(pattern=r"^0x[0-9a-fA-F]{64}$")]
Address = Annotated[str, Field(pattern=r"^0x[0-9a-fA-F]{40}$")]
HexBytes = Annotated[str, Field(pattern=r"^0x(?:[0-9a-fA-F]{2})*$", max_length=4096)]
Count = Annotated[int, Field(ge=0)]


class _Shape(BaseModel):
    model_config = ConfigDict(strict=True, extra="ignore")


class _Field(_Shape):
    name: str
    type: str


class _Domain(_Shape):
    name: str
    version: str
    chainId: Count
    verifyingContract: Address


class _Message(_Shape):
    matchId: Hex32
    game: str
    rulesetVersion: str
    player0: Address
    player1: Address
    deck0: Hex32
    deck1: Hex32
    seedCommitments: Hex32
    transcriptHash: Hex32
    finalStateHash: Hex32
    winner: Address
    ownershipBlock: Count


class _TypedData(_Shape):
    types: dict[str, list[_Field]]
    primaryType: str
    domain: _Domain
    message: _Message


class _Result(_Shape):
    typed_data: _TypedData
    digest: Hex32
    signature: HexBytes
    signer: Address
    end_reason: Annotated[str, Field(max_length=64)]


class _Chain(_Shape):
    chain_id: Count
    match_ledger: Address
    card_token: Address
    deployment_block: Count


class _Deck(_Shape):
    seat: Count
    player: Address
    is_bot: bool
    cards: dict[Annotated[str, Field(min_length=1, max_length=64)], Count]
    deck_hash: Hex32


class _Seed(_Shape):
    commit: Hex32
    reveal: Hex32


class _Seeds(_Shape):
    operator: _Seed
    players: Annotated[list[_Seed], Field(min_length=2, max_length=2)]
    seed: Annotated[str, Field(pattern=r"^0x[0-9a-fA-F]{1,64}$")]


class _OwnershipBlock(_Shape):
    number: Count
    hash: Hex32


class _Anchor(_Shape):
    batch_id: Annotated[int, Field(ge=1)]
    root: Hex32
    count: Count
    prev_batch_hash: Hex32
    batch_hash: Hex32
    tx_hash: Hex32
    block_number: Count
    block_hash: Hex32
    tree_index: Count
    proof: list[Hex32]


class _Transcript(_Shape):
    """The transcript's top level, strictly typed (the engine reads the rest)."""

    format: str
    game: str
    engine_version: str
    ruleset_version: str
    catalogue_hash: str
    seed: str
    decks: Annotated[list[dict[str, int]], Field(min_length=2, max_length=2)]
    options: dict[str, Any]
    actions: list[list[str | int]]
    checkpoints: dict[str, Any]
    final_hash: str | None = None
    over: bool
    winner: int | None


class BundleShape(_Shape):
    """The parts of a `metaledger.bundle/1` document the checks read, with their types."""

    format: str
    chain: _Chain
    result: _Result
    transcript: _Transcript
    decks: Annotated[list[_Deck], Field(min_length=2, max_length=2)]
    seeds: _Seeds
    ownership_block: _OwnershipBlock
    anchor: _Anchor


def _location(loc: tuple[int | str, ...]) -> str:
    return ".".join(str(part) for part in loc) or "(the document)"


def check_shape(bundle: Any) -> None:
    """InvalidInput naming the first field of `bundle` that is missing or of the wrong type."""
    from engine import Transcript, TranscriptError

    try:
        BundleShape.model_validate(bundle)
    except ValidationError as exc:
        errors = exc.errors(include_url=False, include_input=False)
        first = errors[0]
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        raise InvalidInput(
            f"malformed bundle: {_location(tuple(first['loc']))}: {first['msg']}{more}",
            field=_location(tuple(first["loc"])),
        ) from None
    try:
        Transcript.from_json(bundle["transcript"])
    except TranscriptError as exc:
        raise InvalidInput(f"malformed bundle: transcript: {exc}", field="transcript") from None


def load_bundle(path: Path, limits: untrusted.JsonLimits) -> dict[str, Any]:
    """Read, parse and shape-check a bundle file within `limits`; InvalidInput or
    PayloadTooLarge naming the file and what is wrong."""
    try:
        with path.open("rb") as file:
            data = file.read(limits.max_bytes + 1)
    except OSError as exc:
        raise InvalidInput(f"cannot read {path}: {exc.strerror or exc}") from None
    try:
        bundle = untrusted.parse(data, limits, what=str(path))
    except InvalidInput as exc:
        raise InvalidInput(f"{path}: {exc.detail}", **exc.extra) from None
    try:
        check_shape(bundle)
    except InvalidInput as exc:
        raise InvalidInput(f"{path}: {exc.detail}", **exc.extra) from None
    return dict(bundle)
