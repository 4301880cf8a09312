"""ledger.protocol.merkle agrees with @openzeppelin/merkle-tree's StandardMerkleTree."""

from __future__ import annotations

import json
import random
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ledger.protocol import merkle

SCRIPT = Path(__file__).with_name("oz_merkle.js")
ROOT = Path(__file__).resolve().parents[3]


def _oz(trees: list[list[str]]) -> list[dict[str, object]]:
    node = shutil.which("node")
    if node is None or not (ROOT / "node_modules/@openzeppelin/merkle-tree").is_dir():
        pytest.fail("node and node_modules/@openzeppelin/merkle-tree are required (npm ci)")
    done = subprocess.run(
        [node, str(SCRIPT)],
        input=json.dumps({"trees": trees}),
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
        timeout=120,
    )
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def test_matches_openzeppelin_merkle_tree() -> None:
    rng = random.Random(8)
    sizes = [*range(1, 18), 31, 64, 100, 1024]
    trees = [["0x" + rng.randbytes(32).hex() for _ in range(n)] for n in sizes]
    trees.append(["0x" + "11" * 32] * 3)  # duplicated values are allowed by the library
    expected = _oz(trees)
    for digests, oz in zip(trees, expected, strict=True):
        tree = merkle.build(digests)
        assert "0x" + tree.root.hex() == oz["root"], len(digests)
        assert [["0x" + p.hex() for p in proof] for proof in tree.proofs()] == oz["proofs"]
        assert tree.dump() == oz["dump"]


@given(st.lists(st.binary(min_size=32, max_size=32), min_size=1, max_size=40), st.data())
def test_every_proof_verifies_and_no_other_digest_does(
    digests: list[bytes], data: st.DataObject
) -> None:
    tree = merkle.build(digests)
    i = data.draw(st.integers(0, len(digests) - 1))
    proof = tree.proof(i)
    assert merkle.verify(tree.root, digests[i], proof)
    other = data.draw(st.binary(min_size=32, max_size=32).filter(lambda d: d not in digests))
    assert not merkle.verify(tree.root, other, proof)


def test_empty_tree_is_refused() -> None:
    with pytest.raises(ValueError, match="at least one leaf"):
        merkle.build([])


def test_leaf_is_double_keccak_of_abi_encoded_digest() -> None:
    from eth_abi import encode
    from eth_hash.auto import keccak

    digest = bytes(range(32))
    assert merkle.leaf_hash(digest) == keccak(keccak(encode(["bytes32"], [digest])))
