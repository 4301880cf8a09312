"""Helpers for the contract tests: send transactions, decode custom-error reverts, read events,
deploy the test-only mocks (tests/contracts/artifacts/, built by `metaledger contracts build`)."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from eth_abi import decode
from eth_account import Account
from eth_hash.auto import keccak
from web3.contract import Contract
from web3.logs import DISCARD

from ledger.chain.artifacts import Artifact, canonical_type, load_artifact, parse_artifact
from ledger.chain.deployment import Deployment
from ledger.devstack.anvil import AnvilNode
from ledger.devstack.deploy import DEMO_EDITION_SIZE, contract
from ledger.keys.roles import Role
from ledger.settings import ANVIL_DEV_KEYS

#: Anvil dev keys #5..#9 are the collectors of these tests (#0..#2 are publisher, signer, anchorer).
COLLECTOR_KEYS = ANVIL_DEV_KEYS[5:10]
GAS = 3_000_000
#: The test-only contracts' artifacts (never shipped in ledger/chain/artifacts/).
TEST_ARTIFACTS = Path(__file__).parent / "artifacts"


def load_test_artifact(name: str) -> Artifact:
    """The artifact of a test-only contract, e.g. "ERC1271WalletMock"."""
    return parse_artifact((TEST_ARTIFACTS / f"{name}.json").read_text())


def _norm(value: Any) -> Any:
    if isinstance(value, str):
        return value.lower()
    if isinstance(value, (list, tuple)):
        return tuple(_norm(v) for v in value)
    return value


@dataclass
class Reverted:
    """A decoded revert: the custom error's name and arguments."""

    name: str
    args: tuple[Any, ...]


class Chain:
    """Transactions and calls against the session Anvil, with custom-error decoding."""

    def __init__(self, anvil: AnvilNode, deployment: Deployment) -> None:
        self.anvil = anvil
        self.w3 = anvil.w3
        self.deployment = deployment
        self.token = contract(self.w3, deployment, "CardToken")
        self.ledger = contract(self.w3, deployment, "MatchLedger")
        self.exchange = contract(self.w3, deployment, "CardExchange")
        self.publisher = Account.from_key(Role.PUBLISHER.dev_key).address
        self.signer_key = Role.RESULT_SIGNER.dev_key
        self.signer = Account.from_key(self.signer_key).address
        self.anchorer = Account.from_key(Role.ANCHORER.dev_key).address
        self.collectors = [Account.from_key(k).address for k in COLLECTOR_KEYS]
        self._errors: dict[bytes, tuple[str, list[str]]] = {}
        for c in (self.token, self.ledger, self.exchange):
            self.register_errors(c)

    def register_errors(self, c: Contract) -> None:
        """Learn the custom errors of a contract's ABI."""
        for item in c.abi:
            if item["type"] == "error":
                types = [canonical_type(i) for i in item["inputs"]]
                selector = keccak(f"{item['name']}({','.join(types)})".encode())[:4]
                self._errors[selector] = (item["name"], types)

    def _tx(
        self, c: Contract, fn: str, args: tuple[Any, ...], sender: str, value: int
    ) -> dict[str, Any]:
        return {
            "from": sender,
            "to": c.address,
            "data": c.encode_abi(fn, list(args)),
            "value": value,
        }

    def send(self, c: Contract, fn: str, *args: Any, sender: str, value: int = 0) -> Any:
        """Send a transaction from an unlocked Anvil account; asserts it succeeded; returns the receipt."""
        tx = self._tx(c, fn, args, sender, value)
        tx_hash = self.w3.eth.send_transaction({**tx, "gas": GAS})  # type: ignore[typeddict-item]
        receipt = self.w3.eth.wait_for_transaction_receipt(tx_hash)
        if receipt["status"] != 1:
            raise AssertionError(
                f"{fn} reverted: {self.revert_of(c, fn, *args, sender=sender, value=value)}"
            )
        return receipt

    def send_expect_failure(
        self, c: Contract, fn: str, *args: Any, sender: str, value: int = 0
    ) -> Any:
        """Send a transaction that must revert on-chain; returns its receipt (status 0)."""
        tx = self._tx(c, fn, args, sender, value)
        receipt = self.w3.eth.wait_for_transaction_receipt(
            self.w3.eth.send_transaction({**tx, "gas": GAS})  # type: ignore[typeddict-item]
        )
        assert receipt["status"] == 0, f"{fn} unexpectedly succeeded"
        return receipt

    def revert_of(
        self, c: Contract, fn: str, *args: Any, sender: str, value: int = 0
    ) -> Reverted | None:
        """eth_call the function; the decoded custom error if it reverts, else None."""
        tx = self._tx(c, fn, args, sender, value)
        tx["value"] = hex(value)
        reply = self.raw_call(tx)
        if "error" not in reply:
            return None
        data = bytes.fromhex(str(reply["error"].get("data") or "0x").removeprefix("0x"))
        if data[:4] in self._errors:
            name, types = self._errors[data[:4]]
            return Reverted(name, tuple(decode(types, data[4:])))
        return Reverted(f"<unknown {data.hex() or reply['error'].get('message')}>", ())

    def raw_call(self, tx: dict[str, Any]) -> dict[str, Any]:
        """The node's whole JSON-RPC reply to eth_call(tx) (with "error" and its data on a revert)."""
        body = json.dumps(
            {"jsonrpc": "2.0", "id": 1, "method": "eth_call", "params": [tx, "latest"]}
        ).encode()
        request = urllib.request.Request(
            self.anvil.rpc_url, body, {"Content-Type": "application/json"}
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            reply: dict[str, Any] = json.loads(response.read())
        return reply

    def assert_reverts(
        self,
        c: Contract,
        fn: str,
        args: tuple[Any, ...],
        sender: str,
        error: str,
        *error_args: Any,
        value: int = 0,
    ) -> None:
        """Assert the call reverts with custom error `error(*error_args)`, and that the real transaction fails."""
        got = self.revert_of(c, fn, *args, sender=sender, value=value)
        assert got is not None, f"{fn} did not revert"
        assert got.name == error, f"{fn} reverted with {got.name}{got.args}, expected {error}"
        assert _norm(got.args) == _norm(error_args), f"{error} args {got.args} != {error_args}"
        self.send_expect_failure(c, fn, *args, sender=sender, value=value)

    @staticmethod
    def events(c: Contract, receipt: Any, name: str) -> list[Any]:
        """The decoded `name` events of contract `c` in a receipt."""
        return [e["args"] for e in c.events[name]().process_receipt(receipt, errors=DISCARD)]

    def editions(self, ids: Iterable[int], size: int = DEMO_EDITION_SIZE) -> None:
        """Give every id without an edition size one (as the publisher), so it can be minted."""
        missing = [i for i in ids if self.token.functions.maxSupply(i).call() == 0]
        if missing:
            self.send(
                self.token,
                "setMaxSupplyBatch",
                missing,
                [size] * len(missing),
                sender=self.publisher,
            )

    def deploy(self, name: str, *args: Any, sender: str | None = None) -> Contract:
        """Deploy a test-only mock or a product contract from an unlocked account."""
        is_mock = (TEST_ARTIFACTS / f"{name}.json").is_file()
        artifact = load_test_artifact(name) if is_mock else load_artifact(name)
        factory = self.w3.eth.contract(abi=artifact.abi, bytecode=artifact.bytecode)  # type: ignore[call-overload]
        tx_hash = factory.constructor(*args).transact(
            {"from": sender or self.publisher, "gas": 6_000_000}
        )
        address = self.w3.eth.wait_for_transaction_receipt(tx_hash)["contractAddress"]
        deployed = self.w3.eth.contract(address=address, abi=artifact.abi)  # type: ignore[call-overload]
        self.register_errors(deployed)
        return deployed

    def now(self) -> int:
        """The latest block's timestamp."""
        return int(self.w3.eth.get_block("latest")["timestamp"])

    def advance(self, seconds: int) -> None:
        """Move the chain's clock forward and mine a block."""
        self.anvil.rpc("evm_increaseTime", seconds)
        self.anvil.mine()


@pytest.fixture(scope="session")
def chain_session(anvil: AnvilNode, deployment: Deployment) -> Chain:
    """The Chain helper (session-scoped: cheap to share)."""
    return Chain(anvil, deployment)


@pytest.fixture
def chain(chain_session: Chain, evm_snapshot: AnvilNode) -> Iterator[Chain]:
    """The Chain helper inside an EVM snapshot reverted after the test."""
    yield chain_session
