"""Sign-In with Ethereum (EIP-4361): build, parse and check messages; verify signatures.

The parser follows the EIP's ABNF (the grammar the reference implementation, spruceid/siwe,
parses with): the domain is an RFC 3986 authority, the URI and every resource an RFC 3986
URI, times RFC 3339 date-times, the statement printable ASCII without line breaks;
`Expiration Time`, `Not Before`, `Request ID` and `Resources` are optional. Times keep the
text the wallet signed (the message is reproduced byte for byte).

Signatures: a 65-byte `r‖s‖v` (v = 27/28 or 0/1) or a 64-byte EIP-2098 compact `r‖vs`, in
low-s form only (EIP-2: a high-s twin of a signature is refused), recovered over the EIP-191
personal-sign hash; otherwise, for an address with code, EIP-1271 `isValidSignature` through
the chain (contract wallets).
"""

from __future__ import annotations

import ipaddress
import re
import secrets
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta, timezone
from enum import StrEnum
from typing import Protocol

from eth_account.messages import defunct_hash_message
from eth_utils import is_checksum_address, to_checksum_address

from ledger.errors import InvalidInput, Unauthorized
from ledger.protocol.hexcodec import from_hex
from ledger.protocol.signatures import recover_vrs

#: how far a client's clock may run ahead of ours for `Not Before` (the EIP, and the reference
#: implementation, put no bound on `Issued At`: the single-use, expiring nonce keeps it fresh)
CLOCK_SKEW = timedelta(seconds=60)
SECP256K1_N = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141
_HALF_N = SECP256K1_N // 2
_HEADER_SUFFIX = " wants you to sign in with your Ethereum account:"

# -- RFC 3986 (the productions EIP-4361 uses), ASCII only ----------------------------------
_UNRESERVED = r"A-Za-z0-9\-._~"
_SUB_DELIMS = r"!$&'()*+,;="
_PCT = r"%[0-9A-Fa-f]{2}"


def _char_of(extra: str) -> str:
    """One character of RFC 3986's `unreserved / pct-encoded / sub-delims` or of `extra`."""
    return rf"(?:[{_UNRESERVED}{_SUB_DELIMS}{extra}]|{_PCT})"


_PCHAR = _char_of(":@")
_DEC_OCTET = r"(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9][0-9]|[0-9])"
_IPV4 = rf"{_DEC_OCTET}\.{_DEC_OCTET}\.{_DEC_OCTET}\.{_DEC_OCTET}"
_IP_LITERAL = rf"\[(?P<ip>[0-9A-Fa-f:.]+|v[0-9A-Fa-f]+\.[{_UNRESERVED}{_SUB_DELIMS}:]+)\]"
_REG_NAME = _char_of("") + "*"
_USERINFO = _char_of(":") + "*"
_AUTHORITY = rf"(?:{_USERINFO}@)?(?:{_IP_LITERAL}|{_IPV4}|{_REG_NAME})(?::[0-9]*)?"
_SEGMENT_NZ = rf"{_PCHAR}+"
_PATH_ABEMPTY = rf"(?:/{_PCHAR}*)*"
_HIER_PART = (
    rf"(?://{_AUTHORITY}{_PATH_ABEMPTY}"
    rf"|/(?:{_SEGMENT_NZ}(?:/{_PCHAR}*)*)?"
    rf"|{_SEGMENT_NZ}(?:/{_PCHAR}*)*"
    r"|)"
)
_QUERY = rf"(?:{_PCHAR}|[/?])*"
_SCHEME = r"[A-Za-z][A-Za-z0-9+\-.]*"
_URI_RE = re.compile(rf"{_SCHEME}:{_HIER_PART}(?:\?{_QUERY})?(?:#{_QUERY})?", re.ASCII)
_AUTHORITY_RE = re.compile(_AUTHORITY, re.ASCII)
_SCHEME_RE = re.compile(_SCHEME, re.ASCII)
_ORIGIN_RE = re.compile(r"(?P<scheme>[^:/?#]+):(?://(?P<authority>[^/?#]*))?", re.ASCII)
# -- the EIP's own productions ------------------------------------------------------------
_STATEMENT_RE = re.compile(r"[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;= ]+", re.ASCII)
_NONCE_RE = re.compile(r"[A-Za-z0-9]{8,}", re.ASCII)
_REQUEST_ID_RE = re.compile(rf"{_PCHAR}*", re.ASCII)
_CHAIN_ID_RE = re.compile(r"[0-9]{1,78}", re.ASCII)
_DATE_TIME_RE = re.compile(
    r"(?P<y>[0-9]{4})-(?P<mo>[0-9]{2})-(?P<d>[0-9]{2})[Tt]"
    r"(?P<h>[0-9]{2}):(?P<mi>[0-9]{2}):(?P<s>[0-9]{2})(?P<frac>\.[0-9]+)?"
    r"(?P<tz>[Zz]|[+-][0-9]{2}:[0-9]{2})",
    re.ASCII,
)


def _malformed(what: str) -> Unauthorized:
    return Unauthorized(f"sign-in message: {what}", reason="malformed")


def is_uri(text: str) -> bool:
    """Whether `text` is an RFC 3986 URI (scheme, hier-part, query, fragment; ASCII only)."""
    match = _URI_RE.fullmatch(text)
    return match is not None and _ip_literal_ok(match.groupdict().get("ip"))


def is_authority(text: str) -> bool:
    """Whether `text` is a non-empty RFC 3986 authority ([userinfo@]host[:port])."""
    if not text:
        return False
    match = _AUTHORITY_RE.fullmatch(text)
    return match is not None and _ip_literal_ok(match.group("ip"))


def _ip_literal_ok(ip: str | None) -> bool:
    if ip is None or ip.startswith(("v", "V")):
        return True
    try:
        ipaddress.IPv6Address(ip)
    except ValueError:
        return False
    return True


def parse_time(text: str, name: str) -> datetime:
    """An RFC 3339 date-time (in UTC); Unauthorized (malformed) naming the field otherwise."""
    match = _DATE_TIME_RE.fullmatch(text)
    if match is None:
        raise _malformed(f"{name} is not an RFC 3339 date-time")
    g = match.groupdict()
    tz_text = g["tz"].upper()
    try:
        if tz_text == "Z":
            tz = UTC
        else:
            sign = 1 if tz_text[0] == "+" else -1
            hours, minutes = int(tz_text[1:3]), int(tz_text[4:6])
            if hours > 23 or minutes > 59:
                raise ValueError("offset")
            tz = timezone(sign * timedelta(hours=hours, minutes=minutes))
        micro = int((g["frac"] or ".0")[1:7].ljust(6, "0"))
        moment = datetime(
            int(g["y"]), int(g["mo"]), int(g["d"]), int(g["h"]), int(g["mi"]), int(g["s"]),
            micro, tzinfo=tz,
        )  # fmt: skip
    except ValueError:
        raise _malformed(f"{name} is not a valid date-time") from None
    return moment.astimezone(UTC)


def format_time(moment: datetime) -> str:
    """A date-time as the RFC 3339 text this server writes (UTC, milliseconds, `Z`)."""
    utc = moment.astimezone(UTC)
    return utc.strftime("%Y-%m-%dT%H:%M:%S.") + f"{utc.microsecond // 1000:03d}Z"


@dataclass(frozen=True)
class SiweMessage:
    """The fields of an EIP-4361 message, checked against the EIP's grammar when built."""

    domain: str
    address: str
    uri: str
    version: str
    chain_id: int
    nonce: str
    #: RFC 3339 text, as signed
    issued_at: str
    statement: str | None = None
    expiration_time: str | None = None
    not_before: str | None = None
    request_id: str | None = None
    resources: tuple[str, ...] | None = None
    scheme: str | None = None
    _times: dict[str, datetime] = field(default_factory=dict, init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        if self.scheme is not None and not _SCHEME_RE.fullmatch(self.scheme):
            raise _malformed("the scheme is not an RFC 3986 scheme")
        if not is_authority(self.domain):
            raise _malformed("the domain is not an RFC 3986 authority")
        if not (isinstance(self.address, str) and re.fullmatch(r"0x[0-9a-fA-F]{40}", self.address)):
            raise _malformed("the address is not a 0x-prefixed 20-byte hex address")
        if not is_checksum_address(self.address):
            raise _malformed("the address must be EIP-55 checksummed")
        if self.statement is not None and not _STATEMENT_RE.fullmatch(self.statement):
            raise _malformed(
                "the statement must be printable ASCII (RFC 3986 reserved/unreserved characters and spaces) on one line"
            )
        if not is_uri(self.uri):
            raise _malformed("URI is not an RFC 3986 URI")
        if self.version != "1":
            raise _malformed("Version must be 1")
        if (
            isinstance(self.chain_id, bool)
            or not isinstance(self.chain_id, int)
            or self.chain_id < 0
        ):
            raise _malformed("Chain ID must be a decimal integer")
        if not (isinstance(self.nonce, str) and _NONCE_RE.fullmatch(self.nonce)):
            raise _malformed("Nonce must be at least 8 letters or digits")
        for name, text in (
            ("Issued At", self.issued_at),
            ("Expiration Time", self.expiration_time),
            ("Not Before", self.not_before),
        ):
            if text is not None:
                self._times[name] = parse_time(text, name)
        if self.request_id is not None and not _REQUEST_ID_RE.fullmatch(self.request_id):
            raise _malformed("Request ID must be RFC 3986 pchar characters")
        for i, resource in enumerate(self.resources or ()):
            if not is_uri(resource):
                raise _malformed(f"resource {i + 1} is not an RFC 3986 URI")

    @property
    def issued_at_time(self) -> datetime:
        """`Issued At` as a UTC datetime."""
        return self._times["Issued At"]

    @property
    def expiration(self) -> datetime | None:
        """`Expiration Time` as a UTC datetime, if the message has one."""
        return self._times.get("Expiration Time")

    @property
    def not_before_time(self) -> datetime | None:
        """`Not Before` as a UTC datetime, if the message has one."""
        return self._times.get("Not Before")

    def text(self) -> str:
        """The message exactly as the wallet signs it (EIP-4361 layout)."""
        prefix = f"{self.scheme}://" if self.scheme else ""
        lines = [f"{prefix}{self.domain}{_HEADER_SUFFIX}", self.address, ""]
        if self.statement is not None:
            lines.append(self.statement)
        lines += [
            "",
            f"URI: {self.uri}",
            f"Version: {self.version}",
            f"Chain ID: {self.chain_id}",
            f"Nonce: {self.nonce}",
            f"Issued At: {self.issued_at}",
        ]
        if self.expiration_time is not None:
            lines.append(f"Expiration Time: {self.expiration_time}")
        if self.not_before is not None:
            lines.append(f"Not Before: {self.not_before}")
        if self.request_id is not None:
            lines.append(f"Request ID: {self.request_id}")
        if self.resources is not None:
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
    ttl: timedelta | None = timedelta(minutes=10),
) -> SiweMessage:
    """A sign-in message for `address`, issued now and expiring after `ttl` (None: never)."""
    now = issued_at or datetime.now(UTC)
    return SiweMessage(
        domain=domain,
        address=to_checksum_address(address),
        uri=uri or f"http://{domain}",
        version="1",
        chain_id=chain_id,
        nonce=nonce,
        issued_at=format_time(now),
        statement=statement,
        expiration_time=format_time(now + ttl) if ttl is not None else None,
    )


#: the fields after `Issued At`, in the order the grammar allows them
_OPTIONAL = (
    ("Expiration Time: ", "expiration_time"),
    ("Not Before: ", "not_before"),
    ("Request ID: ", "request_id"),
)
_REQUIRED = (
    ("URI: ", "URI"),
    ("Version: ", "Version"),
    ("Chain ID: ", "Chain ID"),
    ("Nonce: ", "Nonce"),
    ("Issued At: ", "Issued At"),
)


def parse_message(text: str) -> SiweMessage:
    """Parse an EIP-4361 message; Unauthorized (reason "malformed") naming what is wrong."""
    lines = text.split("\n")
    if len(lines) < 9:
        raise _malformed("too short to be an EIP-4361 message")
    header = lines[0]
    if not header.endswith(_HEADER_SUFFIX):
        raise _malformed("the first line is not an EIP-4361 header")
    scheme, _, domain = header[: -len(_HEADER_SUFFIX)].rpartition("://")
    address = lines[1]
    if lines[2] != "":
        raise _malformed("expected an empty line after the address")
    i = 3
    statement: str | None = None
    if lines[i] != "":
        statement = lines[i]
        i += 1
    if lines[i] != "":
        raise _malformed("expected an empty line before URI (a statement is one line)")
    i += 1
    values: dict[str, str] = {}
    for prefix, name in _REQUIRED:
        if i >= len(lines) or not lines[i].startswith(prefix):
            raise _malformed(f"line {i + 1} must be the {name} field")
        values[name] = lines[i][len(prefix) :]
        i += 1
    optional: dict[str, str] = {}
    for prefix, key in _OPTIONAL:
        if i < len(lines) and lines[i].startswith(prefix):
            optional[key] = lines[i][len(prefix) :]
            i += 1
    resources: list[str] | None = None
    if i < len(lines) and lines[i] == "Resources:":
        resources = []
        i += 1
        while i < len(lines) and lines[i].startswith("- "):
            resources.append(lines[i][2:])
            i += 1
    if i != len(lines):
        raise _malformed(f"unexpected line {i + 1}: {lines[i][:80]!r}")
    if not _CHAIN_ID_RE.fullmatch(values["Chain ID"]):
        raise _malformed("Chain ID must be a decimal integer")
    return SiweMessage(
        domain=domain,
        scheme=scheme or None,
        address=address,
        statement=statement,
        uri=values["URI"],
        version=values["Version"],
        chain_id=int(values["Chain ID"]),
        nonce=values["Nonce"],
        issued_at=values["Issued At"],
        expiration_time=optional.get("expiration_time"),
        not_before=optional.get("not_before"),
        request_id=optional.get("request_id"),
        resources=tuple(resources) if resources is not None else None,
    )


def new_nonce() -> str:
    """A fresh random nonce (32 hex characters)."""
    return secrets.token_hex(16)


def origin(uri: str) -> tuple[str, str]:
    """The (scheme, authority) of a URI, lower-cased: what the URI check compares."""
    match = _ORIGIN_RE.match(uri)
    if match is None:
        return ("", "")
    return (match.group("scheme").lower(), (match.group("authority") or "").lower())


def check_fields(
    message: SiweMessage,
    *,
    domain: str,
    chain_id: int,
    uri: str | None = None,
    nonce: str | None = None,
    now: datetime | None = None,
) -> None:
    """Check the domain, the scheme and URI against `uri`'s origin, the chain id, the nonce and
    the time window; Unauthorized naming the field (`reason` says which check)."""
    now = now or datetime.now(UTC)
    if message.domain != domain:
        raise Unauthorized(
            f"sign-in message is for domain {message.domain!r}, not {domain!r}",
            reason="wrong-domain",
        )
    if uri is not None:
        want_scheme, want_authority = origin(uri)
        if message.scheme is not None and message.scheme.lower() != want_scheme:
            raise Unauthorized(
                f"sign-in message is for scheme {message.scheme!r}, not {want_scheme!r}",
                reason="wrong-uri",
            )
        if origin(message.uri) != (want_scheme, want_authority):
            raise Unauthorized(
                f"sign-in message's URI {message.uri!r} is not on {want_scheme}://{want_authority}",
                reason="wrong-uri",
            )
    if message.chain_id != chain_id:
        raise Unauthorized(
            f"sign-in message is for chain id {message.chain_id}, not {chain_id}",
            reason="wrong-chain",
        )
    if nonce is not None and message.nonce != nonce:
        raise Unauthorized("sign-in message carries another nonce", reason="wrong-nonce")
    expiration = message.expiration
    if expiration is not None and expiration <= now:
        raise Unauthorized("sign-in message has expired", reason="expired")
    not_before = message.not_before_time
    if not_before is not None and not_before > now + CLOCK_SKEW:
        raise Unauthorized("sign-in message is not valid yet (Not Before)", reason="not-yet-valid")


class Signer(StrEnum):
    """Who produced a valid signature."""

    EOA = "eoa"
    CONTRACT = "contract"


def ecdsa_parts(signature: bytes) -> tuple[int, int, int] | None:
    """(v in {0, 1}, r, s) of a 65-byte or 64-byte EIP-2098 signature in low-s form; None for
    any other length, a v other than 0/1/27/28, r or s out of range, or a high s."""
    if len(signature) == 65:
        r = int.from_bytes(signature[:32], "big")
        s = int.from_bytes(signature[32:64], "big")
        v = signature[64]
        if v in (27, 28):
            v -= 27
        if v not in (0, 1):
            return None
    elif len(signature) == 64:
        r = int.from_bytes(signature[:32], "big")
        vs = int.from_bytes(signature[32:], "big")
        v, s = vs >> 255, vs & ((1 << 255) - 1)
    else:
        return None
    if not (0 < r < SECP256K1_N and 0 < s <= _HALF_N):
        return None
    return v, r, s


def signature_bytes(signature: str) -> bytes | None:
    """The bytes of a 0x-hex signature, or None if it is not 0x-hex."""
    try:
        return from_hex(signature, "signature")
    except InvalidInput:
        return None


def recover_eoa(message_text: str, signature: bytes) -> str | None:
    """The address whose key made this normalised ECDSA signature of `message_text` (EIP-191),
    or None if the signature is not one."""
    parts = ecdsa_parts(signature)
    if parts is None:
        return None
    try:
        return recover_vrs(bytes(defunct_hash_message(text=message_text)), *parts)
    except InvalidInput:  # r is not the x of a point on the curve
        return None


class ContractWallets(Protocol):
    """What an EIP-1271 check asks of the chain (the API's chain client answers it)."""

    def has_code(self, address: str) -> bool:
        """Whether `address` is a contract."""
        ...

    def is_valid_signature_1271(self, wallet: str, digest: bytes, signature: bytes) -> bool:
        """Whether contract `wallet` accepts `signature` over `digest`."""
        ...


def signer_of(
    message_text: str, address: str, signature: str, chain: ContractWallets | None
) -> Signer | None:
    """How `address` signed `message_text`: its own key (EOA), its contract (EIP-1271, asked
    through `chain`; without one, only an EOA signature is recognised), or None if `signature`
    is not a valid signature of it."""
    raw = signature_bytes(signature)
    if raw is None:
        return None
    recovered = recover_eoa(message_text, raw)
    if recovered is not None and recovered.lower() == address.lower():
        return Signer.EOA
    if chain is not None and chain.has_code(address):
        digest = bytes(defunct_hash_message(text=message_text))
        if chain.is_valid_signature_1271(address, digest, raw):
            return Signer.CONTRACT
    return None


def signature_problem(signature: str) -> str:
    """Why an invalid signature is refused, in words."""
    raw = signature_bytes(signature)
    if raw is None:
        return "the signature is not 0x-hex"
    if len(raw) in (64, 65) and ecdsa_parts(raw) is None:
        return "the signature is not a normalised ECDSA signature (low s, v of 27/28 or 0/1)"
    return "the signature does not match the address in the message"
