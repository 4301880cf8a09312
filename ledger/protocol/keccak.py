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
    init, absorb, digest, reset, destroy = (
        lib.keccak_init,
        lib.keccak_absorb,
        lib.keccak_digest,
        lib.keccak_reset,
        lib.keccak_destroy,
    )
    init.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t, ctypes.c_ubyte]
    destroy.argtypes = [ctypes.c_void_p]
    # absorb, digest and reset take no argtypes: `keccak` passes each argument as its exact C
    # type (a c_void_p state, bytes, a c_size_t length, c_ubyte padding), which skips ctypes'
    # per-argument conversion (≈ 0.5 µs of a 2 µs call)
    for fn in (init, absorb, digest, reset, destroy):
        fn.restype = ctypes.c_int
    return init, absorb, digest, reset, destroy


_SPONGE = _sponge_functions()
_SIZE_32 = ctypes.c_size_t(32)
#: Keccak's own padding byte (SHA-3 uses 0x06)
_PADDING = ctypes.c_ubyte(1)


class _Sponge:
    """One thread's sponge state (capacity 512 bits, 24 rounds: Keccak-256) and output buffer;
    the C state is freed with the thread's local storage."""

    __slots__ = ("out", "state")

    def __init__(self) -> None:
        assert _SPONGE is not None
        self.state = ctypes.c_void_p()
        if _SPONGE[0](ctypes.byref(self.state), 64, 24):
            raise MemoryError("keccak_init failed")
        self.out = ctypes.create_string_buffer(32)

    def __del__(self) -> None:
        if _SPONGE is not None and self.state:
            _SPONGE[4](self.state)


def keccak(data: bytes) -> bytes:
    """keccak256(data) (Ethereum's, not SHA3-256)."""
    if _SPONGE is None:
        return bytes(_eth_hash_keccak(data))
    if type(data) is not bytes:
        data = bytes(data)
    sponge: _Sponge | None = getattr(_local, "sponge", None)
    if sponge is None:
        sponge = _local.sponge = _Sponge()
    state, out = sponge.state, sponge.out
    _init, absorb, digest, reset, _destroy = _SPONGE
    if absorb(state, data, ctypes.c_size_t(len(data))) or digest(state, out, _SIZE_32, _PADDING):
        reset(state)
        raise ValueError("keccak256 failed")
    reset(state)
    return bytes(out.raw)
