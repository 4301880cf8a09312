"""Sign-In with Ethereum (EIP-4361): build, parse and verify messages; single-use nonces;
EOA signatures (EIP-191) and contract wallets (EIP-1271, checked through the chain)."""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

from eth_account import Account
from eth_account.messages import defunct_hash_message, encode_defunct
from eth_utils import is_address, to_checksum_address

from ledger.errors import Unauthorized

if TYPE_CHECKING:
    from ledger.chain import ChainClient

#: how far a client's clock may run ahead of ours for `Issued At`
CLOCK_SKEW = timedelta(seconds=60)

_HEADER = re.compile(
    r"^(?:(?P<scheme>[a-zA-Z][a-zA-Z0-9+\-.]*)://)?(?P<domain>[^\s/?#]+) wants you to sign in with your Ethereum account:$"
)
_FIELDS = (
    ("URI", "uri"),
    ("Version", "version"),
    ("Chain ID", "chain_id"),
    ("Nonce", "nonce"),
    ("Issued At", "issued_at"),
    ("Expiration Time", "expiration_time"),
    ("Not Before", "not_before"),
    ("Request ID", "request_id"),
)


def _iso(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _parse_time(text: str, name: str) -> datetime:
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise Unauthorized(
            f"sign-in message: {name} is not an RFC 3339 date-time", reason="malformed"
        ) from None
    if moment.tzinfo is None:
        raise Unauthorized(f"sign-in message: {name} needs a time zone", reason="malformed")
    return moment.astimezone(UTC)


@dataclass(frozen=True)
class SiweMessage:
    """The fields of an EIP-4361 message."""

    domain: str
    address: str
    uri: str
    chain_id: int
    nonce: str
    issued_at: datetime
    statement: str | None = None
    version: str = "1"
    expiration_time: datetime | None = None
    not_before: datetime | None = None
    request_id: str | None = None
    resources: tuple[str, ...] = field(default_factory=tuple)
    scheme: str | None = None

    def text(self) -> str:
        """The message exactly as the wallet signs it (EIP-4361 layout)."""
        prefix = f"{self.scheme}://" if self.scheme else ""
        lines = [
            f"{prefix}{self.domain} wants you to sign in with your Ethereum account:",
            self.address,
            "",
        ]
        if self.statement is not None:
            lines.append(self.statement)
        lines += [
            "",
            f"URI: {self.uri}",
            f"Version: {self.version}",
            f"Chain ID: {self.chain_id}",
            f"Nonce: {self.nonce}",
            f"Issued At: {_iso(self.issued_at)}",
        ]
        if self.expiration_time is not None:
            lines.append(f"Expiration Time: {_iso(self.expiration_time)}")
        if self.not_before is not None:
            lines.append(f"Not Before: {_iso(self.not_before)}")
        if self.request_id is not None:
            lines.append(f"Request ID: {self.request_id}")
        if self.resources:
            lines.append("Resources:")
            lines += [f"- {r}" for r in self.resources]
        return "\n".join(lines)


def build_message(
    *,
    domain: str,
    address: str,
    chain_id: int,
    nonce: str,
    uri: str | None = None,
    statement: str | None = "Sign in to MetaLedger.",
    issued_at: datetime | None = None,
    ttl: timedelta = timedelta(minutes=10),
) -> SiweMessage:
    """A sign-in message for `address`, issued now and expiring after `ttl`."""
    now = issued_at or datetime.now(UTC)
    return SiweMessage(
        domain=domain,
        address=to_checksum_address(address),
        uri=uri or f"http://{domain}",
        chain_id=chain_id,
        nonce=nonce,
        issued_at=now,
        statement=statement,
        expiration_time=now + ttl,
    )


def parse_message(text: str) -> SiweMessage:
    """Parse an EIP-4361 message; raises Unauthorized naming what is malformed."""
    lines = text.split("\n")
    if len(lines) < 7:
        raise Unauthorized(
            "sign-in message: too short to be an EIP-4361 message", reason="malformed"
        )
    header = _HEADER.match(lines[0])
    if header is None:
        raise Unauthorized(
            "sign-in message: the first line is not an EIP-4361 header", reason="malformed"
        )
    address = lines[1]
    if not is_address(address) or not address.startswith("0x"):
        raise Unauthorized("sign-in message: the second line is not an address", reason="malformed")
    if address != to_checksum_address(address):
        raise Unauthorized(
            "sign-in message: the address must be EIP-55 checksummed", reason="malformed"
        )
    if lines[2] != "":
        raise Unauthorized(
            "sign-in message: expected an empty line after the address", reason="malformed"
        )
    i = 3
    statement: str | None = None
    if lines[i] != "":
        statement = lines[i]
        i += 1
    if i >= len(lines) or lines[i] != "":
        raise Unauthorized("sign-in message: expected an empty line before URI", reason="malformed")
    i += 1
    values: dict[str, str] = {}
    for label, key in _FIELDS:
        if i < len(lines) and lines[i].startswith(f"{label}: "):
            values[key] = lines[i][len(label) + 2 :]
            i += 1
    resources: list[str] = []
    if i < len(lines) and lines[i] == "Resources:":
        i += 1
        while i < len(lines) and lines[i].startswith("- "):
            resources.append(lines[i][2:])
            i += 1
    if i != len(lines):
        raise Unauthorized(
            f"sign-in message: unexpected line {i + 1}: {lines[i][:80]!r}", reason="malformed"
        )
    for required in ("uri", "version", "chain_id", "nonce", "issued_at"):
        if required not in values:
            raise Unauthorized(f"sign-in message: missing field {required}", reason="malformed")
    if values["version"] != "1":
        raise Unauthorized("sign-in message: Version must be 1", reason="malformed")
    if not values["chain_id"].isdigit():
        raise Unauthorized(
            "sign-in message: Chain ID must be a decimal integer", reason="malformed"
        )
    if not re.fullmatch(r"[A-Za-z0-9]{8,}", values["nonce"]):
        raise Unauthorized(
            "sign-in message: Nonce must be at least 8 alphanumerics", reason="malformed"
        )
    return SiweMessage(
        domain=header.group("domain"),
        scheme=header.group("scheme"),
        address=address,
        statement=statement,
        uri=values["uri"],
        version=values["version"],
        chain_id=int(values["chain_id"]),
        nonce=values["nonce"],
        issued_at=_parse_time(values["issued_at"], "Issued At"),
        expiration_time=_parse_time(values["expiration_time"], "Expiration Time")
        if "expiration_time" in values
        else None,
        not_before=_parse_time(values["not_before"], "Not Before")
        if "not_before" in values
        else None,
        request_id=values.get("request_id"),
        resources=tuple(resources),
    )


def new_nonce() -> str:
    """A fresh random nonce (32 hex characters)."""
    return secrets.token_hex(16)


def check_fields(
    message: SiweMessage, *, domain: str, chain_id: int, now: datetime | None = None
) -> None:
    """Check domain, chain id and the time window; raises Unauthorized naming the field."""
    now = now or datetime.now(UTC)
    if message.domain != domain:
        raise Unauthorized(
            f"sign-in message is for domain {message.domain!r}, not {domain!r}",
            reason="wrong-domain",
        )
    if message.chain_id != chain_id:
        raise Unauthorized(
            f"sign-in message is for chain id {message.chain_id}, not {chain_id}",
            reason="wrong-chain",
        )
    if message.expiration_time is None:
        raise Unauthorized("sign-in message has no Expiration Time", reason="malformed")
    if message.expiration_time <= now:
        raise Unauthorized("sign-in message has expired", reason="expired")
    if message.issued_at > now + CLOCK_SKEW:
        raise Unauthorized("sign-in message is issued in the future", reason="not-yet-valid")
    if message.not_before is not None and message.not_before > now + CLOCK_SKEW:
        raise Unauthorized("sign-in message is not valid yet (Not Before)", reason="not-yet-valid")


def verify_signature(
    message_text: str, address: str, signature: str, chain: ChainClient | None
) -> bool:
    """Whether `signature` signs `message_text` for `address`; returns True for EOA
    signatures and False if a contract wallet signed (EIP-1271). Raises Unauthorized on a
    bad signature."""
    try:
        sig = bytes.fromhex(signature.removeprefix("0x"))
    except ValueError:
        raise Unauthorized("signature is not hex", reason="bad-signature") from None
    if len(sig) == 65:
        try:
            recovered = Account.recover_message(encode_defunct(text=message_text), signature=sig)
        except Exception:  # eth-keys raises several types for a malformed signature
            recovered = None
        if recovered is not None and recovered.lower() == address.lower():
            return True
    if chain is not None and chain.has_code(address):
        digest = bytes(defunct_hash_message(text=message_text))
        if chain.is_valid_signature_1271(address, digest, sig):
            return False
    raise Unauthorized(
        "the signature does not match the address in the message", reason="bad-signature"
    )
