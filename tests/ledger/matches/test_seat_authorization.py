"""`check_seat_authorization` for contract-wallet seats on a real Anvil: an opaque signature is
accepted when the seat's contract answers the EIP-1271 magic value and refused (InvalidInput
naming `authorization`) when it answers otherwise; an owner-checking wallet accepts its
owner's signature only."""

from __future__ import annotations

import secrets
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from eth_account import Account

from ledger.chain.deployment import Deployment
from ledger.db import make_engine
from ledger.db.models import Match, MatchSeat
from ledger.devstack.anvil import AnvilNode
from ledger.errors import InvalidInput
from ledger.matches.signing import SeatGrant, check_seat_authorization
from ledger.protocol import eip712
from ledger.protocol.hexcodec import to_hex
from ledger.protocol.signatures import sign_digest
from ledger.protocol.signedmoves import SeatAuthorization
from ledger.runtime.context import Context
from tests.api.conftest import make_settings
from tests.api.test_auth import ALWAYS_VALID_1271, NEVER_VALID_1271
from tests.contracts.conftest import load_test_artifact
from tests.fixtures.chain import account_with_code

pytestmark = pytest.mark.chain

#: what a contract wallet may send: opaque bytes, not a 65-byte ECDSA signature
OPAQUE_SIGNATURE = "0x" + "c0de" * 50


@pytest.fixture
def ctx(evm_snapshot: AnvilNode, deployment: Deployment, tmp_path: Path) -> Iterator[Context]:
    """The services' Context on the test Anvil (chain client from the deployment file)."""
    deployment_file = tmp_path / "deployment.json"
    deployment.save(deployment_file)
    url = f"sqlite:///{tmp_path / 'ledger.db'}"
    engine = make_engine(url)
    context = Context.create(make_settings(evm_snapshot, url, deployment_file), engine)
    try:
        yield context
    finally:
        context.chain.close()
        engine.dispose()


def _seat(address: str) -> tuple[Match, MatchSeat]:
    match = Match(
        id="0x" + secrets.token_hex(32),
        game="metax",
        ruleset_version="2018.06-2",
        catalogue_hash="00" * 32,
        created_by=address,
        operator_commit="0x" + "00" * 32,
        operator_secret="0x" + "00" * 32,
    )
    seat = MatchSeat(
        match_id=match.id, seat=0, address=address, deck_hash="0x" + "ab" * 32, cards={}
    )
    return match, seat


COMMIT = "0x" + "cd" * 32


def _grant(ctx: Context, signature: str) -> SeatGrant:
    return SeatGrant(
        session_key=Account.create().address,
        expiry=int(time.time()) + ctx.settings.turn_timeout_seconds + 3600,
        signature=signature,
    )


def _digest(ctx: Context, match: Match, seat: MatchSeat, grant: SeatGrant) -> bytes:
    """The EIP-712 digest of the SeatAuthorization `grant` stands for (what a wallet signs)."""
    struct = SeatAuthorization(
        match_id=match.id,
        game=match.game,
        ruleset_version=match.ruleset_version,
        seat=seat.seat,
        deck_hash=seat.deck_hash,
        seed_commit=COMMIT,
        session_key=grant.session_key,
        expiry=grant.expiry,
    )
    return eip712.digest(struct, ctx.chain_id, ctx.chain.addresses.match_ledger)


def test_a_contract_wallet_that_answers_the_magic_value_authorizes_its_seat(
    ctx: Context, evm_snapshot: AnvilNode
) -> None:
    match, seat = _seat(account_with_code(evm_snapshot, ALWAYS_VALID_1271))
    check_seat_authorization(ctx, match, seat, COMMIT, _grant(ctx, OPAQUE_SIGNATURE))


@pytest.mark.parametrize("code", [NEVER_VALID_1271, "0x60006000fd"], ids=["zeros", "revert"])
def test_a_contract_wallet_that_answers_otherwise_is_refused_naming_the_field(
    ctx: Context, evm_snapshot: AnvilNode, code: str
) -> None:
    match, seat = _seat(account_with_code(evm_snapshot, code))
    grant = _grant(ctx, OPAQUE_SIGNATURE)
    with pytest.raises(InvalidInput) as refused:
        check_seat_authorization(ctx, match, seat, COMMIT, grant)
    assert refused.value.extra["field"] == "authorization"
    assert refused.value.extra["digest"] == to_hex(_digest(ctx, match, seat, grant))
    assert seat.address in refused.value.detail


def test_an_address_without_code_is_refused_an_opaque_signature(ctx: Context) -> None:
    match, seat = _seat(Account.create().address)
    with pytest.raises(InvalidInput) as refused:
        check_seat_authorization(ctx, match, seat, COMMIT, _grant(ctx, OPAQUE_SIGNATURE))
    assert refused.value.extra["field"] == "authorization"


def test_an_owner_checking_wallet_accepts_its_owners_signature_only(
    ctx: Context, evm_snapshot: AnvilNode
) -> None:
    owner, stranger = Account.create(), Account.create()
    w3 = evm_snapshot.w3
    artifact = load_test_artifact("ERC1271WalletMock")
    factory = w3.eth.contract(abi=artifact.abi, bytecode=artifact.bytecode)  # type: ignore[call-overload]
    funder = w3.eth.accounts[0]
    receipt = w3.eth.wait_for_transaction_receipt(
        factory.constructor(owner.address).transact({"from": funder, "gas": 3_000_000})
    )
    match, seat = _seat(str(receipt["contractAddress"]))
    grant = _grant(ctx, "0x")
    digest = _digest(ctx, match, seat, grant)

    by_owner = SeatGrant(grant.session_key, grant.expiry, to_hex(sign_digest(owner.key, digest)))
    check_seat_authorization(ctx, match, seat, COMMIT, by_owner)

    by_stranger = SeatGrant(
        grant.session_key, grant.expiry, to_hex(sign_digest(stranger.key, digest))
    )
    with pytest.raises(InvalidInput) as refused:
        check_seat_authorization(ctx, match, seat, COMMIT, by_stranger)
    assert refused.value.extra["field"] == "authorization"
