"""Auditor verification of a match bundle, using only the bundle and an RPC URL.

No database, no API: every fact comes from the bundle and is checked against the chain or
recomputed (digest, Merkle proof, batch hash chain, seed commitments, deck hashes, transcript
hash, the replayed outcome; for a signed transcript, the seat authorizations, every player's
move signature, the entry hash chain, the receipts (format 2), the end acknowledgements and the
batch's leaf list). Each check is named; `verify_bundle` returns them all.

The engine replays a transcript once: `replay` reports its outcome, and `player-signatures`
reads what that one replay saw before each action (the seat to move, and the action each
signed move resolves to there).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from ledger.audit.batches import BatchMemo, LeafList
from ledger.audit.checks import (
    CHECKS,
    END_REASONS,
    UNSIGNED,
    Check,
    CheckFailed,
    Informational,
)
from ledger.audit.checks import require as _require
from ledger.audit.signedchecks import Replayed, SignedTranscriptChecks, resolved_move
from ledger.chain.contracts import AnchoredBatch, CardToken, MatchLedger
from ledger.chain.transport import JsonRpc, RpcError
from ledger.errors import InvalidInput, ServiceUnavailable
from ledger.protocol import eip712, merkle
from ledger.protocol.bundle import bundle_format_of, check_shape
from ledger.protocol.decks import deck_hash
from ledger.protocol.hexcodec import checksum_address as to_checksum_address
from ledger.protocol.hexcodec import from_hex, to_hex
from ledger.protocol.merkle import ZERO32, batch_hash
from ledger.protocol.seeds import commit_of, derive_seed, seed_commitments
from ledger.protocol.signatures import recover_digest_signer
from ledger.protocol.signedmoves import (
    SIGNED_TRANSCRIPT_FORMATS,
    TRANSCRIPT_FORMAT_2,
    engine_transcript,
    transcript_hash,
)
from ledger.protocol.tokenids import token_id

if TYPE_CHECKING:
    from engine import GameState, Transcript

_T = TypeVar("_T")

__all__ = ["CHECKS", "END_REASONS", "UNSIGNED", "Check", "run_checks", "verify_bundle"]


class BundleVerifier(SignedTranscriptChecks):
    """The checks of one bundle against the chain (`verifier_of`, `checks_of`)."""

    def __init__(
        self,
        bundle: dict[str, Any],
        rpc: JsonRpc,
        leaves: list[dict[str, Any]] | None = None,
        batches: BatchMemo | None = None,
    ) -> None:
        self.b = bundle
        self.batches = batches
        self.rpc = rpc
        self.t: dict[str, Any] = bundle["transcript"]
        self.signed = self.t.get("format") in SIGNED_TRANSCRIPT_FORMATS
        #: format 2 carries the operator's receipt of every entry
        self.receipted = self.t.get("format") == TRANSCRIPT_FORMAT_2
        self._replayed: Replayed | None = None
        self._parsed: Transcript | None = None
        self._seat_digests: dict[int, bytes] = {}
        self.engine_t = engine_transcript(self.t)
        self.leaves = leaves if leaves is not None else bundle.get("batch_leaves")
        self.typed = bundle["result"]["typed_data"]
        self.msg: dict[str, Any] = self.typed["message"]
        self.domain: dict[str, Any] = self.typed["domain"]
        self.chain: dict[str, Any] = bundle["chain"]
        self.anchor: dict[str, Any] = bundle["anchor"]
        self.ledger = MatchLedger(rpc, self.chain["match_ledger"])
        self._digest: bytes | None = None
        self._event: AnchoredBatch | None = None

    # helpers
    def _read(self, key: tuple[Any, ...], read: Callable[[], _T]) -> _T:
        """A decoded chain read, remembered across the bundles of a bulk audit (`batches`): the
        transport reads at one pinned head, so the same read has the same answer."""
        if self.batches is None:
            return read()
        return self.batches.remembered((self.chain["match_ledger"].lower(), *key), read)

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
            batch_id = int(self.anchor["batch_id"])
            hint_block = None if hint is None else int(hint)
            from_block = int(self.chain["deployment_block"])
            found = self._read(
                ("anchored_batch", batch_id, hint_block, from_block),
                lambda: self.ledger.anchored_batch(
                    batch_id, hint_block=hint_block, from_block=from_block
                ),
            )
            if found is None:
                raise CheckFailed(
                    f"no BatchAnchored event for batch {self.anchor['batch_id']} on-chain"
                )
            self._event = found
        return self._event

    def reads_ahead(self) -> list[tuple[str, tuple[Any, ...]]]:
        """The chain read of this bundle alone that a bulk audit asks ahead, in one batch with
        its neighbours' (`SnapshotRpc.prefetch`): `merkle_proof`'s verifyResult call (none for a
        bundle it cannot be made for: its checks report why)."""
        try:
            proof = [from_hex(p) for p in self.anchor["proof"]]
            read = self.ledger.verify_result_read(
                int(self.anchor["batch_id"]), self.digest(), proof
            )
        except Exception:  # a forged bundle may break any parser: its checks report it
            return []
        return [read]

    # checks
    def bundle_format(self) -> str:
        expected = bundle_format_of(self.t.get("format"))
        _require(
            self.b.get("format") == expected,
            f"format is {self.b.get('format')!r}, expected {expected!r} for a "
            f"{self.t.get('format')} transcript",
        )
        _require(self.typed.get("primaryType") == "MatchResult", "primaryType is not MatchResult")
        _require(
            self.typed.get("types", {}).get("MatchResult") == eip712.MATCH_RESULT_FIELDS,
            "the MatchResult type differs from MetaLedger's",
        )
        return expected

    def chain_id(self) -> str:
        actual = self._read(("chain_id",), self.rpc.chain_id)
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
            eip712.RESULT_DOMAIN_NAME,
            self._read(("chain_id",), self.rpc.chain_id),
            self.chain["match_ledger"],
        )
        given = {
            **self.domain,
            "verifyingContract": to_checksum_address(self.domain["verifyingContract"]),
        }
        _require(given == expected, f"signed domain {self.domain} is not MatchLedger's {expected}")
        onchain = self._read(("eip712_domain",), self.ledger.eip712_domain)
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
        count, index = int(self.anchor["count"]), int(self.anchor["tree_index"])
        _require(
            count - 1 <= index <= 2 * count - 2 and len(proof) == (index + 1).bit_length() - 1,
            f"tree_index {index} is no leaf of a {count}-leaf tree at the proof's depth {len(proof)}",
        )
        onchain = self._read(("batch_root", batch_id), lambda: self.ledger.batch_root(batch_id))
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
            from_block = int(self.chain["deployment_block"])
            prev = self._read(
                ("anchored_batch", k - 1, from_block, e.block_number),
                lambda: self.ledger.anchored_batch(
                    k - 1, from_block=from_block, to_block=e.block_number
                ),
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
        latest = self._read(("latest_batch_id", pin), lambda: self.ledger.latest_batch_id(pin))
        _require(k <= latest, f"batch {k} is beyond the ledger's latest batch {latest}")
        if k == latest:
            _require(
                e.batch_hash
                == self._read(("head_batch_hash", pin), lambda: self.ledger.head_batch_hash(pin)),
                "the latest batch's hash is not headBatchHash()",
            )
        return f"batch {k} in block {e.block_number} {link}; the ledger's head is batch {latest}"

    def signer_registered(self) -> str:
        block = self.event().block_number
        signer = self.b["result"]["signer"]
        _require(
            self._read(
                ("was_signer_at", signer.lower(), block),
                lambda: self.ledger.was_signer_at(signer, block),
            ),
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
            int(self.engine_t["seed"], 16) == seed and int(seeds["seed"], 16) == seed,
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
                actual == self.msg[f"deck{i}"].lower() and actual == deck["deck_hash"].lower(),
                f"seat {i}'s deck list does not hash to the signed deck{i} (and its deck_hash)",
            )
            _require(
                dict(deck["cards"]) == dict(self.engine_t["decks"][i]),
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
                _require(
                    deck.get("is_bot") is True,
                    f"seat {i} is the signer's but not marked as the bot",
                )
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

    def _engine_transcript(self) -> Transcript:
        """The engine transcript, read once for the checks that read it."""
        if self._parsed is None:
            from engine import Transcript

            self._parsed = Transcript.from_json(self.engine_t)
        return self._parsed

    def transcript_hash(self) -> str:
        t = self._engine_transcript()
        _require(
            transcript_hash(self.t) == from_hex(self.msg["transcriptHash"]),
            "the transcript does not hash to the signed transcriptHash",
        )
        _require(
            t.game == self.msg["game"] and t.ruleset_version == self.msg["rulesetVersion"],
            "the transcript's game or ruleset is not the signed one",
        )
        if self.signed:
            _require(
                self.t["match_id"].lower() == self.msg["matchId"].lower(),
                "the signed transcript is for another match than the signed matchId",
            )
            return (
                f"{len(t.actions)} actions and {len(self.t['entries'])} signed entries hash to "
                "the signed transcriptHash"
            )
        return f"{len(t.actions)} actions hash to the signed transcriptHash"

    def _replay(self) -> Replayed:
        """The one replay of the transcript (for a signed one, seeing every action's state)."""
        if self._replayed is None:
            from engine import replay

            seen = Replayed()
            entries: list[dict[str, Any]] = self.t["entries"] if self.signed else []

            def before_each(k: int, state: GameState) -> None:
                seen.movers.append(state.current_player)
                if k < len(entries) and not entries[k]["by_bot"]:
                    meant = resolved_move(state, entries[k])
                    if meant is not None:
                        seen.meant[k] = meant

            try:
                seen.outcome = replay(
                    self._engine_transcript(), before_each=before_each if entries else None
                )
            except Exception as exc:  # engine errors name the action and rule
                seen.error = exc
            self._replayed = seen
        return self._replayed

    def replay(self) -> str:
        replayed = self._replay()
        if replayed.error is not None:
            raise CheckFailed(f"replay failed: {replayed.error}") from replayed.error
        outcome = replayed.outcome
        assert outcome is not None
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
        if outcome.end_reason in ("resign", "timeout"):
            who += f" by the other seat's {outcome.end_reason}"
        elif outcome.end_reason != "rules":
            who += f" ({outcome.end_reason})"
        _require(
            self.b["result"]["end_reason"] == END_REASONS[outcome.end_reason],
            f"the bundle's end_reason {self.b['result']['end_reason']!r} is not the replay's "
            f"{END_REASONS[outcome.end_reason]!r}",
        )
        return f"{outcome.actions} actions replayed: {who}, final state hash matches"

    def batch_leaves(self) -> str:
        if self.leaves is None:
            raise Informational(
                "not checked: no leaf list (a format-1 bundle; pass --api URL to read GET /batches/{id})"
            )
        chain_id, contract = int(self.domain["chainId"]), self.domain["verifyingContract"]
        if self.batches is not None:
            leaf_list = self.batches.leaf_list(self.leaves, chain_id, contract)
        else:
            leaf_list = LeafList.of(self.leaves, chain_id, contract)
        digests = leaf_list.digests
        mine = self.digest()
        match_id = self.msg["matchId"].lower()
        for digest in leaf_list.by_match.get(match_id, []):
            _require(
                digest == mine,
                f"another result for match {match_id} is in batch {self.anchor['batch_id']}",
            )
        _require(leaf_list.counts[mine] == 1, "the result is not exactly once in the leaf list")
        _require(
            len(digests) == int(self.anchor["count"]), "the leaf list is not the batch's count"
        )
        batch_id = int(self.anchor["batch_id"])
        _require(
            leaf_list.root
            == self._read(("batch_root", batch_id), lambda: self.ledger.batch_root(batch_id)),
            f"the leaf list does not recompute batch {batch_id}'s on-chain root",
        )
        _require(
            leaf_list.tree_index[leaf_list.positions[mine]] == int(self.anchor["tree_index"]),
            "the bundle's tree_index is not the result's place in the tree",
        )
        return (
            f"{len(digests)} leaves recompute batch {batch_id}'s on-chain root; no other leaf "
            f"carries match {match_id}"
        )


def verify_bundle(
    bundle: dict[str, Any],
    rpc_url: str,
    *,
    max_log_range: int = 2000,
    leaves: list[dict[str, Any]] | None = None,
) -> list[Check]:
    """Run every check on `bundle` against the chain at `rpc_url`; one Check per name in CHECKS.
    Events are read from the blocks MatchLedger recorded for their batches; only a first-release
    MatchLedger needs a scan, in chunks of at most `max_log_range` blocks. `leaves` is the
    batch's leaf list when it comes from elsewhere than the bundle (`GET /batches/{id}`)."""
    with JsonRpc(rpc_url, max_log_range=max_log_range) as rpc:
        rpc.chain_id()  # ServiceUnavailable (one line) when the RPC does not answer
        return run_checks(bundle, rpc, leaves)


def run_checks(
    bundle: dict[str, Any],
    rpc: JsonRpc,
    leaves: list[dict[str, Any]] | None = None,
    batches: BatchMemo | None = None,
    shape_checked: bool = False,
) -> list[Check]:
    """Every check on `bundle` over an open (possibly shared) transport, one per CHECKS name
    (`batches`: a bulk audit's memo of what the bundles of a batch share; `shape_checked`: the
    bundle comes from `load_bundle`, which checked its shape)."""
    made = verifier_of(bundle, rpc, leaves, batches, shape_checked)
    return made if isinstance(made, list) else checks_of(made)


def verifier_of(
    bundle: dict[str, Any],
    rpc: JsonRpc,
    leaves: list[dict[str, Any]] | None = None,
    batches: BatchMemo | None = None,
    shape_checked: bool = False,
) -> BundleVerifier | list[Check]:
    """The verifier of `bundle` (as `run_checks` takes its arguments), or, for a bundle it
    cannot be made for, every check failed with why."""
    try:
        if not shape_checked:
            check_shape(bundle)
        return BundleVerifier(bundle, rpc, leaves, batches)
    except (InvalidInput, KeyError, TypeError, AttributeError, ValueError) as exc:
        reason = exc.detail if isinstance(exc, InvalidInput) else f"malformed bundle: {exc!r}"
        return [Check("bundle-format", False, reason)] + [
            Check(name, False, "not checked: malformed bundle") for name in CHECKS[1:]
        ]


def checks_of(verifier: BundleVerifier) -> list[Check]:
    """Every check of a bundle's verifier, one per CHECKS name, in that order."""
    out = []
    for name in CHECKS:
        fn: Callable[[], str] = getattr(verifier, name.replace("-", "_"))
        try:
            out.append(Check(name, True, fn()))
        except Informational as exc:
            out.append(Check(name, True, str(exc), info=True))
        except CheckFailed as exc:
            out.append(Check(name, False, str(exc)))
        except ServiceUnavailable:
            raise
        except Exception as exc:  # a forged bundle may break any parser: that is a failed check
            out.append(Check(name, False, f"{type(exc).__name__}: {exc}"))
    return out
