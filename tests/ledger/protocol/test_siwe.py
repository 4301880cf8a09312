"""The EIP-4361 parser and checks of ledger.protocol.siwe, on the spec's examples and on the reference
implementation's published test vectors (tests/ledger/protocol/siwe_vectors/README.md names their
source and licence), plus signature normalisation (low s, EIP-2098 compact, v of 0/1)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from eth_account import Account
from eth_account.messages import defunct_hash_message, encode_defunct
from eth_keys import keys

from ledger.errors import Unauthorized
from ledger.protocol import siwe

VECTORS = Path(__file__).parent / "siwe_vectors"
KEY = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d"


def _vectors(name: str) -> dict[str, Any]:
    return dict(json.loads((VECTORS / f"{name}.json").read_text()))


# the three examples of ERC-4361, section "Examples" (ethereum/ERCs, ERCS/erc-4361.md)
_SPEC_BODY = (
    " wants you to sign in with your Ethereum account:\n"
    "0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2\n\n"
    "I accept the ExampleOrg Terms of Service: https://example.com/tos\n\n"
    "URI: https://example.com/login\nVersion: 1\nChain ID: 1\nNonce: 32891756\n"
    "Issued At: 2021-09-30T16:25:24Z\nResources:\n"
    "- ipfs://bafybeiemxf5abjwjbikoz4mc3a3dla6ual3jsgpdr4cjr3oz3evfyavhwq/\n"
    "- https://example.com/my-web2-claim.json"
)
SPEC_EXAMPLES = {
    "implicit scheme": ("example.com" + _SPEC_BODY, None, "example.com"),
    "implicit scheme, explicit port": ("example.com:3388" + _SPEC_BODY, None, "example.com:3388"),
    "explicit scheme": ("https://example.com" + _SPEC_BODY, "https", "example.com"),
}

_FIELD_NAMES = {
    "scheme": "scheme",
    "domain": "domain",
    "address": "address",
    "statement": "statement",
    "uri": "uri",
    "version": "version",
    "chainId": "chain_id",
    "nonce": "nonce",
    "issuedAt": "issued_at",
    "expirationTime": "expiration_time",
    "notBefore": "not_before",
    "requestId": "request_id",
    "resources": "resources",
}


def _from_fields(fields: dict[str, Any]) -> siwe.SiweMessage:
    """A message from the vectors' camelCase fields (extra keys of the vectors ignored)."""
    kwargs = {ours: fields[theirs] for theirs, ours in _FIELD_NAMES.items() if theirs in fields}
    if "resources" in kwargs:
        kwargs["resources"] = tuple(kwargs["resources"])
    return siwe.SiweMessage(**kwargs)


@pytest.mark.parametrize("name", sorted(SPEC_EXAMPLES))
def test_the_specs_examples_parse_and_print_back(name: str) -> None:
    text, scheme, domain = SPEC_EXAMPLES[name]
    message = siwe.parse_message(text)
    assert (message.scheme, message.domain) == (scheme, domain)
    assert message.resources and len(message.resources) == 2
    assert message.expiration is None and message.not_before is None
    assert message.text() == text


@pytest.mark.parametrize("name", sorted(_vectors("parsing_positive")))
def test_reference_parsing_positive(name: str) -> None:
    vector = _vectors("parsing_positive")[name]
    message = siwe.parse_message(vector["message"])
    for theirs, value in vector["fields"].items():
        got = getattr(message, _FIELD_NAMES[theirs])
        assert (list(got) if isinstance(got, tuple) else got) == value, theirs
    assert message.text() == vector["message"]


@pytest.mark.parametrize("name", sorted(_vectors("parsing_negative")))
def test_reference_parsing_negative(name: str) -> None:
    with pytest.raises(Unauthorized) as refused:
        siwe.parse_message(_vectors("parsing_negative")[name])
    assert refused.value.extra["reason"] == "malformed"


@pytest.mark.parametrize("name", sorted(_vectors("parsing_negative_objects")))
def test_reference_parsing_negative_objects(name: str) -> None:
    with pytest.raises((Unauthorized, TypeError)):
        _from_fields(_vectors("parsing_negative_objects")[name])


def _at(vector: dict[str, Any]) -> datetime:
    """The vector's `time`, or a moment at which the message is within its window."""
    if "time" in vector:
        return siwe.parse_time(vector["time"], "time")
    return siwe.parse_time(vector["issuedAt"], "issuedAt") + timedelta(minutes=1)


@pytest.mark.parametrize("name", sorted(_vectors("verification_positive")))
def test_reference_verification_positive(name: str) -> None:
    vector = _vectors("verification_positive")[name]
    message = _from_fields(vector)
    siwe.check_fields(
        message,
        domain=vector["domain"],
        chain_id=vector["chainId"],
        uri=vector["uri"],
        nonce=vector["nonce"],
        now=_at(vector),
    )
    assert (
        siwe.signer_of(message.text(), message.address, vector["signature"], None)
        is siwe.Signer.EOA
    )
    assert siwe.parse_message(message.text()) == message


@pytest.mark.parametrize("name", sorted(_vectors("verification_negative")))
def test_reference_verification_negative(name: str) -> None:
    vector = _vectors("verification_negative")[name]
    try:
        message = _from_fields(vector)
        siwe.check_fields(
            message,
            domain=vector.get("domainBinding", vector["domain"]),
            chain_id=vector["chainId"],
            uri=vector["uri"],
            nonce=vector.get("matchNonce", vector["nonce"]),
            now=_at(vector) if "time" in vector else datetime.now(UTC),
        )
    except Unauthorized:
        return  # refused before the signature was looked at
    assert siwe.signer_of(message.text(), message.address, vector["signature"], None) is None


@pytest.mark.parametrize("name", sorted(_vectors("eip1271")))
def test_reference_contract_wallet_messages_parse(name: str) -> None:
    # their signatures are checked by mainnet contracts (EIP-1271); here only the messages
    vector = _vectors("eip1271")[name]
    message = siwe.parse_message(vector["message"])
    assert message.text() == vector["message"] and message.expiration is None
    assert siwe.recover_eoa(vector["message"], bytes.fromhex(vector["signature"][2:])) != (
        message.address
    )


def _signed(**overrides: Any) -> tuple[siwe.SiweMessage, bytes]:
    fields: dict[str, Any] = {
        "domain": "127.0.0.1:8000",
        "address": Account.from_key(KEY).address,
        "chain_id": 31337,
        "nonce": "abcdef0123456789",
    }
    fields.update(overrides)
    message = siwe.build_message(**fields)
    signature = Account.sign_message(encode_defunct(text=message.text()), KEY).signature
    return message, bytes(signature)


def test_a_message_without_expiration_time_is_accepted() -> None:
    message, signature = _signed(ttl=None)
    assert "Expiration Time" not in message.text()
    parsed = siwe.parse_message(message.text())
    siwe.check_fields(parsed, domain="127.0.0.1:8000", uri="http://127.0.0.1:8000", chain_id=31337)
    assert (
        siwe.signer_of(parsed.text(), parsed.address, "0x" + signature.hex(), None)
        is siwe.Signer.EOA
    )


def test_the_uri_must_be_on_the_configured_origin() -> None:
    message, _ = _signed(uri="https://evil.example/login")
    with pytest.raises(Unauthorized) as refused:
        siwe.check_fields(
            message, domain="127.0.0.1:8000", uri="http://127.0.0.1:8000", chain_id=31337
        )
    assert refused.value.extra["reason"] == "wrong-uri"
    ok, _ = _signed(uri="http://127.0.0.1:8000/login")
    siwe.check_fields(ok, domain="127.0.0.1:8000", uri="http://127.0.0.1:8000", chain_id=31337)


@pytest.mark.parametrize(
    "uri",
    [
        "https://example.com/\u202etxt.exe",  # right-to-left override
        "https://exa\u200bmple.com/",  # zero-width space
        "https://example.com/a b",
        "not a uri",
        ":no-scheme",
        "https://[::zz]/",
    ],
)
def test_uris_and_resources_must_be_rfc_3986(uri: str) -> None:
    assert not siwe.is_uri(uri)
    with pytest.raises(Unauthorized):
        _signed(uri=uri)
    message, _ = _signed()
    text = message.text() + f"\nResources:\n- {uri}"
    with pytest.raises(Unauthorized):
        siwe.parse_message(text)


@pytest.mark.parametrize(
    "uri", ["https://example.com", "ipfs://bafy/", "urn:ietf:rfc:3986", "http://[::1]:8000/x?y=1#z"]
)
def test_rfc_3986_uris_are_accepted(uri: str) -> None:
    assert siwe.is_uri(uri)


def test_high_s_twin_of_a_valid_signature_is_refused() -> None:
    message, signature = _signed()
    r, s, v = signature[:32], int.from_bytes(signature[32:64], "big"), signature[64]
    assert (
        siwe.signer_of(message.text(), message.address, "0x" + signature.hex(), None)
        is siwe.Signer.EOA
    )
    high_s = r + (siwe.SECP256K1_N - s).to_bytes(32, "big") + bytes([55 - v])  # 27 <-> 28
    # the twin recovers to the same address with a raw ecrecover, so only normalisation refuses it
    digest = bytes(defunct_hash_message(text=message.text()))
    twin = keys.Signature(vrs=(high_s[64] - 27, int.from_bytes(r, "big"), siwe.SECP256K1_N - s))
    assert twin.recover_public_key_from_msg_hash(digest).to_checksum_address() == message.address
    assert siwe.signer_of(message.text(), message.address, "0x" + high_s.hex(), None) is None
    assert "low s" in siwe.signature_problem("0x" + high_s.hex())


def test_compact_eip_2098_and_v_of_0_or_1_are_accepted() -> None:
    message, signature = _signed()
    r, s, v = signature[:32], int.from_bytes(signature[32:64], "big"), signature[64] - 27
    compact = r + ((v << 255) | s).to_bytes(32, "big")
    assert (
        siwe.signer_of(message.text(), message.address, "0x" + compact.hex(), None)
        is siwe.Signer.EOA
    )
    zero_one = signature[:64] + bytes([v])
    assert (
        siwe.signer_of(message.text(), message.address, "0x" + zero_one.hex(), None)
        is siwe.Signer.EOA
    )


@pytest.mark.parametrize("signature", ["0x", "0x00", "0x" + "00" * 65, "0x" + "ff" * 65, "0xzz"])
def test_garbage_is_no_signature(signature: str) -> None:
    message, _ = _signed()
    assert siwe.signer_of(message.text(), message.address, signature, None) is None


def test_times_keep_the_signed_text() -> None:
    text = SPEC_EXAMPLES["implicit scheme"][0].replace("16:25:24Z", "16:25:24.123456789+02:00")
    message = siwe.parse_message(text)
    assert message.issued_at == "2021-09-30T16:25:24.123456789+02:00"
    assert message.issued_at_time == datetime(2021, 9, 30, 14, 25, 24, 123456, tzinfo=UTC)
    assert message.text() == text
    for bad in ("2021-02-30T00:00:00Z", "2021-09-30 16:25:24Z", "2021-09-30T16:25:24", "tomorrow"):
        with pytest.raises(Unauthorized):
            siwe.parse_message(text.replace("2021-09-30T16:25:24.123456789+02:00", bad))
