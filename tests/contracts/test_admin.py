"""The default admin of CardToken and MatchLedger on a real Anvil (OpenZeppelin
AccessControlDefaultAdminRules): a two-step handover that waits for the delay, cancelling it,
changing the delay (which waits too), and the refusals."""

from __future__ import annotations

from typing import Any

import pytest
from web3.contract import Contract

from tests.contracts.conftest import Chain

pytestmark = pytest.mark.chain

ADMIN_ROLE = b"\x00" * 32
DELAY = 3600


@pytest.fixture(params=["CardToken", "MatchLedger"])
def delayed(request: pytest.FixtureRequest, chain: Chain) -> Contract:
    """A fresh CardToken or MatchLedger whose admin (the publisher) hands over after DELAY s."""
    args: tuple[Any, ...] = ("u/{id}",) if request.param == "CardToken" else ()
    return chain.deploy(request.param, *args, chain.publisher, DELAY)


def test_deployed_contracts_have_the_settings_delay(chain: Chain) -> None:
    for c in (chain.token, chain.ledger):
        assert c.functions.defaultAdmin().call() == c.functions.owner().call() == chain.publisher
        assert c.functions.defaultAdminDelay().call() == 0  # chain 31337's default


def test_handover_waits_for_the_delay(chain: Chain, delayed: Contract) -> None:
    p, new = chain.publisher, chain.collectors[0]
    f = delayed.functions
    assert f.defaultAdminDelay().call() == DELAY
    receipt = chain.send(delayed, "beginDefaultAdminTransfer", new, sender=p)
    (scheduled,) = chain.events(delayed, receipt, "DefaultAdminTransferScheduled")
    schedule = scheduled["acceptSchedule"]
    assert scheduled["newAdmin"] == new
    assert schedule == chain.w3.eth.get_block(receipt["blockNumber"])["timestamp"] + DELAY
    assert tuple(f.pendingDefaultAdmin().call()) == (new, schedule)
    chain.assert_reverts(
        delayed,
        "acceptDefaultAdminTransfer",
        (),
        new,
        "AccessControlEnforcedDefaultAdminDelay",
        schedule,
    )
    chain.advance(DELAY + 1)
    outsider = chain.collectors[1]
    chain.assert_reverts(
        delayed,
        "acceptDefaultAdminTransfer",
        (),
        outsider,
        "AccessControlInvalidDefaultAdmin",
        outsider,
    )
    receipt = chain.send(delayed, "acceptDefaultAdminTransfer", sender=new)
    assert chain.events(delayed, receipt, "RoleRevoked")[0]["account"] == p
    assert chain.events(delayed, receipt, "RoleGranted")[0]["account"] == new
    assert f.defaultAdmin().call() == new
    assert f.hasRole(ADMIN_ROLE, new).call() and not f.hasRole(ADMIN_ROLE, p).call()


def test_handover_can_be_cancelled(chain: Chain, delayed: Contract) -> None:
    p = chain.publisher
    chain.send(delayed, "beginDefaultAdminTransfer", chain.collectors[0], sender=p)
    receipt = chain.send(delayed, "cancelDefaultAdminTransfer", sender=p)
    assert len(chain.events(delayed, receipt, "DefaultAdminTransferCanceled")) == 1
    assert tuple(delayed.functions.pendingDefaultAdmin().call()) == ("0x" + "00" * 20, 0)
    chain.advance(DELAY + 1)
    chain.assert_reverts(
        delayed,
        "acceptDefaultAdminTransfer",
        (),
        chain.collectors[0],
        "AccessControlInvalidDefaultAdmin",
        chain.collectors[0],
    )


def test_delay_change_waits_and_can_be_rolled_back(chain: Chain, delayed: Contract) -> None:
    p, f = chain.publisher, delayed.functions
    longer = 10 * 24 * 3600
    wait = f.defaultAdminDelayIncreaseWait().call()
    assert wait == 5 * 24 * 3600  # OpenZeppelin's default cap on how long an increase waits
    receipt = chain.send(delayed, "changeDefaultAdminDelay", longer, sender=p)
    (change,) = chain.events(delayed, receipt, "DefaultAdminDelayChangeScheduled")
    assert change["newDelay"] == longer
    assert tuple(f.pendingDefaultAdminDelay().call()) == (longer, change["effectSchedule"])
    receipt = chain.send(delayed, "rollbackDefaultAdminDelay", sender=p)
    assert len(chain.events(delayed, receipt, "DefaultAdminDelayChangeCanceled")) == 1
    assert tuple(f.pendingDefaultAdminDelay().call()) == (0, 0)
    chain.send(delayed, "changeDefaultAdminDelay", longer, sender=p)
    chain.advance(wait - 10)
    assert f.defaultAdminDelay().call() == DELAY
    chain.advance(20)
    assert f.defaultAdminDelay().call() == longer


def test_admin_role_only_through_the_rules(chain: Chain, delayed: Contract) -> None:
    p, other = chain.publisher, chain.collectors[0]
    for fn in ("grantRole", "revokeRole"):
        chain.assert_reverts(
            delayed, fn, (ADMIN_ROLE, other if fn == "grantRole" else p), p,
            "AccessControlEnforcedDefaultAdminRules",
        )  # fmt: skip
    chain.assert_reverts(
        delayed,
        "beginDefaultAdminTransfer",
        (other,),
        other,
        "AccessControlUnauthorizedAccount",
        other,
        ADMIN_ROLE,
    )
    # the admin may renounce, but only through a scheduled transfer to the zero address
    chain.assert_reverts(
        delayed,
        "renounceRole",
        (ADMIN_ROLE, p),
        p,
        "AccessControlEnforcedDefaultAdminDelay",
        0,
    )
