"""Match seeds by commit-reveal: each party commits `keccak256(secret)` to a 32-byte secret, and
the engine seed is `uint256(keccak256(operatorSecret ‖ secret0 ‖ secret1))`, so no single party
chooses the shuffle. The signed result carries
`seedCommitments = keccak256(operatorCommit ‖ player0Commit ‖ player1Commit)` (the
`abi.encode` of three bytes32 is their concatenation)."""

from __future__ import annotations

from eth_hash.auto import keccak

from ledger.protocol.hexcodec import bytes32, to_hex


def commit_of(secret: bytes) -> str:
    """The seed commitment of a 32-byte secret: keccak256(secret) as 0x-hex."""
    return to_hex(keccak(secret))


def _hash_three(what: str, operator: str, player0: str, player1: str) -> bytes:
    """keccak256 of the operator's, player 0's and player 1's bytes32 `what`, in that order."""
    parts = (("operator", operator), ("player 0", player0), ("player 1", player1))
    return keccak(b"".join(bytes32(value, f"{who}'s {what}") for who, value in parts))


def derive_seed(operator_secret: str, secret0: str, secret1: str) -> int:
    """The engine seed: uint256(keccak256(operatorSecret ‖ secret0 ‖ secret1))."""
    return int.from_bytes(_hash_three("secret", operator_secret, secret0, secret1), "big")


def seed_commitments(operator_commit: str, commit0: str, commit1: str) -> bytes:
    """keccak256(abi.encode(operatorCommit, player0Commit, player1Commit))."""
    return _hash_three("commit", operator_commit, commit0, commit1)
