"""ECDSA (secp256k1) over 32-byte digests: sign with a key, recover the signer's address.

Signing and recovery go through eth-keys' public API (`PrivateKey.sign_msg_hash`,
`Signature.recover_public_key_from_msg_hash`), what eth-account does underneath (without
importing eth-account, whose keyfile support costs the auditor a second of start-up); EIP-712 results and offers and EIP-191 sign-in messages all
recover here.
"""

from __future__ import annotations

from eth_keys import keys
from eth_keys.exceptions import BadSignature, ValidationError

from ledger.errors import InvalidInput
from ledger.protocol.hexcodec import from_hex


def sign_digest(private_key: str | bytes, digest: bytes) -> bytes:
    """A 65-byte r‖s‖v ECDSA signature (v = 27 or 28) of a 32-byte digest."""
    raw = from_hex(private_key, "key") if isinstance(private_key, str) else bytes(private_key)
    vrs = keys.PrivateKey(raw).sign_msg_hash(digest).to_bytes()
    return vrs[:64] + bytes([vrs[64] + 27])


def recover_vrs(digest: bytes, v: int, r: int, s: int) -> str:
    """The checksummed address whose key signed `digest` with (v in {0, 1}, r, s);
    InvalidInput if the numbers are no signature of any key."""
    try:
        public = keys.Signature(vrs=(v, r, s)).recover_public_key_from_msg_hash(digest)
    except (BadSignature, ValidationError) as exc:
        raise InvalidInput(f"not a valid ECDSA signature: {exc}", field="signature") from None
    return str(public.to_checksum_address())


def recover_digest_signer(digest: bytes, signature: bytes | str) -> str:
    """The checksummed address that produced the 65-byte r‖s‖v `signature` (bytes or 0x-hex;
    v = 27/28 or 0/1) over `digest`; InvalidInput if it is not a signature."""
    sig = from_hex(signature, "signature") if isinstance(signature, str) else bytes(signature)
    if len(sig) != 65:
        raise InvalidInput("signature must be 65 bytes (r‖s‖v)", field="signature")
    v = sig[64] - 27 if sig[64] >= 27 else sig[64]
    return recover_vrs(
        digest, v, int.from_bytes(sig[:32], "big"), int.from_bytes(sig[32:64], "big")
    )
