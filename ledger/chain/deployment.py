"""The deployment file: where the contracts live on which chain (written by
`metaledger chain deploy`, read by the API, the workers and `metaledger audit export`)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from eth_utils import to_checksum_address

from ledger.errors import ConfigurationError


@dataclass(frozen=True)
class Deployment:
    """Where the contracts live (the deployment JSON file)."""

    chain_id: int
    rpc_url: str
    addresses: dict[str, str]  # contract name -> checksummed address
    deployment_block: int
    deployer: str
    signer: str
    anchorer: str
    source_hash: str = ""
    receipts: dict[str, str] = field(default_factory=dict)  # contract name -> deployment tx hash

    @property
    def card_token(self) -> str:
        """CardToken address."""
        return self.addresses["CardToken"]

    @property
    def match_ledger(self) -> str:
        """MatchLedger address."""
        return self.addresses["MatchLedger"]

    @property
    def card_exchange(self) -> str:
        """CardExchange address."""
        return self.addresses["CardExchange"]

    def to_json(self) -> str:
        """The deployment as pretty JSON."""
        return json.dumps(asdict(self), indent=2, sort_keys=True) + "\n"

    def save(self, path: Path) -> None:
        """Write the deployment JSON (creating parent folders)."""
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(self.to_json())

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Deployment:
        """Parse a deployment dict."""
        try:
            return cls(**data)
        except TypeError as exc:
            raise ConfigurationError(f"malformed deployment: {exc}") from exc

    @classmethod
    def load(cls, path: Path) -> Deployment:
        """Read a deployment JSON file."""
        if not path.is_file():
            raise ConfigurationError(f"no deployment file at {path}; run `metaledger chain deploy`")
        return cls.from_dict(json.loads(path.read_text()))


@dataclass(frozen=True)
class ContractAddresses:
    """The deployed contracts the API, the workers and the exporter read (checksummed)."""

    chain_id: int
    card_token: str
    match_ledger: str
    card_exchange: str | None
    deployment_block: int


def load_addresses(path: Path) -> ContractAddresses:
    """Read a deployment file; ConfigurationError (saying how to fix it) when missing or malformed."""
    if not path.is_file():
        raise ConfigurationError(
            f"no deployment file at {path}; deploy the contracts first (`metaledger chain deploy`, "
            "or `make run`), or set METALEDGER_DEPLOYMENT_FILE"
        )
    try:
        deployment = Deployment.from_dict(json.loads(path.read_text()))
        return ContractAddresses(
            chain_id=int(deployment.chain_id),
            card_token=to_checksum_address(deployment.card_token),
            match_ledger=to_checksum_address(deployment.match_ledger),
            card_exchange=to_checksum_address(deployment.addresses["CardExchange"])
            if deployment.addresses.get("CardExchange")
            else None,
            deployment_block=int(deployment.deployment_block),
        )
    except (ValueError, TypeError, KeyError) as exc:
        raise ConfigurationError(f"deployment file {path} is malformed: {exc}") from exc
