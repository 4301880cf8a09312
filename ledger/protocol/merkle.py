"""Merkle batches compatible with `@openzeppelin/merkle-tree`'s StandardMerkleTree, and the
hash chain that links anchored batches (`batch_hash`, as MatchLedger computes it).

Leaf encoding is fixed to ``["bytes32"]`` with the value = a result's EIP-712 digest, so
``leaf = keccak256(bytes.concat(keccak256(abi.encode(digest))))``. ``abi.encode`` of one
bytes32 is the 32 bytes themselves. Inner nodes hash the sorted pair (OpenZeppelin
``MerkleProof``'s commutative hash). Leaves are sorted by their hash, as the JS library does
by default, so both sides build the same tree and the same proofs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from eth_abi import encode

from ledger.protocol.hexcodec import bytes32, to_hex
from ledger.protocol.keccak import keccak

LEAF_ENCODING = ["bytes32"]
#: the prevBatchHash of batch 1, and a root or hash that is not there
ZERO32 = b"\x00" * 32


def batch_hash(prev_batch_hash: bytes, batch_id: int, root: bytes, count: int) -> bytes:
    """keccak256(abi.encode(prevBatchHash, batchId, root, count)) as MatchLedger computes it."""
    return keccak(
        encode(["bytes32", "uint64", "bytes32", "uint32"], [prev_batch_hash, batch_id, root, count])
    )


def leaf_hash(digest: bytes | str) -> bytes:
    """The StandardMerkleTree leaf of one EIP-712 digest (double keccak of abi.encode)."""
    return keccak(keccak(bytes32(digest, "digest")))


def hash_pair(a: bytes, b: bytes) -> bytes:
    """OpenZeppelin's commutative node hash: keccak of the sorted pair."""
    return keccak(a + b) if a < b else keccak(b + a)


def process_proof(leaf: bytes, proof: Sequence[bytes | str]) -> bytes:
    """The root a proof leads to from a leaf (OpenZeppelin MerkleProof.processProof)."""
    node = leaf
    for sibling in proof:
        node = hash_pair(node, bytes32(sibling, "proof"))
    return node


def verify(root: bytes | str, digest: bytes | str, proof: Sequence[bytes | str]) -> bool:
    """Whether `proof` proves `digest` under `root`."""
    return process_proof(leaf_hash(digest), proof) == bytes32(root, "root")


@dataclass(frozen=True, slots=True)
class MerkleTree:
    """A built tree: the flat node array (root at 0) and each input's position in it."""

    tree: tuple[bytes, ...]
    #: tree index of the i-th input digest
    tree_index: tuple[int, ...]
    digests: tuple[bytes, ...]

    @property
    def root(self) -> bytes:
        """The Merkle root."""
        return self.tree[0]

    def proof(self, i: int) -> list[bytes]:
        """Sibling hashes from the i-th input's leaf up to the root."""
        index = self.tree_index[i]
        tree = self.tree
        out: list[bytes] = []
        while index > 0:
            out.append(tree[index - 1 if index % 2 == 0 else index + 1])
            index = (index - 1) // 2
        return out

    def proofs(self) -> list[list[bytes]]:
        """The proof of every input, in input order."""
        return [self.proof(i) for i in range(len(self.digests))]

    def dump(self) -> dict[str, Any]:
        """The tree in `StandardMerkleTree.dump()` format (`standard-v1`)."""
        return {
            "format": "standard-v1",
            "leafEncoding": LEAF_ENCODING,
            "tree": [to_hex(node) for node in self.tree],
            "values": [
                {"value": [to_hex(d)], "treeIndex": t}
                for d, t in zip(self.digests, self.tree_index, strict=True)
            ],
        }


def build(digests: Sequence[bytes | str]) -> MerkleTree:
    """Build the StandardMerkleTree of these EIP-712 digests (at least one)."""
    if not digests:
        raise ValueError("a Merkle tree needs at least one leaf")
    values = [bytes32(d, "digest") for d in digests]
    hashed = sorted(((leaf_hash(v), i) for i, v in enumerate(values)), key=lambda p: p[0])
    n = len(hashed)
    tree: list[bytes] = [b""] * (2 * n - 1)
    tree_index = [0] * n
    last = len(tree) - 1
    for position, (leaf, i) in enumerate(hashed):
        tree[last - position] = leaf
        tree_index[i] = last - position
    for k in range(last - n, -1, -1):
        tree[k] = hash_pair(tree[2 * k + 1], tree[2 * k + 2])
    return MerkleTree(tuple(tree), tuple(tree_index), tuple(values))
