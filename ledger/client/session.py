"""A player's side of a signed match: a fresh session key, the wallet's one SeatAuthorization,
every move signed by the session key, every receipt checked, and the end acknowledged."""

from __future__ import annotations

import secrets
import time
from typing import Any

from ledger.errors import MetaLedgerError
from ledger.protocol import eip712
from ledger.protocol.hexcodec import bytes32, to_hex
from ledger.protocol.signatures import address_of_key, recover_low_s_signer, sign_digest
from ledger.protocol.signedmoves import (
    RESIGN_ACTION,
    EntryChain,
    SeatAuthorization,
    canonical_action,
)

#: how long a session key is authorized for by default
SESSION_SECONDS = 24 * 3600


class ReceiptRefused(MetaLedgerError):
    """The operator's answer does not prove it accepted the move that was signed."""


class MatchSession:
    """The session key of one seat of one match (`match` is the API's MatchOut of it) and what
    it signs; `operator` is the result signer whose receipts are expected."""

    def __init__(
        self,
        wallet_key: str,
        match: dict[str, Any],
        seat: int,
        operator: str,
        *,
        seconds: int = SESSION_SECONDS,
    ) -> None:
        domain = match["domain"]
        self.wallet_key = wallet_key
        self.match = match
        self.seat = seat
        self.operator = operator
        self.chain_id = int(domain["chainId"])
        self.contract = str(domain["verifyingContract"])
        self.chain = EntryChain(match["id"], self.chain_id, self.contract)
        self.key = secrets.token_bytes(32)
        self.address = address_of_key(self.key)
        self.expiry = int(time.time()) + seconds
        #: index -> the entry hash this session signed there
        self.signed: dict[int, bytes] = {}
        self.receipts = 0

    def authorization(self, commit: str) -> dict[str, Any]:
        """The body of `POST /matches/{id}/commit`: the commit and the wallet's signature of
        the SeatAuthorization of this session key (the only wallet signature of the match)."""
        struct = SeatAuthorization(
            match_id=self.match["id"],
            game=self.match["game"],
            ruleset_version=self.match["ruleset_version"],
            seat=self.seat,
            deck_hash=self.match["seats"][self.seat]["deck_hash"],
            seed_commit=bytes32(commit, "commit"),
            session_key=self.address,
            expiry=self.expiry,
        )
        digest = eip712.digest(struct, self.chain_id, self.contract)
        return {
            "commit": commit,
            "session_key": self.address,
            "expiry": self.expiry,
            "authorization": to_hex(sign_digest(self.wallet_key, digest)),
        }

    def sign(self, action: Any, index: int, prev_entry_hash: str) -> dict[str, Any]:
        """`salt` and `signature` of the MatchAction of `action` (a JSON list, or its canonical
        text) at `index` after `prev_entry_hash`."""
        text = action if isinstance(action, str) else canonical_action(action)
        salt = secrets.token_bytes(32)
        entry_hash = self.chain.entry_hash(
            self.seat, index, bytes32(prev_entry_hash, "head hash"), text, salt
        )
        self.signed[index] = entry_hash
        return {"salt": to_hex(salt), "signature": to_hex(sign_digest(self.key, entry_hash))}

    def move(self, action: list[Any], index: int, prev_entry_hash: str) -> dict[str, Any]:
        """The body of `POST /matches/{id}/actions` for `action` at match version `index`."""
        return {"action": action, "version": index, **self.sign(action, index, prev_entry_hash)}

    def resignation(self, index: int, prev_entry_hash: str) -> dict[str, Any]:
        """The body of `POST /matches/{id}/resign` for an active match."""
        return self.sign(RESIGN_ACTION, index, prev_entry_hash)

    def check(self, entry: dict[str, Any]) -> None:
        """An entry of the API's answer: its receipt is the operator's signature of this index
        and entry hash, and an entry this session signed has the hash it signed."""
        index = int(entry["index"])
        entry_hash = bytes32(entry["entry_hash"], "entry_hash")
        if index in self.signed and self.signed[index] != entry_hash:
            raise ReceiptRefused(f"the operator recorded another entry {index} than the one signed")
        signer = recover_low_s_signer(
            self.chain.receipt_digest(index, entry_hash), entry["receipt"]
        )
        if signer != self.operator:
            raise ReceiptRefused(
                f"the receipt of entry {index} is signed by {signer}, not the operator {self.operator}"
            )
        self.receipts += 1

    def acknowledgement(self, finished: dict[str, Any]) -> dict[str, Any]:
        """The body of `POST /matches/{id}/acknowledge` for the finished match `finished`
        (its MatchOut): MatchEnd over all its entries, ending at its head hash."""
        digest = self.chain.end_digest(int(finished["entries"]), bytes32(finished["head_hash"]))
        return {"signature": to_hex(sign_digest(self.key, digest))}
