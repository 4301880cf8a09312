"""What the operator checks and signs around a match's moves: seat authorizations (the wallet's,
EOA or EIP-1271), each move's session-key signature, the entry hash chain from its genesis,
the operator's receipt of every entry, and the players' end acknowledgements
(`ledger.protocol.signedmoves` defines the structs)."""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass
from typing import Any

from eth_utils import is_address, to_checksum_address

from ledger.db.models import Match, MatchSeat
from ledger.errors import Forbidden, InvalidInput
from ledger.matches.repository import LiveMatch
from ledger.protocol import eip712
from ledger.protocol.hexcodec import bytes32, from_hex, to_hex
from ledger.protocol.signatures import recover_low_s_signer
from ledger.protocol.signedmoves import EntryChain, SeatAuthorization, entry_record, genesis_hash
from ledger.runtime.context import Context

#: the expiry of the bot seat's authorization (the operator's own session key never expires)
BOT_EXPIRY = 2**63 - 1
#: the longest signature a contract wallet may send (EIP-1271 signatures are opaque bytes)
MAX_SIGNATURE_BYTES = 2048


@dataclass(frozen=True, slots=True)
class SeatGrant:
    """A seat authorization as a client sends it: the session key, its expiry (unix seconds)
    and the wallet's signature of the SeatAuthorization."""

    session_key: str
    expiry: int
    signature: str


def _authorization(
    match: Match, seat: MatchSeat, commit: str, session_key: str, expiry: int
) -> SeatAuthorization:
    return SeatAuthorization(
        match_id=bytes32(match.id, "match id"),
        game=match.game,
        ruleset_version=match.ruleset_version,
        seat=seat.seat,
        deck_hash=bytes32(seat.deck_hash, "deck hash"),
        seed_commit=bytes32(commit, "commit"),
        session_key=session_key,
        expiry=expiry,
    )


def seat_authorization(match: Match, seat: MatchSeat) -> SeatAuthorization:
    """The stored SeatAuthorization of a seat that has committed."""
    assert seat.seed_commit and seat.session_key and seat.authorization_expiry is not None
    return _authorization(
        match, seat, seat.seed_commit, seat.session_key, seat.authorization_expiry
    )


def seat_digest(ctx: Context, match: Match, seat: MatchSeat) -> bytes:
    """The EIP-712 digest of a seat's authorization (what the wallet signed)."""
    return eip712.digest(
        seat_authorization(match, seat), ctx.chain_id, ctx.chain.addresses.match_ledger
    )


def check_seat_authorization(
    ctx: Context, match: Match, seat: MatchSeat, commit: str, grant: SeatGrant
) -> None:
    """The seat's wallet signed this SeatAuthorization (an EOA's signature, or a contract wallet
    that accepts it by EIP-1271 now); InvalidInput naming the field otherwise."""
    if not is_address(grant.session_key):
        raise InvalidInput("session_key must be an address", field="session_key")
    minimum = int(time.time()) + ctx.settings.turn_timeout_seconds
    if not minimum <= grant.expiry <= BOT_EXPIRY:
        raise InvalidInput(
            f"expiry must be a unix time at least one turn timeout from now (>= {minimum})",
            field="expiry",
        )
    signature = from_hex(grant.signature, "authorization")
    if len(signature) > MAX_SIGNATURE_BYTES:
        raise InvalidInput(
            f"authorization is longer than {MAX_SIGNATURE_BYTES} bytes", field="authorization"
        )
    struct = _authorization(
        match, seat, commit, to_checksum_address(grant.session_key), grant.expiry
    )
    digest = eip712.digest(struct, ctx.chain_id, ctx.chain.addresses.match_ledger)
    if len(signature) == 65:
        try:
            if recover_low_s_signer(digest, signature) == seat.address:
                return
        except InvalidInput:
            pass
    if ctx.chain.has_code(seat.address) and ctx.chain.is_valid_signature_1271(
        seat.address, digest, signature
    ):
        return
    raise InvalidInput(
        f"authorization is not {seat.address}'s signature of the SeatAuthorization of seat "
        f"{seat.seat} (EIP-712 digest {to_hex(digest)})",
        field="authorization",
        digest=to_hex(digest),
    )


def authorize_bot_seat(ctx: Context, match: Match, seat: MatchSeat) -> None:
    """Sign the bot seat's SeatAuthorization with the result signer (its own session key)."""
    assert seat.seed_commit is not None
    struct = _authorization(match, seat, seat.seed_commit, ctx.bot_address, BOT_EXPIRY)
    digest = eip712.digest(struct, ctx.chain_id, ctx.chain.addresses.match_ledger)
    seat.session_key = ctx.bot_address
    seat.authorization_expiry = BOT_EXPIRY
    seat.authorization = to_hex(ctx.signer.sign_digest(digest))


def genesis(ctx: Context, match: Match, seats: list[MatchSeat], seed: int) -> str:
    """The genesis hash of a match whose seats are authorized, as 0x-hex."""
    digests = (seat_digest(ctx, match, seats[0]), seat_digest(ctx, match, seats[1]))
    return to_hex(genesis_hash(match.id, digests, seed))


@dataclass(slots=True)
class Entry:
    """One entry appended to a match's transcript, with the operator's receipt."""

    index: int
    seat: int
    action: str
    salt: bytes
    signature: str | None
    entry_hash: bytes
    receipt: str
    by_bot: bool

    def record(self) -> dict[str, Any]:
        """The entry as the signed transcript (and the API) show it."""
        return entry_record(
            self.index,
            self.seat,
            self.by_bot,
            self.action,
            to_hex(self.salt),
            self.signature,
            to_hex(self.entry_hash),
            self.receipt,
        )


class EntryWriter:
    """Appends entries after a match's head: checks a player's signature, or makes the
    operator's entry (bot moves, timeouts), and signs each entry's receipt."""

    __slots__ = ("chain", "head", "index", "signer")

    def __init__(self, ctx: Context, match: Match | LiveMatch) -> None:
        if match.head_hash is None:
            raise Forbidden("this match has no signed transcript (it started unsigned)")
        self.chain = EntryChain(match.id, ctx.chain_id, ctx.chain.addresses.match_ledger)
        self.signer = ctx.signer
        self.head = bytes32(match.head_hash, "head hash")
        self.index = match.version

    def _append(
        self,
        seat: int,
        action: str,
        salt: bytes,
        signature: str | None,
        entry_hash: bytes,
        bot: bool,
    ) -> Entry:
        receipt = to_hex(self.signer.sign_digest(self.chain.receipt_digest(self.index, entry_hash)))
        entry = Entry(self.index, seat, action, salt, signature, entry_hash, receipt, bot)
        self.head = entry_hash
        self.index += 1
        return entry

    def player(self, seat: MatchSeat, action: str, salt: str, signature: str) -> Entry:
        """The seat's move `action` (canonical JSON) if its session key signed its MatchAction
        at this index after this head; InvalidInput (field `signature`) otherwise."""
        if seat.authorization_expiry is not None and seat.authorization_expiry < time.time():
            raise Forbidden(
                f"your session key's authorization expired at {seat.authorization_expiry}"
            )
        raw_salt = bytes32(salt, "salt")
        entry_hash = self.chain.entry_hash(seat.seat, self.index, self.head, action, raw_salt)
        signer = recover_low_s_signer(entry_hash, signature)
        if signer != seat.session_key:
            raise InvalidInput(
                f"signature is not your session key's signature of MatchAction(seat {seat.seat}, "
                f"index {self.index}, prevEntryHash {to_hex(self.head)}, action {action})",
                field="signature",
                index=self.index,
                prev_entry_hash=to_hex(self.head),
            )
        return self._append(seat.seat, action, raw_salt, signature.lower(), entry_hash, False)

    def operator(self, seat: int, action: str, *, bot: bool = False) -> Entry:
        """The operator's entry (a bot move, or a timeout): no player signature."""
        salt = secrets.token_bytes(32)
        entry_hash = self.chain.entry_hash(seat, self.index, self.head, action, salt)
        return self._append(seat, action, salt, None, entry_hash, bot)


def check_end(ctx: Context, match: Match, seat: MatchSeat, entries: int, signature: str) -> None:
    """The seat's session key signed MatchEnd(match, entries, head); InvalidInput otherwise."""
    assert match.head_hash is not None
    chain = EntryChain(match.id, ctx.chain_id, ctx.chain.addresses.match_ledger)
    digest = chain.end_digest(entries, bytes32(match.head_hash, "head hash"))
    if recover_low_s_signer(digest, signature) != seat.session_key:
        raise InvalidInput(
            f"signature is not your session key's signature of MatchEnd({entries} entries, "
            f"finalEntryHash {match.head_hash})",
            field="signature",
            entries=entries,
            final_entry_hash=match.head_hash,
        )
