"""What the bundles of one batch share, read and derived once per batch in a bulk audit.

Every format-2 bundle carries its batch's whole leaf list, the same list in each bundle of the
batch (a 1,024-result batch: ≈ 0.8 MB of every bundle). A `BatchMemo` (one per worker process)
keeps the leaf lists it has seen, with what each one gives in a domain: the digests of its
results, where each sits in the Merkle tree and its root. So a bundle of a batch already seen
costs one comparison of its leaf-list bytes, and the per-bundle checks are look-ups.

Reading stays sound: a leaf list is only taken from memory when the file holds, at the place of
the top-level `batch_leaves` value, exactly the bytes of a list read before (parsed, checked
within the limits and shape-checked then). Those bytes are replaced by a placeholder string
nobody else can know (random per process) and the rest of the file is parsed and checked as
usual; the list is used only if the placeholder came out as the top-level `batch_leaves`
value. JSON is context-free, so the file then parses to the same document with the list read
before in that place; anything else (the bytes found elsewhere, a duplicate key) falls back to
reading the whole file.
"""

from __future__ import annotations

import json
import secrets
from collections import Counter, OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from ledger.protocol import eip712, merkle
from ledger.protocol.bundle import check_shape
from ledger.protocol.untrusted import JsonLimits, parse, too_large

#: how the exporter writes the key (`json.dumps(..., sort_keys=True)`); other spellings are
#: read in full
_KEY = b'"batch_leaves": '

#: how many distinct leaf lists a worker keeps (bundles usually come batch by batch)
LISTS_KEPT = 4
#: how many decoded chain reads a worker keeps before starting over
READS_KEPT = 4096

_T = TypeVar("_T")


@dataclass(frozen=True)
class LeafList:
    """One batch's leaf list in one EIP-712 domain: its digests and tree."""

    digests: list[bytes]
    #: digest -> how many leaves have it
    counts: Counter[bytes]
    #: digest -> its first position in the list
    positions: dict[bytes, int]
    #: match id (lower-case 0x-hex) -> the digests of the leaves carrying it
    by_match: dict[str, list[bytes]]
    root: bytes
    #: leaf position -> index in the tree array
    tree_index: list[int]

    @classmethod
    def of(cls, leaves: list[dict[str, Any]], chain_id: int, contract: str) -> LeafList:
        """Digest every leaf's result and build the batch's tree."""
        digests: list[bytes] = []
        by_match: dict[str, list[bytes]] = {}
        for leaf in leaves:
            message = leaf["result"]
            digest = eip712.result_digest(
                eip712.MatchResult.from_message(message), chain_id, contract
            )
            digests.append(digest)
            by_match.setdefault(message["matchId"].lower(), []).append(digest)
        positions: dict[bytes, int] = {}
        for i, digest in enumerate(digests):
            positions.setdefault(digest, i)
        tree = merkle.build(digests)
        return cls(digests, Counter(digests), positions, by_match, tree.root, list(tree.tree_index))


@dataclass
class _Known:
    """A leaf list this memo read, and what it gives per domain (chain id, contract)."""

    leaves: list[dict[str, Any]]
    derived: dict[tuple[int, str], LeafList]


class BatchMemo:
    """The leaf lists one worker has read, and their digests per domain (bounded)."""

    def __init__(self, kept: int = LISTS_KEPT) -> None:
        self.kept = kept
        self._placeholder = f"metaledger-leaves-{secrets.token_hex(16)}"
        #: the leaf list's bytes -> the list parsed from them
        self._lists: OrderedDict[bytes, _Known] = OrderedDict()
        self.reused = 0
        #: decoded chain reads at the worker's pinned head (`remembered`)
        self._reads: dict[tuple[Any, ...], Any] = {}

    def parse(self, data: bytes, limits: JsonLimits, what: str) -> Any:
        """`untrusted.parse(data)`, with a leaf list read before taken from memory (see the
        module docstring for why that is the same document)."""
        too_large(len(data), limits, what)
        start = data.find(_KEY)
        if start >= 0:
            start += len(_KEY)
            for text, known in self._lists.items():
                if not data.startswith(text, start):  # no copy of the list's bytes
                    continue
                rest = b"".join(
                    (
                        data[:start],
                        json.dumps(self._placeholder).encode(),
                        data[start + len(text) :],
                    )
                )
                document = parse(rest, limits, what)
                if isinstance(document, dict) and document.get("batch_leaves") == self._placeholder:
                    self._lists.move_to_end(text)
                    self.reused += 1
                    document["batch_leaves"] = known.leaves
                    return document
                break
        document = parse(data, limits, what)
        self._remember(document)
        return document

    def _remember(self, document: Any) -> None:
        """Keep the leaf list of a well-formed bundle (shape-checked) for its batch's others."""
        if not isinstance(document, dict) or not isinstance(document.get("batch_leaves"), list):
            return
        leaves = document["batch_leaves"]
        if self._find(leaves) is not None:
            return
        try:
            check_shape(document)
        except Exception:  # a malformed bundle: its reader reports it; nothing is kept
            return
        text = json.dumps(leaves, sort_keys=True).encode()
        if json.loads(text) != leaves:  # not the exporter's spelling: nothing to gain
            return
        self._lists[text] = _Known(leaves, {})
        while len(self._lists) > self.kept:
            self._lists.popitem(last=False)

    def _find(self, leaves: Any) -> _Known | None:
        return next((k for k in self._lists.values() if k.leaves is leaves), None)

    def known(self, leaves: Any) -> bool:
        """Whether `leaves` is a list this memo read (and shape-checked) itself."""
        return self._find(leaves) is not None

    def check_shape(self, bundle: Any) -> None:
        """`check_shape(bundle)`, without walking a leaf list already shape-checked here."""
        if isinstance(bundle, dict) and self.known(bundle.get("batch_leaves")):
            check_shape({**bundle, "batch_leaves": []})
        else:
            check_shape(bundle)

    def remembered(self, key: tuple[Any, ...], read: Callable[[], _T]) -> _T:
        """`read()`, once per key: a decoded chain read the bundles of a batch share (the
        worker's transport is pinned to one head block, so the answer cannot change)."""
        if key not in self._reads:
            if len(self._reads) >= READS_KEPT:
                self._reads.clear()
            self._reads[key] = read()
        value: _T = self._reads[key]
        return value

    def leaf_list(self, leaves: list[dict[str, Any]], chain_id: int, contract: str) -> LeafList:
        """The digests and tree of `leaves` in the domain (chain id, contract), computed once per
        list this memo read."""
        known = self._find(leaves)
        if known is None:
            return LeafList.of(leaves, chain_id, contract)
        key = (chain_id, contract.lower())
        if key not in known.derived:
            known.derived[key] = LeafList.of(leaves, chain_id, contract)
        return known.derived[key]
