"""The signer interface every operator key is used through, and its local implementation.

A `Signer` has an `address` and signs 32-byte digests (EIP-712 results) and EIP-1559
transactions (anchors, deployments). `LocalSigner` holds a decrypted key in this process; a
remote signer (an HTTP signing service, a KMS or HSM) implements the same three members and is
returned by `ledger.keys.roles.load_signer` instead (docs/deploy.md, "Another kind of signer").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from eth_account import Account

from ledger.protocol.signatures import sign_digest


@dataclass(frozen=True)
class SignedTransaction:
    """A signed transaction: its raw bytes (what is broadcast) and its hash."""

    raw: bytes
    hash: bytes


@runtime_checkable
class Signer(Protocol):
    """What the API, the workers and the deploy commands need of a key."""

    @property
    def address(self) -> str:
        """The checksummed address of the key."""
        ...

    def sign_digest(self, digest: bytes) -> bytes:
        """A 65-byte r‖s‖v signature (v = 27/28) of a 32-byte digest."""
        ...

    def sign_transaction(self, tx: dict[str, Any]) -> SignedTransaction:
        """Sign a transaction dict (EIP-1559 fields, `chainId`, `nonce`, ...)."""
        ...


class LocalSigner:
    """A key held in this process (decrypted from a keystore, or a development key)."""

    def __init__(self, private_key: str | bytes) -> None:
        self._account = Account.from_key(private_key)

    @property
    def address(self) -> str:
        """The checksummed address of the key."""
        return str(self._account.address)

    def sign_digest(self, digest: bytes) -> bytes:
        """A 65-byte r‖s‖v signature (v = 27/28) of a 32-byte digest."""
        return sign_digest(self._account.key, digest)

    def sign_transaction(self, tx: dict[str, Any]) -> SignedTransaction:
        """Sign a transaction dict."""
        signed = self._account.sign_transaction(tx)
        return SignedTransaction(bytes(signed.raw_transaction), bytes(signed.hash))

    def __repr__(self) -> str:  # never the key
        return f"LocalSigner({self.address})"


def as_signer(key: Signer | str | bytes) -> Signer:
    """`key` as a Signer: a Signer as is, a plain private key wrapped in a LocalSigner."""
    return LocalSigner(key) if isinstance(key, str | bytes) else key
