"""Bundle export from the operator's database (SQLite and PostgreSQL)."""

from __future__ import annotations

import pytest
from sqlalchemy import Engine

from ledger.anchoring.service import AnchorConfig, Anchorer
from ledger.audit.export import export_bundle
from ledger.audit.verify import verify_bundle
from ledger.chain.deployment import Deployment
from ledger.chain.transport import JsonRpc
from ledger.db import unit_of_work
from ledger.devstack.anvil import AnvilNode
from ledger.errors import Conflict, NotFound
from ledger.protocol.bundle import BUNDLE_FORMAT
from tests.ledger.anchor_support import ANCHORER_KEY, store_played_match

pytestmark = pytest.mark.chain


def test_bundle_only_once_confirmed_and_then_self_contained(
    engine: Engine, evm_snapshot: AnvilNode, deployment: Deployment
) -> None:
    match_id = store_played_match(engine, evm_snapshot, deployment)
    kw = {"card_token": deployment.card_token, "deployment_block": deployment.deployment_block}
    with unit_of_work(engine) as s, pytest.raises(NotFound):
        export_bundle(s, "0x" + "ab" * 32, **kw)  # type: ignore[arg-type]
    with (
        unit_of_work(engine) as s,
        pytest.raises(Conflict, match="not anchored and confirmed yet") as info,
    ):
        export_bundle(s, match_id, **kw)  # type: ignore[arg-type]
    assert info.value.extra["batch_status"] == "pending"

    Anchorer(
        engine, JsonRpc(evm_snapshot.rpc_url), deployment.match_ledger, ANCHORER_KEY, AnchorConfig()
    ).run_until_idle(force=True)
    with unit_of_work(engine) as s:
        bundle = export_bundle(s, match_id, **kw)  # type: ignore[arg-type]
    assert bundle["format"] == BUNDLE_FORMAT
    assert set(bundle) == {
        "format",
        "chain",
        "result",
        "transcript",
        "decks",
        "seeds",
        "ownership_block",
        "anchor",
    }
    assert bundle["chain"] == {
        "chain_id": 31337,
        "match_ledger": deployment.match_ledger,
        "card_token": deployment.card_token,
        "deployment_block": deployment.deployment_block,
    }
    assert (
        bundle["anchor"]["batch_id"] == 1
        and bundle["anchor"]["count"] == 1
        and bundle["anchor"]["proof"] == []
    )
    assert bundle["result"]["typed_data"]["message"]["matchId"] == match_id
    assert all(c.ok for c in verify_bundle(bundle, evm_snapshot.rpc_url))
