"""Auditor verification of a match bundle, using only the bundle and an RPC URL.

No database, no API: every fact comes from the bundle and is checked against the chain or
recomputed (digest, Merkle proof, batch hash chain, seed commitments, deck hashes, transcript
hash, the replayed outcome). Each check is named; `verify_bundle` returns them all.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from eth_hash.auto import keccak
from eth_utils import to_checksum_address

from ledger.chain.contracts import AnchoredBatch, CardToken, MatchLedger
from ledger.chain.transport import JsonRpc, RpcError
from ledger.errors import InvalidInput, ServiceUnavailable
from ledger.protocol import eip712, merkle
from ledger.protocol.bundle import BUNDLE_FORMAT, check_shape
from ledger.protocol.decks import deck_hash
from ledger.protocol.hexcodec import from_hex, to_hex
from ledger.protocol.merkle import ZERO32, batch_hash
from ledger.protocol.seeds import commit_of, derive_seed, seed_commitments
from ledger.protocol.signatures import recover_digest_signer
from ledger.protocol.tokenids import token_id

CHECKS = (
    "bundle-format",
    "chain-id",
    "eip712-domain",
    "result-digest",
    "signature",
    "merkle-proof",
    "batch-hash-chain",
    "signer-registered",
    "seed-commitments",
    "decks",
    "ownership",
    "transcript-hash",
    "replay",
)


@dataclass(frozen=True)
class Check:
    """One named verification step and its outcome."""

    name: str
    ok: bool
    detail: str


class CheckFailed(Exception):
    """Raised inside a check with the reason it failed."""


def _require(condition: bool, reason: str) -> None:
    if not condition:
        raise CheckFailed(reason)


class _Verifier:
    def __init__(self, bundle: dict[str, Any], rpc: JsonRpc) -> None:
        self.b = bundle
        self.rpc = rpc
        self.typed = bundle["result"]["typed_data"]
        self.msg: dict[str, Any] = self.typed["message"]
        self.domain: dict[str, Any] = self.typed["domain"]
        self.chain: dict[str, Any] = bundle["chain"]
        self.anchor: dict[str, Any] = bundle["anchor"]
        self.ledger = MatchLedger(rpc, self.chain["match_ledger"])
        self._digest: bytes | None = None
        self._event: AnchoredBatch | None = None

    # helpers
    def struct(self) -> eip712.MatchResult:
        return eip712.MatchResult.from_message(self.msg)

    def digest(self) -> bytes:
        if self._digest is None:
            self._digest = eip712.result_digest(
                self.struct(), int(self.domain["chainId"]), self.domain["verifyingContract"]
            )
        return self._digest

    def event(self) -> AnchoredBatch:
        if self._event is None:
            hint = self.anchor.get("block_number")
            found = self.ledger.anchored_batch(
                int(self.anchor["batch_id"]),
                hint_block=None if hint is None else int(hint),
                from_block=int(self.chain["deployment_block"]),
            )
            if found is None:
                raise CheckFailed(
                    f"no BatchAnchored event for batch {self.anchor['batch_id']} on-chain"
                )
            self._event = found
        return self._event

    # checks
    def bundle_format(self) -> str:
        _require(
            self.b.get("format") == BUNDLE_FORMAT,
            f"format is {self.b.get('format')!r}, expected {BUNDLE_FORMAT!r}",
        )
        _require(self.typed.get("primaryType") == "MatchResult", "primaryType is not MatchResult")
        _require(
            self.typed.get("types", {}).get("MatchResult") == eip712.MATCH_RESULT_FIELDS,
            "the MatchResult type differs from MetaLedger's",
        )
        return BUNDLE_FORMAT

    def chain_id(self) -> str:
        actual = self.rpc.chain_id()
        _require(
            int(self.chain["chain_id"]) == actual,
            f"bundle says chain {self.chain['chain_id']}, the RPC is chain {actual}",
        )
        _require(
            int(self.domain["chainId"]) == actual,
            f"the signed domain names chain {self.domain['chainId']}, the RPC is chain {actual}",
        )
        return f"chain {actual}"

    def eip712_domain(self) -> str:
        expected = eip712.domain(
            eip712.RESULT_DOMAIN_NAME, self.rpc.chain_id(), self.chain["match_ledger"]
        )
        given = {
            **self.domain,
            "verifyingContract": to_checksum_address(self.domain["verifyingContract"]),
        }
        _require(given == expected, f"signed domain {self.domain} is not MatchLedger's {expected}")
        onchain = self.ledger.eip712_domain()
        _require(
            onchain == expected,
            f"the contract at {self.chain['match_ledger']} reports domain {onchain}",
        )
        return f"{expected['name']} v{expected['version']} at {expected['verifyingContract']}"

    def result_digest(self) -> str:
        given = from_hex(self.b["result"]["digest"])
        _require(
            given == self.digest(),
            f"the bundle's digest {to_hex(given)} is not the digest of its typed data {to_hex(self.digest())}",
        )
        return to_hex(self.digest())

    def signature(self) -> str:
        signer = recover_digest_signer(self.digest(), self.b["result"]["signature"])
        _require(
            signer == to_checksum_address(self.b["result"]["signer"]),
            f"the signature recovers to {signer}, not the bundle's signer {self.b['result']['signer']}",
        )
        return f"signed by {signer}"

    def merkle_proof(self) -> str:
        root = from_hex(self.anchor["root"])
        proof = [from_hex(p) for p in self.anchor["proof"]]
        batch_id = int(self.anchor["batch_id"])
        _require(
            merkle.verify(root, self.digest(), proof),
            "the proof does not lead from the digest to the bundle's root",
        )
        onchain = self.ledger.batch_root(batch_id)
        _require(onchain != ZERO32, f"batch {batch_id} is not anchored on-chain")
        _require(
            onchain == root,
            f"batch {batch_id}'s on-chain root is {to_hex(onchain)}, not {to_hex(root)}",
        )
        _require(
            self.ledger.verify_result(batch_id, self.digest(), proof),
            "MatchLedger.verifyResult returned false",
        )
        return f"batch {batch_id}, root {to_hex(root)}, {len(proof)} siblings (verifyResult true)"

    def batch_hash_chain(self) -> str:
        e = self.event()
        a = self.anchor
        _require(
            to_hex(e.root) == a["root"].lower()
            and e.count == int(a["count"])
            and to_hex(e.prev_batch_hash) == a["prev_batch_hash"].lower()
            and to_hex(e.batch_hash) == a["batch_hash"].lower(),
            f"the bundle's batch {a['batch_id']} differs from the anchored one",
        )
        _require(
            a["block_number"] == e.block_number
            and a["block_hash"].lower() == e.block_hash.lower()
            and a["tx_hash"].lower() == e.tx_hash.lower(),
            f"the bundle's anchoring block or transaction is not where batch {a['batch_id']} was anchored",
        )
        k = e.batch_id
        _require(
            e.batch_hash == batch_hash(e.prev_batch_hash, k, e.root, e.count),
            f"batch {k}'s hash is not keccak256(prev, id, root, count)",
        )
        # the link to the predecessor's recorded hash, found from its id like this batch's (no
        # scan from the deployment block); the contract accepted each later batch only on top
        # of its predecessor, so the chain from here to the head is the contract's own
        if k == 1:
            _require(e.prev_batch_hash == ZERO32, "batch 1 does not start from the genesis hash")
            link = "batch 1 starts from the genesis hash"
        else:
            prev = self.ledger.anchored_batch(
                k - 1, from_block=int(self.chain["deployment_block"]), to_block=e.block_number
            )
            _require(prev is not None, f"batch {k - 1}, which batch {k} follows, is not anchored")
            assert prev is not None
            _require(
                prev.batch_hash
                == batch_hash(prev.prev_batch_hash, prev.batch_id, prev.root, prev.count),
                f"batch {k - 1}'s hash is not keccak256(prev, id, root, count)",
            )
            _require(
                e.prev_batch_hash == prev.batch_hash,
                f"batch {k} does not chain to batch {k - 1}",
            )
            link = f"chains to batch {k - 1}'s recorded hash (block {prev.block_number})"
        pin = self.rpc.block_number()
        latest = self.ledger.latest_batch_id(pin)
        _require(k <= latest, f"batch {k} is beyond the ledger's latest batch {latest}")
        if k == latest:
            _require(
                e.batch_hash == self.ledger.head_batch_hash(pin),
                "the latest batch's hash is not headBatchHash()",
            )
        return f"batch {k} in block {e.block_number} {link}; the ledger's head is batch {latest}"

    def signer_registered(self) -> str:
        block = self.event().block_number
        signer = self.b["result"]["signer"]
        _require(
            self.ledger.was_signer_at(signer, block),
            f"{signer} was not a registered signer at block {block}",
        )
        return f"{to_checksum_address(signer)} registered at anchoring block {block}"

    def seed_commitments(self) -> str:
        seeds = self.b["seeds"]
        parties = [("operator", seeds["operator"])] + [
            (f"player {i}", p) for i, p in enumerate(seeds["players"])
        ]
        for who, entry in parties:
            _require(
                commit_of(from_hex(entry["reveal"])) == entry["commit"].lower(),
                f"the {who}'s reveal does not match its commit",
            )
        commits = [entry["commit"] for _who, entry in parties]
        _require(
            seed_commitments(*commits) == from_hex(self.msg["seedCommitments"]),
            "the commits are not the signed seedCommitments",
        )
        seed = derive_seed(*(entry["reveal"] for _who, entry in parties))
        _require(
            int(self.b["transcript"]["seed"], 16) == seed and int(seeds["seed"], 16) == seed,
            "the transcript's (or the bundle's) seed is not derived from the reveals",
        )
        return "3 commits match the reveals, the signed seedCommitments and the transcript seed"

    def decks(self) -> str:
        game = self.msg["game"]
        decks = self.b["decks"]
        _require(len(decks) == 2, "a bundle has two decks")
        for i, deck in enumerate(decks):
            _require(int(deck["seat"]) == i, "decks are listed by seat")
            _require(
                to_checksum_address(deck["player"]) == to_checksum_address(self.msg[f"player{i}"]),
                f"seat {i}'s player is not the signed player{i}",
            )
            actual = deck_hash(game, deck["cards"])
            _require(
                actual == self.msg[f"deck{i}"].lower(),
                f"seat {i}'s deck list does not hash to the signed deck{i}",
            )
            _require(
                dict(deck["cards"]) == dict(self.b["transcript"]["decks"][i]),
                f"seat {i}'s deck differs from the transcript's",
            )
        return "both deck lists hash to the signed deck0/deck1 and are the transcript's decks"

    def ownership(self) -> str:
        from engine import get_game

        game = get_game(self.msg["game"])
        block = int(self.msg["ownershipBlock"])
        pinned = self.b["ownership_block"]
        _require(
            pinned["number"] == block,
            f"the bundle's ownership block {pinned['number']} is not the signed {block}",
        )
        onchain_hash = self.rpc.block_hash(block)
        _require(
            onchain_hash is not None and onchain_hash.lower() == pinned["hash"].lower(),
            f"block {block}'s hash on this chain is {onchain_hash}, not the bundle's {pinned['hash']}",
        )
        owners: list[str] = []
        ids: list[int] = []
        needs: list[tuple[int, str, int]] = []
        bots = []
        for i, deck in enumerate(self.b["decks"]):
            player = to_checksum_address(self.msg[f"player{i}"])
            # the operator's bot plays with the signer's address and holds no cards; the unsigned
            # is_bot flag alone never exempts a seat
            if player == to_checksum_address(self.b["result"]["signer"]):
                bots.append(i)
                continue
            _require(
                not deck.get("is_bot"),
                f"seat {i} is marked as the bot but {player} is not the operator's signer",
            )
            for card, copies in sorted(game.required_tokens(deck["cards"]).items()):
                if copies > 0:
                    owners.append(self.msg[f"player{i}"])
                    ids.append(token_id(game.name, card))
                    needs.append((i, card, copies))
        try:
            held = (
                CardToken(self.rpc, self.chain["card_token"]).balances(owners, ids, block)
                if owners
                else []
            )
        except RpcError as exc:
            if not exc.lacks_historical_state:
                raise
            raise CheckFailed(
                f"the RPC cannot serve block {block}, where ownership was pinned ({exc}); "
                "checking it needs an archive node (one that keeps the state of old blocks)"
            ) from None
        short = [
            f"seat {i} {card}: needs {n}, held {h}"
            for (i, card, n), h in zip(needs, held, strict=True)
            if h < n
        ]
        _require(
            not short,
            f"at block {block}: " + "; ".join(short[:5]) + (" ..." if len(short) > 5 else ""),
        )
        note = f" (seat {bots[0]} is the operator's bot)" if bots else ""
        return f"{len(ids)} card designs held at block {block} (one balanceOfBatch){note}"

    def transcript_hash(self) -> str:
        from engine import Transcript

        t = Transcript.from_json(self.b["transcript"])
        _require(
            keccak(t.canonical_bytes()) == from_hex(self.msg["transcriptHash"]),
            "the transcript does not hash to the signed transcriptHash",
        )
        _require(
            t.game == self.msg["game"] and t.ruleset_version == self.msg["rulesetVersion"],
            "the transcript's game or ruleset is not the signed one",
        )
        return f"{len(t.actions)} actions hash to the signed transcriptHash"

    def replay(self) -> str:
        from engine import replay

        try:
            outcome = replay(self.b["transcript"])
        except Exception as exc:  # engine errors name the action and rule
            raise CheckFailed(f"replay failed: {exc}") from exc
        _require(outcome.over, "the replayed match is not over")
        _require(
            bytes.fromhex(outcome.final_hash) == from_hex(self.msg["finalStateHash"]),
            f"the replayed final state hash {outcome.final_hash} is not the signed finalStateHash",
        )
        winner = (
            eip712.ZERO_ADDRESS if outcome.winner is None else self.msg[f"player{outcome.winner}"]
        )
        _require(
            to_checksum_address(winner) == to_checksum_address(self.msg["winner"]),
            f"the replay's winner is {winner}, the signed winner is {self.msg['winner']}",
        )
        who = (
            "a draw"
            if outcome.winner is None
            else f"seat {outcome.winner} ({to_checksum_address(winner)}) wins"
        )
        if outcome.end_reason != "rules":
            who += f" by the other seat's {outcome.end_reason}"
        return f"{outcome.actions} actions replayed: {who}, final state hash matches"


def verify_bundle(
    bundle: dict[str, Any], rpc_url: str, *, max_log_range: int = 2000
) -> list[Check]:
    """Run every check on `bundle` against the chain at `rpc_url`; one Check per name in CHECKS.
    Events are read from the blocks MatchLedger recorded for their batches; only a first-release
    MatchLedger needs a scan, in chunks of at most `max_log_range` blocks."""
    with JsonRpc(rpc_url, max_log_range=max_log_range) as rpc:
        rpc.chain_id()  # ServiceUnavailable (one line) when the RPC does not answer
        return _run_checks(bundle, rpc)


def _run_checks(bundle: dict[str, Any], rpc: JsonRpc) -> list[Check]:
    try:
        check_shape(bundle)
        verifier = _Verifier(bundle, rpc)
    except (InvalidInput, KeyError, TypeError, AttributeError, ValueError) as exc:
        reason = exc.detail if isinstance(exc, InvalidInput) else f"malformed bundle: {exc!r}"
        return [Check("bundle-format", False, reason)] + [
            Check(name, False, "not checked: malformed bundle") for name in CHECKS[1:]
        ]
    out = []
    for name in CHECKS:
        fn: Callable[[], str] = getattr(verifier, name.replace("-", "_"))
        try:
            out.append(Check(name, True, fn()))
        except CheckFailed as exc:
            out.append(Check(name, False, str(exc)))
        except ServiceUnavailable:
            raise
        except Exception as exc:  # a forged bundle may break any parser: that is a failed check
            out.append(Check(name, False, f"{type(exc).__name__}: {exc}"))
    return out
