"""What players sign during a match, and what the operator answers (EIP-712, the result's domain
`MetaLedger` / `1` / chain id / MatchLedger):

- `SeatAuthorization`, signed once by the player's wallet (EOA or EIP-1271): this seat of this
  match, with this deck and seed commitment, is played by `sessionKey` until `expiry`;
- `MatchAction`, signed by the session key for every move: the entry at `index`, chained to the
  previous entry's hash; the entry hash is the digest of its MatchAction;
- `MatchReceipt`, signed by the operator's result signer for every accepted entry (handed to
  the player live; part of the anchored transcript only in format 2);
- `MatchEnd`, signed by each human's session key once the match is over: the whole transcript.

The entry hash chain starts at a genesis hash binding the match id, both seat authorizations
and the engine seed. docs/verification.md ("Signed moves") documents each field.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any, ClassVar

from ledger.protocol.eip712 import (
    RESULT_DOMAIN_NAME,
    TypedStruct,
    declared_fields,
    digest,
    domain_separator,
    type_string,
)
from ledger.protocol.hexcodec import bytes32
from ledger.protocol.keccak import keccak

SEAT_AUTHORIZATION_FIELDS: list[dict[str, str]] = declared_fields(
    "bytes32 matchId, string game, string rulesetVersion, uint8 seat, bytes32 deckHash, "
    "bytes32 seedCommit, address sessionKey, uint64 expiry"
)
MATCH_ACTION_FIELDS: list[dict[str, str]] = declared_fields(
    "bytes32 matchId, uint8 seat, uint32 index, bytes32 prevEntryHash, string action, bytes32 salt"
)
MATCH_RECEIPT_FIELDS: list[dict[str, str]] = declared_fields(
    "bytes32 matchId, uint32 index, bytes32 entryHash"
)
MATCH_END_FIELDS: list[dict[str, str]] = declared_fields(
    "bytes32 matchId, uint32 entries, bytes32 finalEntryHash"
)

#: the entry actions of a forfeit (they follow the engine's actions)
RESIGN_ACTION = '["resign"]'
TIMEOUT_ACTION = '["timeout"]'


@dataclass(frozen=True, slots=True)
class SeatAuthorization(TypedStruct):
    """A wallet's authorization of a session key for one seat of one match."""

    PRIMARY_TYPE: ClassVar[str] = "SeatAuthorization"
    FIELDS: ClassVar[list[dict[str, str]]] = SEAT_AUTHORIZATION_FIELDS
    TYPEHASH: ClassVar[bytes] = keccak(type_string("SeatAuthorization", SEAT_AUTHORIZATION_FIELDS))

    match_id: bytes
    game: str
    ruleset_version: str
    seat: int
    deck_hash: bytes
    seed_commit: bytes
    session_key: str
    expiry: int


@dataclass(frozen=True, slots=True)
class MatchAction(TypedStruct):
    """One transcript entry: `action` is the canonical JSON of the move (`["play",3]`); `salt`
    is 32 random bytes chosen by whoever makes the entry, so that a reader who sees the entry
    hash (the next move signs it) cannot test guesses of a hidden action against it."""

    PRIMARY_TYPE: ClassVar[str] = "MatchAction"
    FIELDS: ClassVar[list[dict[str, str]]] = MATCH_ACTION_FIELDS
    TYPEHASH: ClassVar[bytes] = keccak(type_string("MatchAction", MATCH_ACTION_FIELDS))

    match_id: bytes
    seat: int
    index: int
    prev_entry_hash: bytes
    action: str
    salt: bytes


@dataclass(frozen=True, slots=True)
class MatchReceipt(TypedStruct):
    """The operator's receipt of the entry at `index` whose hash is `entry_hash`."""

    PRIMARY_TYPE: ClassVar[str] = "MatchReceipt"
    FIELDS: ClassVar[list[dict[str, str]]] = MATCH_RECEIPT_FIELDS
    TYPEHASH: ClassVar[bytes] = keccak(type_string("MatchReceipt", MATCH_RECEIPT_FIELDS))

    match_id: bytes
    index: int
    entry_hash: bytes


@dataclass(frozen=True, slots=True)
class MatchEnd(TypedStruct):
    """A player's acknowledgement of the whole transcript: `entries` entries ending at
    `final_entry_hash`."""

    PRIMARY_TYPE: ClassVar[str] = "MatchEnd"
    FIELDS: ClassVar[list[dict[str, str]]] = MATCH_END_FIELDS
    TYPEHASH: ClassVar[bytes] = keccak(type_string("MatchEnd", MATCH_END_FIELDS))

    match_id: bytes
    entries: int
    final_entry_hash: bytes


def canonical_action(move: Any) -> str:
    """The canonical JSON text of a move `[kind, *args]` (no spaces; what `MatchAction.action`
    holds; `JSON.stringify` gives the same text for the same list)."""
    from engine import canonical_json

    return canonical_json(list(move)).decode()


def genesis_hash(match_id: bytes | str, seat_digests: tuple[bytes, bytes], seed: int) -> bytes:
    """`prevEntryHash` of entry 0: keccak256(abi.encode(matchId, seat0AuthorizationDigest,
    seat1AuthorizationDigest, uint256 seed))."""
    return keccak(
        bytes32(match_id, "match id")
        + bytes32(seat_digests[0], "seat 0 authorization digest")
        + bytes32(seat_digests[1], "seat 1 authorization digest")
        + seed.to_bytes(32, "big")
    )


def _uint(value: Any, bits: int, name: str) -> bytes:
    """A uintN field's 32-byte word, range-checked as `TypedStruct` checks it."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 1 << bits:
        raise ValueError(f"{name} must fit in uint{bits}")
    return value.to_bytes(32, "big")


def _action_hash(action: str) -> bytes:
    """keccak256 of an action's text (short texts remembered: a match repeats a few dozen)."""
    return _short_text_hash(action) if len(action) <= 64 else keccak(action.encode())


@lru_cache(maxsize=4096)
def _short_text_hash(text: str) -> bytes:
    return keccak(text.encode())


def _word(value: bytes | str, name: str) -> bytes:
    """A bytes32 field's word (`bytes32`, with the common case of 32 bytes first)."""
    return value if type(value) is bytes and len(value) == 32 else bytes32(value, name)


class EntryChain:
    """Digests of one match's entries, receipts and acknowledgements in its domain (the domain
    separator is computed once per domain). Entries and receipts, a match's thousands of
    digests, are packed directly (the same words `MatchAction.struct_hash` and
    `MatchReceipt.struct_hash` encode, with the same range checks; a test holds them equal):
    the one code path of the API signing them, the client checking them and the auditor."""

    __slots__ = ("_action_head", "_prefix", "chain_id", "contract", "match_id")

    def __init__(self, match_id: bytes | str, chain_id: int, contract: str) -> None:
        self.match_id = bytes32(match_id, "match id")
        self.chain_id = chain_id
        self.contract = contract
        self._prefix = b"\x19\x01" + domain_separator(RESULT_DOMAIN_NAME, chain_id, contract)
        self._action_head = MatchAction.TYPEHASH + self.match_id

    def entry_hash(
        self, seat: int, index: int, prev_entry_hash: bytes, action: str, salt: bytes
    ) -> bytes:
        """The entry hash: the EIP-712 digest of its MatchAction."""
        if not isinstance(action, str):
            raise ValueError("action must be a string")
        struct_hash = keccak(
            b"".join(
                (
                    self._action_head,
                    _uint(seat, 8, "seat"),
                    _uint(index, 32, "index"),
                    _word(prev_entry_hash, "prev_entry_hash"),
                    _action_hash(action),
                    _word(salt, "salt"),
                )
            )
        )
        return keccak(self._prefix + struct_hash)

    def receipt_digest(self, index: int, entry_hash: bytes) -> bytes:
        """The digest the operator signs as the receipt of an entry."""
        struct_hash = keccak(
            MatchReceipt.TYPEHASH
            + self.match_id
            + _uint(index, 32, "index")
            + bytes32(entry_hash, "entry_hash")
        )
        return keccak(self._prefix + struct_hash)

    def end_digest(self, entries: int, final_entry_hash: bytes) -> bytes:
        """The digest a player signs to acknowledge the end of the match."""
        struct = MatchEnd(self.match_id, entries, final_entry_hash)
        return digest(struct, self.chain_id, self.contract)


# -- the signed transcripts (metaledger.transcript/2 and /3) --------------------------------

TRANSCRIPT_FORMAT_2 = "metaledger.transcript/2"
#: format 2 without the operator's per-entry receipts (docs/verification.md, "Formats")
TRANSCRIPT_FORMAT_3 = "metaledger.transcript/3"
SIGNED_TRANSCRIPT_FORMATS = (TRANSCRIPT_FORMAT_2, TRANSCRIPT_FORMAT_3)


def entry_record(
    index: int,
    seat: int,
    by_bot: bool,
    action: str,
    salt: str | None,
    signature: str | None,
    entry_hash: str | None,
    receipt: str | None,
) -> dict[str, Any]:
    """One entry as the API shows it (with its receipt); hashes and salt as 0x-hex."""
    return {
        "index": index,
        "seat": seat,
        "by_bot": by_bot,
        "action": action,
        "salt": salt,
        "signature": signature,
        "entry_hash": entry_hash,
        "receipt": receipt,
    }


def transcript_entry(record: dict[str, Any]) -> dict[str, Any]:
    """An entry as a `metaledger.transcript/3` holds it: the API's record without the receipt."""
    return {key: value for key, value in record.items() if key != "receipt"}


def signed_transcript(
    engine: dict[str, Any],
    match_id: str,
    seats: list[dict[str, Any]],
    genesis: str,
    entries: list[dict[str, Any]],
) -> dict[str, Any]:
    """A `metaledger.transcript/3` document: the engine transcript (format 1) and what the
    players signed around it (seat authorizations, the entries with their signatures)."""
    return {
        "format": TRANSCRIPT_FORMAT_3,
        "match_id": match_id,
        "engine": engine,
        "seats": seats,
        "genesis_hash": genesis,
        "entries": [transcript_entry(e) for e in entries],
    }


def engine_transcript(transcript: dict[str, Any]) -> dict[str, Any]:
    """The engine transcript (format 1) of a transcript of any format."""
    if transcript.get("format") in SIGNED_TRANSCRIPT_FORMATS:
        return dict(transcript["engine"])
    return transcript


def transcript_hash(transcript: dict[str, Any]) -> bytes:
    """The signed `transcriptHash`: keccak256 of the transcript's canonical JSON (format 1: of
    the engine's canonical form, `Transcript.canonical_bytes()`)."""
    from engine import Transcript, canonical_json

    if transcript.get("format") in SIGNED_TRANSCRIPT_FORMATS:
        return keccak(canonical_json(transcript))
    return keccak(Transcript.from_json(transcript).canonical_bytes())
