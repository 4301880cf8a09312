"""keccak256 of bytes, straight from pycryptodome's C sponge (the one eth-hash picks here).

eth-hash builds a hash object per call (four ctypes calls, a buffer and a finaliser), ≈ 6 µs;
an audit of a signed match computes about a thousand digests. Here each thread keeps one sponge
state, absorbed, squeezed and reset per call (≈ 2 µs). Any other backend falls back to
eth-hash's keccak (same answers; tests compare the two)."""

from __future__ import annotations

import ctypes
import threading
from collections.abc import Callable

from eth_hash.auto import keccak as _eth_hash_keccak

_local = threading.local()


def _sponge_functions() -> tuple[Callable[..., int], ...] | None:
    try:
        from Crypto.Hash import keccak as pycryptodome_keccak

        lib = pycryptodome_keccak._raw_keccak_lib  # type: ignore[attr-defined]
    except ImportError:  # pragma: no cover - pycryptodome is a locked dependency
        return None
    if not isinstance(lib, ctypes.CDLL):  # the cffi backend: keep eth-hash's path
        return None
    lib = ctypes.CDLL(lib._name)  # its own function objects: pycryptodome's keep their types
    init, absorb, digest, reset = (
        lib.keccak_init,
        lib.keccak_absorb,
        lib.keccak_digest,
        lib.keccak_reset,
    )
    init.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t, ctypes.c_ubyte]
    absorb.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t]
    digest.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_ubyte]
    reset.argtypes = [ctypes.c_void_p]
    for fn in (init, absorb, digest, reset):
        fn.restype = ctypes.c_int
    return init, absorb, digest, reset


_SPONGE = _sponge_functions()


def _state() -> tuple[ctypes.c_void_p, ctypes.Array[ctypes.c_char]]:
    """This thread's sponge (capacity 512 bits, 24 rounds: Keccak-256) and output buffer."""
    assert _SPONGE is not None
    state = ctypes.c_void_p()
    if _SPONGE[0](ctypes.byref(state), 64, 24):
        raise MemoryError("keccak_init failed")
    _local.sponge = (state, ctypes.create_string_buffer(32))
    return _local.sponge  # type: ignore[no-any-return]


def keccak(data: bytes) -> bytes:
    """keccak256(data) (Ethereum's, not SHA3-256)."""
    if _SPONGE is None:
        return bytes(_eth_hash_keccak(data))
    if type(data) is not bytes:
        data = bytes(data)
    try:
        state, out = _local.sponge
    except AttributeError:
        state, out = _state()
    _init, absorb, digest, reset = _SPONGE
    if absorb(state, data, len(data)) or digest(state, out, 32, 1):
        reset(state)
        raise ValueError("keccak256 failed")
    reset(state)
    return bytes(out.raw)
