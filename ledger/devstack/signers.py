"""The result signer registry of MatchLedger, administered with the publisher's key (the default
admin): add a signer, remove one, list them (`metaledger chain signer add|remove|list`; the
rotation runbook is docs/deploy.md, "Rotating the result signer")."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from eth_utils import is_address, to_checksum_address

from ledger.chain.contracts import MatchLedger
from ledger.chain.deployment import Deployment
from ledger.chain.transport import JsonRpc
from ledger.devstack.deploy import Sender, contract, web3_errors
from ledger.errors import InvalidInput
from ledger.keys.signer import Signer

if TYPE_CHECKING:
    from web3 import Web3


@dataclass(frozen=True)
class SignerChange:
    """A mined change of the registry."""

    signer: str
    added: bool
    block_number: int
    tx_hash: str


@dataclass(frozen=True)
class SignerRecord:
    """One address that was ever a result signer: whether it is one now, and when it changed."""

    signer: str
    active: bool
    added_at: list[int]
    removed_at: list[int]


def checked_address(text: str) -> str:
    """`text` as a checksummed address; InvalidInput naming it otherwise."""
    if not is_address(text):
        raise InvalidInput(f"{text!r} is not an address", field="address")
    return to_checksum_address(text)


def change_signer(
    w3: Web3, deployment: Deployment, publisher: Signer, signer: str, add: bool
) -> SignerChange:
    """`addSigner(signer)` or `removeSigner(signer)` from the publisher (the default admin),
    waited for; the contract's own error (e.g. not the admin) is named if it would revert."""
    address = checked_address(signer)
    ledger = contract(w3, deployment, "MatchLedger")
    function = "addSigner" if add else "removeSigner"
    what = f"{function}({address})"
    with web3_errors(what):
        sender = Sender(w3, publisher)
        data = ledger.encode_abi(function, [address])
        tx_hash = sender.send({"to": deployment.match_ledger, "data": data}, what)
        receipt = sender.wait(tx_hash, what)
    return SignerChange(address, add, int(receipt["blockNumber"]), "0x" + tx_hash.hex())


def list_signers(rpc: JsonRpc, deployment: Deployment) -> list[SignerRecord]:
    """Every address ever registered, from the registry's events since deployment (a chunked
    scan), each with whether it is a signer now."""
    ledger = MatchLedger(rpc, deployment.match_ledger)
    history: dict[str, tuple[list[int], list[int]]] = {}
    for block, signer, added in ledger.signer_changes(deployment.deployment_block):
        adds, removes = history.setdefault(signer, ([], []))
        (adds if added else removes).append(block)
    return [
        SignerRecord(signer, ledger.is_signer(signer), adds, removes)
        for signer, (adds, removes) in history.items()
    ]
