"""Settings: env prefix, defaults under .metaledger/, dev keys refused off Anvil."""

from __future__ import annotations

import pytest
from pydantic import SecretStr

from ledger.errors import ConfigurationError
from ledger.settings import Settings


def test_defaults_live_under_the_data_dir() -> None:
    s = Settings(_env_file=None)  # type: ignore[call-arg]
    assert s.resolved_database_url == "sqlite:///.metaledger/metaledger.db"
    assert str(s.resolved_deployment_file) == ".metaledger/deployment.json"
    assert s.resolved_broker_url == f"redis://127.0.0.1:{s.redis_port}/0"


def test_environment_overrides_with_prefix(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("METALEDGER_DATABASE_URL", "postgresql+psycopg://u@h/db")
    monkeypatch.setenv("METALEDGER_API_PORT", "9001")
    s = Settings(_env_file=None)  # type: ignore[call-arg]
    assert s.resolved_database_url == "postgresql+psycopg://u@h/db"
    assert s.api_port == 9001


def test_dev_keys_are_accepted_on_anvil_only() -> None:
    s = Settings(_env_file=None)  # type: ignore[call-arg]
    s.check_keys_for_chain(31337)
    with pytest.raises(ConfigurationError, match="chain id 1 is not a local Anvil chain"):
        s.check_keys_for_chain(1)


def test_own_keys_are_accepted_on_any_chain() -> None:
    key = SecretStr("0x" + "11" * 32)
    s = Settings(_env_file=None, publisher_key=key, signer_key=key, anchorer_key=key)  # type: ignore[call-arg]
    s.check_keys_for_chain(1)
