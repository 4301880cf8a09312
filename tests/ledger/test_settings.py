"""Settings: env prefix, defaults under .metaledger/ (keys per role: tests/ledger/keys)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ledger.settings import Settings


def test_defaults_live_under_the_data_dir_made_absolute(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    s = Settings(_env_file=None)  # type: ignore[call-arg]
    assert s.data_dir == tmp_path.resolve() / ".metaledger"
    assert s.resolved_database_url == f"sqlite:///{tmp_path.resolve()}/.metaledger/metaledger.db"
    assert s.resolved_deployment_file == tmp_path.resolve() / ".metaledger" / "deployment.json"
    assert s.resolved_broker_url == f"redis://127.0.0.1:{s.redis_port}/0"


def test_relative_paths_from_the_environment_are_made_absolute_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("METALEDGER_DATA_DIR", "state/../data")
    monkeypatch.setenv("METALEDGER_DEPLOYMENT_FILE", "d.json")
    monkeypatch.setenv("METALEDGER_DATABASE_URL", "sqlite:///db/x.db?timeout=5")
    s = Settings(_env_file=None)  # type: ignore[call-arg]
    monkeypatch.chdir("/")  # a later change of directory no longer matters
    assert s.data_dir == tmp_path.resolve() / "data"
    assert s.resolved_deployment_file == tmp_path.resolve() / "d.json"
    assert s.resolved_database_url == f"sqlite:///{tmp_path.resolve()}/db/x.db?timeout=5"
    assert Settings(_env_file=None, database_url="sqlite://").resolved_database_url == "sqlite://"  # type: ignore[call-arg]


def test_command_line_overrides_win_over_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ledger.settings import _OVERRIDES, get_settings, override_settings

    monkeypatch.setenv("METALEDGER_DATA_DIR", str(tmp_path / "env"))
    try:
        override_settings(data_dir=tmp_path / "flag", api_port=None)
        assert get_settings().data_dir == tmp_path / "flag"
    finally:
        _OVERRIDES.clear()
        get_settings.cache_clear()
    assert get_settings().data_dir == tmp_path / "env"
    get_settings.cache_clear()


def test_environment_overrides_with_prefix(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("METALEDGER_DATABASE_URL", "postgresql+psycopg://u@h/db")
    monkeypatch.setenv("METALEDGER_API_PORT", "9001")
    s = Settings(_env_file=None)  # type: ignore[call-arg]
    assert s.resolved_database_url == "postgresql+psycopg://u@h/db"
    assert s.api_port == 9001
