"""ECDSA (secp256k1) over 32-byte digests: sign with a key, recover the signer's address.

Both go straight to libsecp256k1 through coincurve (the backend eth-keys itself picks when it is
installed, without eth-keys' per-call object layers: a recovery costs ≈ 0.06 ms instead of
0.13 ms, a signature ≈ 0.04 ms instead of 0.19 ms with eth-account). EIP-712 results, offers,
seat authorizations, moves, receipts and EIP-191 sign-in messages all sign and recover here.
"""

from __future__ import annotations

from functools import lru_cache

from coincurve import PrivateKey
from coincurve._libsecp256k1 import ffi, lib
from coincurve.context import GLOBAL_CONTEXT

from ledger.errors import InvalidInput
from ledger.protocol.hexcodec import checksum_address, from_hex, to_hex
from ledger.protocol.keccak import keccak

#: the order of secp256k1's group
SECP256K1_N = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141


@lru_cache(maxsize=64)
def _private_key(secret: bytes) -> PrivateKey:
    return PrivateKey(secret)


def _key_bytes(private_key: str | bytes) -> bytes:
    if isinstance(private_key, bytes | bytearray):
        return bytes(private_key)
    return from_hex(private_key, "private key", length=32)


def sign_digest(private_key: str | bytes, digest: bytes) -> bytes:
    """A 65-byte r‖s‖v ECDSA signature (v = 27 or 28, low s) of a 32-byte digest."""
    signed = _private_key(_key_bytes(private_key)).sign_recoverable(digest, hasher=None)
    return signed[:64] + bytes([signed[64] + 27])


def address_of_key(private_key: str | bytes) -> str:
    """The checksummed address of a private key."""
    public = _private_key(_key_bytes(private_key)).public_key.format(compressed=False)
    return _checksummed(_address_of(public[1:]))


def recover_vrs(digest: bytes, v: int, r: int, s: int) -> str:
    """The checksummed address whose key signed `digest` with (v in {0, 1}, r, s);
    InvalidInput if the numbers are no signature of any key."""
    _check_vrs(v, r, s)
    return _checksummed(_recover_address(digest, v, r.to_bytes(32, "big") + s.to_bytes(32, "big")))


def _check_vrs(v: int, r: int, s: int) -> None:
    if v not in (0, 1) or not (0 < r < SECP256K1_N and 0 < s < SECP256K1_N):
        raise InvalidInput("not a valid ECDSA signature: v, r or s out of range", field="signature")


def _recover_address(digest: bytes, v: int, rs: bytes) -> bytes:
    """The 20-byte address of the key that signed the 32-byte `digest` with (v, r‖s), straight
    through libsecp256k1's recovery (coincurve's own objects cost ≈ 5 µs more a call)."""
    if len(digest) != 32:  # the C function reads 32 bytes, whatever it is given
        raise InvalidInput(
            "not a valid ECDSA signature: the digest is not 32 bytes", field="digest"
        )
    ctx = GLOBAL_CONTEXT.ctx
    signature = ffi.new("secp256k1_ecdsa_recoverable_signature *")
    public = ffi.new("secp256k1_pubkey *")
    if not (
        lib.secp256k1_ecdsa_recoverable_signature_parse_compact(ctx, signature, rs, v)
        and lib.secp256k1_ecdsa_recover(ctx, public, signature, digest)
    ):
        raise InvalidInput(
            "not a valid ECDSA signature: failed to recover ECDSA public key", field="signature"
        )
    out = ffi.new("unsigned char[65]")
    size = ffi.new("size_t *", 65)
    lib.secp256k1_ec_pubkey_serialize(ctx, out, size, public, lib.SECP256K1_EC_UNCOMPRESSED)
    return _address_of(ffi.buffer(out, 65)[1:])


def _address_of(public: bytes) -> bytes:
    """The 20-byte address of a 64-byte public key (x‖y), remembered."""
    address = _ADDRESSES.get(public)
    if address is None:
        if len(_ADDRESSES) >= _ADDRESSES_KEPT:
            _ADDRESSES.clear()
        address = _ADDRESSES[public] = keccak(public)[-20:]
    return address


#: public key -> address: a match's moves recover the same two session keys again and again
_ADDRESSES: dict[bytes, bytes] = {}
_ADDRESSES_KEPT = 4096


def _checksummed(address: bytes) -> str:
    return checksum_address(to_hex(address))


def split_signature(signature: bytes | str) -> tuple[int, int, int]:
    """(v in {0, 1}, r, s) of a 65-byte r‖s‖v signature (bytes or 0x-hex; v = 27/28 or 0/1);
    InvalidInput if it is not 65 bytes."""
    sig = from_hex(signature, "signature") if isinstance(signature, str) else bytes(signature)
    if len(sig) != 65:
        raise InvalidInput("signature must be 65 bytes (r‖s‖v)", field="signature")
    v = sig[64] - 27 if sig[64] >= 27 else sig[64]
    return v, int.from_bytes(sig[:32], "big"), int.from_bytes(sig[32:64], "big")


def recover_digest_signer(digest: bytes, signature: bytes | str) -> str:
    """The checksummed address that produced the 65-byte r‖s‖v `signature` (bytes or 0x-hex;
    v = 27/28 or 0/1) over `digest`; InvalidInput if it is not a signature."""
    return recover_vrs(digest, *split_signature(signature))


def recover_low_s_signer(digest: bytes, signature: bytes | str) -> str:
    """As `recover_digest_signer`, but refusing the high-s twin of a signature (EIP-2), so
    that each signed message has exactly one accepted signature."""
    return _checksummed(recover_low_s_address(digest, signature))


def recover_low_s_address(digest: bytes, signature: bytes | str) -> bytes:
    """`recover_low_s_signer` as the 20 address bytes (for comparing many signatures)."""
    sig = from_hex(signature, "signature") if isinstance(signature, str) else bytes(signature)
    v, r, s = split_signature(sig)
    if s > SECP256K1_N // 2:
        raise InvalidInput("signature is not in low-s form (EIP-2)", field="signature")
    _check_vrs(v, r, s)
    return _recover_address(digest, v, sig[:64])
