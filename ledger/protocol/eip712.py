"""EIP-712 typed data for MetaLedger: signed match results (MatchLedger) and swap offers (CardExchange).

Match results (domain ``MetaLedger`` / ``1`` / chain id / MatchLedger address)::

    result = MatchResult(match_id=..., game="metax", ...)
    sig = sign_result(signer_key, result, chain_id, ledger_address)
    assert recover_result_signer(result, sig, chain_id, ledger_address) == signer_address
    digest = result_digest(result, chain_id, ledger_address)   # the Merkle leaf value

Offers (domain ``MetaLedger CardExchange`` / ``1`` / chain id / CardExchange address)::

    offer = Offer(maker=..., given_ids=(...), given_amounts=(...), asked_ids=(...), ...)
    sig = sign_offer(maker_key, offer, chain_id, exchange_address)
    exchange.functions.fill(offer.as_tuple(), sig).transact(...)

Signing and recovery of a digest are `ledger.protocol.signatures`'. Digests are computed directly (abi-encoded struct hashes, as the contracts do), which is much
faster than eth-account's generic typed-data encoder; ``*_typed_data`` give the full EIP-712
JSON (for ``eth_signTypedData_v4`` wallets and for auditors), and tests check both agree.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields
from functools import lru_cache
from typing import Any, ClassVar, Protocol, Self

from eth_abi import encode
from eth_utils import to_checksum_address

from ledger.protocol.hexcodec import bytes32, checksum_address, to_hex
from ledger.protocol.keccak import keccak
from ledger.protocol.signatures import recover_digest_signer, sign_digest

ZERO_ADDRESS = "0x0000000000000000000000000000000000000000"


def declared_fields(declaration: str) -> list[dict[str, str]]:
    """An EIP-712 struct's field list from its Solidity-style declaration
    ("bytes32 matchId, uint8 seat, ..."), in order: the one way a struct is declared here."""
    fields_ = []
    for part in declaration.split(","):
        kind, name = part.split()
        fields_.append({"name": name, "type": kind})
    return fields_


RESULT_DOMAIN_NAME = "MetaLedger"
OFFER_DOMAIN_NAME = "MetaLedger CardExchange"
DOMAIN_VERSION = "1"

_DOMAIN_FIELDS = declared_fields(
    "string name, string version, uint256 chainId, address verifyingContract"
)
_DOMAIN_TYPEHASH = keccak(
    b"EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)"
)

#: the EIP712Domain type of every MetaLedger domain
DOMAIN_FIELDS = _DOMAIN_FIELDS

MATCH_RESULT_FIELDS: list[dict[str, str]] = declared_fields(
    "bytes32 matchId, string game, string rulesetVersion, address player0, "
    "address player1, bytes32 deck0, bytes32 deck1, bytes32 seedCommitments, "
    "bytes32 transcriptHash, bytes32 finalStateHash, address winner, "
    "uint64 ownershipBlock"
)
OFFER_FIELDS: list[dict[str, str]] = declared_fields(
    "address maker, address taker, uint256[] givenIds, uint256[] givenAmounts, "
    "uint256[] askedIds, uint256[] askedAmounts, uint256 askedWei, uint64 expiry, "
    "uint256 nonce"
)
OFFER_WITHDRAWAL_FIELDS: list[dict[str, str]] = declared_fields("bytes32 offerHash")


def type_string(name: str, struct_fields: list[dict[str, str]]) -> bytes:
    """The EIP-712 type string `Name(type name,...)` of a struct of atomic fields."""
    return f"{name}({','.join(f['type'] + ' ' + f['name'] for f in struct_fields)})".encode()


MATCH_RESULT_TYPEHASH = keccak(type_string("MatchResult", MATCH_RESULT_FIELDS))
OFFER_TYPEHASH = keccak(type_string("Offer", OFFER_FIELDS))
OFFER_WITHDRAWAL_TYPEHASH = keccak(type_string("OfferWithdrawal", OFFER_WITHDRAWAL_FIELDS))


def _bytes32_word(value: Any) -> bytes:
    return value if type(value) is bytes and len(value) == 32 else bytes32(value, "bytes32 field")


def _string_word(value: str) -> bytes:
    return keccak(value.encode())


def _address_word(value: str) -> bytes:
    return bytes(12) + bytes.fromhex(value[2:])


def _uint_array_word(value: Any) -> bytes:
    return keccak(b"".join(int(x).to_bytes(32, "big") for x in value))


def _uint_word(bits: int) -> Callable[[Any], bytes]:
    bound = 1 << bits

    def word(value: Any) -> bytes:
        if isinstance(value, bool) or not 0 <= value < bound:
            raise ValueError(f"{value!r} is not a uint{bits}")
        return int(value).to_bytes(32, "big")

    return word


@lru_cache(maxsize=64)
def encoder(kind: str) -> Callable[[Any], bytes]:
    """The encoder of one EIP-712 field type into its 32-byte word of encodeData: atomic values
    ABI-encoded by hand, strings and uint256 arrays by their keccak256 (as the contracts
    compute it); worked out once per type."""
    if kind == "bytes32":
        return _bytes32_word
    if kind == "string":
        return _string_word
    if kind == "address":
        return _address_word
    if kind.endswith("[]"):  # arrays of uint256: keccak of the concatenated 32-byte words
        return _uint_array_word
    if kind.startswith("uint"):
        return _uint_word(int(kind[4:] or 256))
    raise ValueError(f"no encoding for EIP-712 type {kind}")


def hash_struct(
    typehash: bytes, struct_fields: list[dict[str, str]], values: tuple[Any, ...]
) -> bytes:
    """EIP-712 hashStruct: keccak256(abi.encode(typeHash, encodeData(values))) for a struct of
    atomic fields, strings and uint256 arrays, as the contracts compute it (the one struct
    hasher of every MetaLedger struct)."""
    encoders = [encoder(f["type"]) for f in struct_fields]
    return hash_words(typehash, encoders, values)


def hash_words(
    typehash: bytes, encoders: Sequence[Callable[[Any], bytes]], values: Sequence[Any]
) -> bytes:
    """keccak256 of the type hash and each value's word (`encoder` of its field type)."""
    if len(encoders) != len(values):
        raise ValueError(f"{len(values)} values for a struct of {len(encoders)} fields")
    return keccak(typehash + b"".join([e(v) for e, v in zip(encoders, values, strict=True)]))


class TypedStruct:
    """What a MetaLedger struct of atomic fields derives from its EIP-712 field list: the
    dataclass fields, in order, are the struct's fields (snake_case of the camelCase names).

    bytes32 fields accept bytes or 0x-hex and are kept as bytes; addresses any case and are kept
    checksummed; uintN fields are range-checked."""

    __slots__ = ()
    PRIMARY_TYPE: ClassVar[str]
    FIELDS: ClassVar[list[dict[str, str]]]
    TYPEHASH: ClassVar[bytes]
    DOMAIN_NAME: ClassVar[str] = RESULT_DOMAIN_NAME

    def __post_init__(self) -> None:
        for name, check in _checks(type(self)):
            value = getattr(self, name)
            checked = check(name, value)
            if checked is not value:
                object.__setattr__(self, name, checked)

    def as_tuple(self) -> tuple[Any, ...]:
        """The struct as a tuple in field order (for contract calls)."""
        return tuple(getattr(self, f.name) for f in fields(self))  # type: ignore[arg-type]

    def as_message(self) -> dict[str, Any]:
        """The struct as an EIP-712 message dict (camelCase keys, 0x-hex bytes32)."""
        return {
            f["name"]: (to_hex(v) if isinstance(v, bytes) else v)
            for f, v in zip(self.FIELDS, self.as_tuple(), strict=True)
        }

    def as_record(self) -> dict[str, Any]:
        """The struct's fields by their own names, bytes32 as 0x-hex: the columns of a stored
        row (the inverse of `from_record`)."""
        return {
            f.name: (to_hex(v) if isinstance(v, bytes) else v)
            for f, v in zip(fields(self), self.as_tuple(), strict=True)  # type: ignore[arg-type]
        }

    @classmethod
    def from_message(cls, message: dict[str, Any]) -> Self:
        """Build from an EIP-712 message dict (the inverse of `as_message`)."""
        return cls(*(message[f["name"]] for f in cls.FIELDS))

    @classmethod
    def from_record(cls, record: Any) -> Self:
        """Build from any object holding the struct's fields as attributes of the same names
        (a stored row): the one way a stored row becomes the signed struct."""
        return cls(*(getattr(record, f.name) for f in fields(cls)))  # type: ignore[arg-type]

    def struct_hash(self) -> bytes:
        """EIP-712 hashStruct of the struct (its fields' encoders worked out once per class)."""
        cls = type(self)
        encoders = _STRUCT_ENCODERS.get(cls)
        if encoders is None:
            encoders = _STRUCT_ENCODERS[cls] = tuple(encoder(f["type"]) for f in cls.FIELDS)
        return hash_words(self.TYPEHASH, encoders, self.as_tuple())


_STRUCT_ENCODERS: dict[type, tuple[Callable[[Any], bytes], ...]] = {}
_STRUCT_CHECKS: dict[type, tuple[tuple[str, Callable[[str, Any], Any]], ...]] = {}


def _checks(cls: type[TypedStruct]) -> tuple[tuple[str, Callable[[str, Any], Any]], ...]:
    """(attribute, check) per field of a struct class, worked out once per class."""
    checks = _STRUCT_CHECKS.get(cls)
    if checks is None:
        names = [a.name for a in fields(cls)]  # type: ignore[arg-type]
        if len(names) != len(cls.FIELDS):
            raise TypeError(f"{cls.__name__}: {len(names)} attributes for {len(cls.FIELDS)} fields")
        checks = _STRUCT_CHECKS[cls] = tuple(
            (name, _check(f["type"])) for name, f in zip(names, cls.FIELDS, strict=True)
        )
    return checks


def _keep_bytes32(name: str, value: Any) -> bytes:
    return value if type(value) is bytes and len(value) == 32 else bytes32(value, name)


def _keep_address(_name: str, value: Any) -> str:
    return checksum_address(value)  # remembered: structs name the same few addresses


def _keep_string(name: str, value: Any) -> str:
    if not isinstance(value, str):
        raise ValueError(f"{name} must be a string")
    return value


def _keep_uint(bits: int) -> Callable[[str, Any], int]:
    bound = 1 << bits

    def check(name: str, value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < bound:
            raise ValueError(f"{name} must fit in uint{bits}")
        return value

    return check


@lru_cache(maxsize=64)
def _check(kind: str) -> Callable[[str, Any], Any]:
    """How a TypedStruct keeps a value of one field type: bytes32 as bytes (from bytes or
    0x-hex), addresses checksummed, uintN range-checked, strings as they are."""
    if kind == "bytes32":
        return _keep_bytes32
    if kind == "address":
        return _keep_address
    if kind.startswith("uint"):
        return _keep_uint(int(kind[4:] or 256))
    if kind == "string":
        return _keep_string
    return lambda _name, value: value


@dataclass(frozen=True, slots=True)
class MatchResult(TypedStruct):
    """A match result as signed by the operator (EIP-712 struct `MatchResult`, DEVELOPERS.md).

    bytes32 fields accept bytes or 0x-hex; addresses any case; `winner` is ZERO_ADDRESS for a draw.
    """

    PRIMARY_TYPE: ClassVar[str] = "MatchResult"
    FIELDS: ClassVar[list[dict[str, str]]] = MATCH_RESULT_FIELDS
    TYPEHASH: ClassVar[bytes] = MATCH_RESULT_TYPEHASH

    match_id: bytes
    game: str
    ruleset_version: str
    player0: str
    player1: str
    deck0: bytes
    deck1: bytes
    seed_commitments: bytes
    transcript_hash: bytes
    final_state_hash: bytes
    winner: str
    ownership_block: int


@dataclass(frozen=True, slots=True)
class Offer:
    """A CardExchange swap offer (EIP-712 struct `Offer`). `taker` ZERO_ADDRESS = anyone may fill."""

    PRIMARY_TYPE: ClassVar[str] = "Offer"
    FIELDS: ClassVar[list[dict[str, str]]] = OFFER_FIELDS
    DOMAIN_NAME: ClassVar[str] = OFFER_DOMAIN_NAME

    maker: str
    given_ids: tuple[int, ...] = ()
    given_amounts: tuple[int, ...] = ()
    asked_ids: tuple[int, ...] = ()
    asked_amounts: tuple[int, ...] = ()
    asked_wei: int = 0
    expiry: int = 2**63
    nonce: int = 0
    taker: str = ZERO_ADDRESS

    def __post_init__(self) -> None:
        object.__setattr__(self, "maker", to_checksum_address(self.maker))
        object.__setattr__(self, "taker", to_checksum_address(self.taker))
        for name in ("given_ids", "given_amounts", "asked_ids", "asked_amounts"):
            object.__setattr__(self, name, tuple(int(x) for x in getattr(self, name)))

    def as_tuple(self) -> tuple[Any, ...]:
        """The struct as a tuple in Solidity field order (for `CardExchange.fill`)."""
        return (
            self.maker,
            self.taker,
            list(self.given_ids),
            list(self.given_amounts),
            list(self.asked_ids),
            list(self.asked_amounts),
            self.asked_wei,
            self.expiry,
            self.nonce,
        )

    def as_message(self) -> dict[str, Any]:
        """The struct as an EIP-712 message dict, every uint256 as a decimal string (JSON
        numbers lose precision above 2**53; `eth_signTypedData_v4` wallets accept strings)."""
        message: dict[str, Any] = {}
        for f, value in zip(OFFER_FIELDS, self.as_tuple(), strict=True):
            if f["type"] == "uint256[]":
                value = [str(v) for v in value]
            elif f["type"] == "uint256":
                value = str(value)
            message[f["name"]] = value
        return message

    @classmethod
    def from_message(cls, message: dict[str, Any]) -> Offer:
        """Build from an EIP-712 message dict (numbers as ints or decimal strings); the inverse
        of `as_message`. Values are taken as given: the caller checks their ranges."""
        return cls(
            maker=message["maker"],
            taker=message["taker"],
            given_ids=tuple(int(v) for v in message["givenIds"]),
            given_amounts=tuple(int(v) for v in message["givenAmounts"]),
            asked_ids=tuple(int(v) for v in message["askedIds"]),
            asked_amounts=tuple(int(v) for v in message["askedAmounts"]),
            asked_wei=int(message["askedWei"]),
            expiry=int(message["expiry"]),
            nonce=int(message["nonce"]),
        )

    def struct_hash(self) -> bytes:
        """EIP-712 hashStruct(Offer)."""
        return hash_struct(OFFER_TYPEHASH, OFFER_FIELDS, self.as_tuple())


@dataclass(frozen=True, slots=True)
class OfferWithdrawal:
    """A maker's off-chain withdrawal of an offer from the book (EIP-712 struct
    `OfferWithdrawal(bytes32 offerHash)`, in the CardExchange domain). Only the book reads it: the
    signed offer itself stays fillable on-chain until its nonce is cancelled."""

    PRIMARY_TYPE: ClassVar[str] = "OfferWithdrawal"
    FIELDS: ClassVar[list[dict[str, str]]] = OFFER_WITHDRAWAL_FIELDS
    DOMAIN_NAME: ClassVar[str] = OFFER_DOMAIN_NAME

    offer_hash: bytes

    def __post_init__(self) -> None:
        object.__setattr__(self, "offer_hash", bytes32(self.offer_hash, "offer_hash"))

    def as_message(self) -> dict[str, Any]:
        """The struct as an EIP-712 message dict."""
        return {"offerHash": to_hex(self.offer_hash)}

    def struct_hash(self) -> bytes:
        """EIP-712 hashStruct(OfferWithdrawal)."""
        return hash_struct(OFFER_WITHDRAWAL_TYPEHASH, OFFER_WITHDRAWAL_FIELDS, (self.offer_hash,))


def domain(name: str, chain_id: int, verifying_contract: str) -> dict[str, Any]:
    """An EIP-712 domain dict."""
    return {
        "name": name,
        "version": DOMAIN_VERSION,
        "chainId": chain_id,
        "verifyingContract": checksum_address(verifying_contract),
    }


@lru_cache(maxsize=256)
def domain_separator(name: str, chain_id: int, verifying_contract: str) -> bytes:
    """EIP-712 domain separator (what OpenZeppelin EIP712 computes); cached per domain."""
    return keccak(
        encode(
            ["bytes32", "bytes32", "bytes32", "uint256", "address"],
            [
                _DOMAIN_TYPEHASH,
                keccak(name.encode()),
                keccak(DOMAIN_VERSION.encode()),
                chain_id,
                to_checksum_address(verifying_contract),
            ],
        )
    )


# ----------------------------------------------------------------------------- any struct


class Struct(Protocol):
    """What each signed struct (MatchResult, Offer) provides."""

    PRIMARY_TYPE: ClassVar[str]
    FIELDS: ClassVar[list[dict[str, str]]]
    DOMAIN_NAME: ClassVar[str]

    def as_message(self) -> dict[str, Any]:
        """The struct as an EIP-712 message dict."""
        ...

    def struct_hash(self) -> bytes:
        """EIP-712 hashStruct of the struct."""
        ...


def typed_data(struct: Struct, chain_id: int, contract: str) -> dict[str, Any]:
    """The full EIP-712 typed data of a struct for its contract (eth_signTypedData_v4, bundles)."""
    return typed_data_of(
        struct.PRIMARY_TYPE,
        struct.FIELDS,
        domain(struct.DOMAIN_NAME, chain_id, contract),
        struct.as_message(),
    )


def typed_data_of(
    primary_type: str,
    struct_fields: list[dict[str, str]],
    domain_dict: dict[str, Any],
    message: dict[str, Any],
) -> dict[str, Any]:
    """Typed data from its parts (an already built domain and message, e.g. many offers of one
    exchange shown at once)."""
    return {
        "types": {"EIP712Domain": _DOMAIN_FIELDS, primary_type: struct_fields},
        "primaryType": primary_type,
        "domain": domain_dict,
        "message": message,
    }


def digest(struct: Struct, chain_id: int, contract: str) -> bytes:
    """The EIP-712 digest of a struct: what is signed (and, for a result, the Merkle leaf value;
    for an offer, CardExchange.offerDigest)."""
    separator = domain_separator(struct.DOMAIN_NAME, chain_id, contract)
    return keccak(b"\x19\x01" + separator + struct.struct_hash())


def sign(private_key: str | bytes, struct: Struct, chain_id: int, contract: str) -> bytes:
    """Sign a struct (EIP-712) with `private_key`; returns the 65-byte signature."""
    return sign_digest(private_key, digest(struct, chain_id, contract))


def recover_signer(struct: Struct, signature: bytes | str, chain_id: int, contract: str) -> str:
    """The address that signed `struct` (for a result, compare with MatchLedger's signers)."""
    return recover_digest_signer(digest(struct, chain_id, contract), signature)


#: the names each struct's users know them by: one implementation for both
result_typed_data = offer_typed_data = typed_data
result_digest = offer_digest = digest
sign_result = sign_offer = sign
recover_result_signer = recover_offer_signer = recover_signer
