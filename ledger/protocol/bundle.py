"""The match bundle formats (``metaledger.bundle/1``, ``/2`` and ``/3``, docs/verification.md):
everything an auditor needs to verify one match, as one JSON document, and how a bundle nobody
vouches for is read.

The operator exports bundles from its database (`ledger.audit.export`); verifying one
(`ledger.audit.verify`) needs only the bundle and an RPC URL.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ledger.errors import InvalidInput
from ledger.protocol import untrusted
from ledger.protocol.signedmoves import TRANSCRIPT_FORMAT_2, TRANSCRIPT_FORMAT_3

BUNDLE_FORMAT = "metaledger.bundle/1"
#: a bundle whose transcript is signed by the players (`metaledger.transcript/2`)
BUNDLE_FORMAT_2 = "metaledger.bundle/2"
#: a bundle whose signed transcript carries no operator receipts (`metaledger.transcript/3`)
BUNDLE_FORMAT_3 = "metaledger.bundle/3"
BUNDLE_FORMATS = (BUNDLE_FORMAT, BUNDLE_FORMAT_2, BUNDLE_FORMAT_3)
_BUNDLE_OF_TRANSCRIPT = {TRANSCRIPT_FORMAT_2: BUNDLE_FORMAT_2, TRANSCRIPT_FORMAT_3: BUNDLE_FORMAT_3}


def bundle_format_of(transcript_format: Any) -> str:
    """The bundle format that carries a transcript of `transcript_format` (format 1 otherwise)."""
    return _BUNDLE_OF_TRANSCRIPT.get(transcript_format, BUNDLE_FORMAT)


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


class _SeatAuthorization(_Shape):
    seat: Count
    player: Address
    by_bot: bool
    deck_hash: Hex32
    seed_commit: Hex32
    session_key: Address
    expiry: Count
    signature: HexBytes


class _Entry3(_Shape):
    """An entry of a `metaledger.transcript/3`: what the players sign, and nothing else (no
    field the checks do not read)."""

    model_config = ConfigDict(strict=True, extra="forbid")
    index: Count
    seat: Annotated[int, Field(ge=0, le=1)]
    by_bot: bool
    action: Annotated[str, Field(min_length=2, max_length=4096)]
    salt: Hex32
    signature: HexBytes | None
    entry_hash: Hex32


class _Entry(_Entry3):
    """An entry of a `metaledger.transcript/2`, with the operator's receipt."""

    model_config = ConfigDict(strict=True, extra="ignore")
    receipt: HexBytes


class _SignedTranscript(_Shape):
    """A `metaledger.transcript/2`: the engine transcript and what was signed around it."""

    format: str
    match_id: Hex32
    engine: _Transcript
    seats: Annotated[list[_SeatAuthorization], Field(min_length=2, max_length=2)]
    genesis_hash: Hex32
    entries: list[_Entry]


class _SignedTranscript3(_SignedTranscript):
    """A `metaledger.transcript/3`: format 2 without the operator's receipts."""

    entries: list[_Entry3]  # type: ignore[assignment]


class _Acknowledgement(_Shape):
    seat: Annotated[int, Field(ge=0, le=1)]
    signature: HexBytes


class Leaf(_Shape):
    """One leaf of a batch: its tree index and its MatchResult message."""

    tree_index: Count
    result: _Message


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


class SignedBundleShape(BundleShape):
    """A `metaledger.bundle/2`: a signed transcript, the players' end acknowledgements and the
    batch's leaf list."""

    transcript: _SignedTranscript  # type: ignore[assignment]
    acknowledgements: Annotated[list[_Acknowledgement], Field(max_length=2)]
    batch_leaves: list[Leaf]


class SignedBundleShape3(SignedBundleShape):
    """A `metaledger.bundle/3`: format 2's fields with a `metaledger.transcript/3`."""

    transcript: _SignedTranscript3


_SHAPES: dict[str, type[BundleShape]] = {
    BUNDLE_FORMAT_2: SignedBundleShape,
    BUNDLE_FORMAT_3: SignedBundleShape3,
}


def _location(loc: tuple[int | str, ...]) -> str:
    return ".".join(str(part) for part in loc) or "(the document)"


def check_shape(bundle: Any) -> None:
    """InvalidInput naming the first field of `bundle` that is missing or of the wrong type."""
    from engine import Transcript, TranscriptError

    shape = BundleShape
    if isinstance(bundle, dict) and isinstance(bundle.get("format"), str):
        shape = _SHAPES.get(bundle["format"], BundleShape)
    signed = shape is not BundleShape
    try:
        shape.model_validate(bundle)
    except ValidationError as exc:
        errors = exc.errors(include_url=False, include_input=False)
        first = errors[0]
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        raise InvalidInput(
            f"malformed bundle: {_location(tuple(first['loc']))}: {first['msg']}{more}",
            field=_location(tuple(first["loc"])),
        ) from None
    transcript = bundle["transcript"]["engine"] if signed else bundle["transcript"]
    try:
        Transcript.from_json(transcript)
    except TranscriptError as exc:
        raise InvalidInput(f"malformed bundle: transcript: {exc}", field="transcript") from None


def load_bundle(
    path: Path,
    limits: untrusted.JsonLimits,
    parse: Callable[[bytes, untrusted.JsonLimits, str], Any] = untrusted.parse,
    shape: Callable[[Any], None] = check_shape,
) -> dict[str, Any]:
    """Read, parse and shape-check a bundle file within `limits`; InvalidInput or
    PayloadTooLarge naming the file and what is wrong. `parse` and `shape` stand for
    `untrusted.parse` and `check_shape` (a bulk audit's, which reuse what a batch shares)."""
    try:
        with path.open("rb") as file:
            # read(max_bytes + 1) would allocate the whole limit (64 MiB) for every file
            size = min(os.fstat(file.fileno()).st_size, limits.max_bytes)
            data = file.read(size + 1)
            if len(data) > size:  # the file grew since: read on up to the limit
                data += file.read(limits.max_bytes + 1 - len(data))
    except OSError as exc:
        raise InvalidInput(f"cannot read {path}: {exc.strerror or exc}") from None
    try:
        bundle = parse(data, limits, "the file")
    except InvalidInput as exc:
        raise InvalidInput(f"{path}: {exc.detail}", **exc.extra) from None
    try:
        shape(bundle)
    except InvalidInput as exc:
        raise InvalidInput(f"{path}: {exc.detail}", **exc.extra) from None
    return dict(bundle)
