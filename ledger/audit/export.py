"""Bundle export: the self-contained bundle of an anchored match, read from the operator's
database (the one part of audit that reads it; verification never does)."""

from __future__ import annotations

from typing import Any

from sqlmodel import Session

from ledger.anchoring import repository as anchoring
from ledger.db.models import MatchResult
from ledger.db.models.anchoring import Batch
from ledger.errors import Conflict, NotFound
from ledger.matches import repository as matches
from ledger.protocol import eip712
from ledger.protocol.bundle import BUNDLE_FORMAT, bundle_format_of
from ledger.results import repository as results


def _message(result: MatchResult) -> dict[str, Any]:
    return eip712.MatchResult.from_record(result).as_message()


def batch_listing(session: Session, batch_id: int) -> dict[str, Any]:
    """A batch and its full leaf list (each leaf's MatchResult, from which its digest and the
    root are recomputed): what an auditor needs to see that no other leaf claims a match."""
    batch = anchoring.find_batch(session, batch_id)
    if batch is None:
        raise NotFound(f"no batch {batch_id}")
    return {
        **_batch_fields(batch),
        "status": batch.status,
        "chain_id": batch.chain_id,
        "match_ledger": batch.ledger_address,
        "leaves": [
            {"tree_index": proof.tree_index, "digest": result.digest, "result": _message(result)}
            for proof, result in anchoring.batch_leaves(session, batch_id)
        ],
    }


#: the columns of a batch a bundle carries under their own names (after its id, `batch_id`)
_BATCH_COLUMNS = (
    "root",
    "count",
    "prev_batch_hash",
    "batch_hash",
    "tx_hash",
    "block_number",
    "block_hash",
)


def _batch_fields(batch: Batch) -> dict[str, Any]:
    return {"batch_id": batch.id, **{name: getattr(batch, name) for name in _BATCH_COLUMNS}}


def export_bundle(
    session: Session,
    match_id: str,
    *,
    card_token: str,
    deployment_block: int,
    leaf_lists: dict[int, list[dict[str, Any]]] | None = None,
) -> dict[str, Any]:
    """The bundle of a match whose result is anchored and confirmed.

    NotFound if there is no such match or result; Conflict while the result is not yet anchored.
    `leaf_lists` (batch id -> leaf list) keeps each batch's leaf list for the next bundles of
    the same batch when many are exported in one go (the list is read once per batch, not once
    per bundle).
    """
    match = matches.get_match(session, match_id)
    if match is None:
        raise NotFound(f"no match {match_id!r}")
    seats = matches.seats(session, match_id)
    result = results.result_of(session, match_id)
    if result is None or result.id is None:
        raise NotFound(f"match {match_id} has no result yet", reason="no-result-yet")
    found = anchoring.confirmed_proof(session, result.id)
    if found is None:
        status = anchoring.proof_status(session, result.id) or "pending"
        raise Conflict(
            f"the result of match {match_id} is not anchored and confirmed yet (batch status: {status})",
            reason="not-anchored-yet",
            batch_status=status,
        )
    proof, batch = found
    if len(seats) != 2:
        raise Conflict(f"match {match_id} does not have two seats")
    # a result keeps the format it was signed in: its transcript's
    bundle_format = bundle_format_of(result.transcript.get("format"))
    signed = bundle_format != BUNDLE_FORMAT
    bundle = {
        "format": bundle_format,
        "chain": {
            "chain_id": result.chain_id,
            "match_ledger": result.verifying_contract,
            "card_token": card_token,
            "deployment_block": deployment_block,
        },
        "result": {
            "typed_data": eip712.result_typed_data(
                eip712.MatchResult.from_record(result), result.chain_id, result.verifying_contract
            ),
            "digest": result.digest,
            "signature": result.signature,
            "signer": result.signer,
            "end_reason": result.end_reason,
        },
        "transcript": result.transcript,
        "decks": [
            {
                "seat": s.seat,
                "player": s.address,
                "is_bot": bool(s.is_bot),
                "cards": dict(s.cards),
                "deck_hash": s.deck_hash,
            }
            for s in seats
        ],
        "seeds": {
            "operator": {"commit": match.operator_commit, "reveal": match.operator_secret},
            "players": [{"commit": s.seed_commit, "reveal": s.seed_secret} for s in seats],
            "seed": match.seed,
        },
        "ownership_block": {"number": match.ownership_block, "hash": match.ownership_block_hash},
        "anchor": {
            **_batch_fields(batch),
            "tree_index": proof.tree_index,
            "proof": list(proof.proof),
        },
    }
    if signed:
        bundle["acknowledgements"] = [
            {"seat": s.seat, "signature": s.end_acknowledgement}
            for s in seats
            if s.end_acknowledgement is not None
        ]
        leaves = None if leaf_lists is None else leaf_lists.get(batch.id)
        if leaves is None:
            leaves = [
                {"tree_index": proof.tree_index, "result": _message(result)}
                for proof, result in anchoring.batch_leaves(session, batch.id)
            ]
            if leaf_lists is not None:
                leaf_lists[batch.id] = leaves
        bundle["batch_leaves"] = leaves
    return bundle


def export_from_settings(session: Session, match_id: str) -> dict[str, Any]:
    """The bundle of a match, with contract addresses from the configured deployment file."""
    from ledger.chain.deployment import load_addresses
    from ledger.settings import get_settings

    addresses = load_addresses(get_settings().resolved_deployment_file)
    return export_bundle(
        session,
        match_id,
        card_token=addresses.card_token,
        deployment_block=addresses.deployment_block,
    )
