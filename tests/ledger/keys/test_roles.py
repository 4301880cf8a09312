"""Keys per role: where each comes from, which chain accepts it, which process may hold it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from eth_account import Account
from pydantic import SecretStr

from ledger.errors import ConfigurationError
from ledger.keys import roles
from ledger.keys.keystore import write_keystore
from ledger.keys.roles import Role, hold_only, load_signer, role_address, server_environment
from ledger.settings import ANVIL_DEV_KEYS, Settings

ROOT = Path(__file__).resolve().parents[3]


def _settings(**values: object) -> Settings:
    return Settings(_env_file=None, **values)  # type: ignore[call-arg]


@pytest.fixture(autouse=True)
def _undeclared(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(roles, "_held", None)


def test_zero_settings_give_each_role_its_anvil_dev_key_on_31337() -> None:
    s = _settings()
    for role, index in ((Role.PUBLISHER, 0), (Role.RESULT_SIGNER, 1), (Role.ANCHORER, 2)):
        expected = Account.from_key(ANVIL_DEV_KEYS[index]).address
        assert load_signer(s, role, 31337).address == expected
        assert role_address(s, role, 31337) == expected


def test_off_anvil_a_role_without_a_keystore_is_refused() -> None:
    with pytest.raises(ConfigurationError, match="set METALEDGER_SIGNER_KEYSTORE"):
        load_signer(_settings(), Role.RESULT_SIGNER, 11155111)
    dev = _settings(anchorer_key=SecretStr(ANVIL_DEV_KEYS[2]))
    with pytest.raises(ConfigurationError, match="one of Anvil's public dev keys"):
        load_signer(dev, Role.ANCHORER, 1)
    plain = _settings(publisher_key=SecretStr("0x" + "11" * 32))
    assert load_signer(plain, Role.PUBLISHER, 31337).address  # fine on a local chain
    with pytest.raises(ConfigurationError, match="plain METALEDGER_PUBLISHER_KEY is accepted on"):
        load_signer(plain, Role.PUBLISHER, 1)


def test_a_keystore_is_the_key_off_anvil(tmp_path: Path) -> None:
    path = tmp_path / "signer.json"
    address = write_keystore(path, "pw")
    no_password = _settings(signer_keystore=path)
    assert role_address(no_password, Role.RESULT_SIGNER, 1) == address  # no decryption needed
    with pytest.raises(ConfigurationError, match="no password"):
        load_signer(no_password, Role.RESULT_SIGNER, 1)
    password_file = tmp_path / "pw.txt"
    password_file.write_text("pw\n")
    from_file = _settings(signer_keystore=path, signer_keystore_password_file=password_file)
    assert load_signer(from_file, Role.RESULT_SIGNER, 1).address == address
    from_env = _settings(signer_keystore=path, signer_keystore_password=SecretStr("pw"))
    assert load_signer(from_env, Role.RESULT_SIGNER, 1).address == address
    wrong = _settings(signer_keystore=path, signer_keystore_password=SecretStr("no"))
    with pytest.raises(ConfigurationError, match="wrong password"):
        load_signer(wrong, Role.RESULT_SIGNER, 1)


def test_a_keystore_of_a_dev_key_is_refused_off_anvil(tmp_path: Path) -> None:
    path = tmp_path / "dev.json"
    write_keystore(path, "pw", ANVIL_DEV_KEYS[2])
    s = _settings(anchorer_keystore=path, anchorer_keystore_password=SecretStr("pw"))
    with pytest.raises(ConfigurationError, match="public dev keys"):
        load_signer(s, Role.ANCHORER, 1)


def test_the_api_process_cannot_reach_the_publisher_or_the_anchorer_key() -> None:
    s = _settings()
    hold_only(s, "api", Role.RESULT_SIGNER)
    assert load_signer(s, Role.RESULT_SIGNER, 31337).address
    for other in (Role.PUBLISHER, Role.ANCHORER):
        with pytest.raises(ConfigurationError, match=f"this process holds no {other.label} key"):
            load_signer(s, other, 31337)


@pytest.mark.parametrize(
    ("process", "held", "given"),
    [
        ("api", Role.RESULT_SIGNER, {"publisher_key": SecretStr(ANVIL_DEV_KEYS[0])}),
        ("api", Role.RESULT_SIGNER, {"anchorer_keystore_password": SecretStr("pw")}),
        ("worker", Role.ANCHORER, {"signer_keystore_password_file": Path("/run/pw")}),
    ],
)
def test_a_process_given_another_roles_secret_refuses_to_start(
    process: str, held: Role, given: dict[str, object]
) -> None:
    with pytest.raises(ConfigurationError, match=f"the {process} process must not hold the"):
        hold_only(_settings(**given), process, held)
    assert roles._held is None


def test_the_local_stack_hands_each_server_only_its_own_secrets() -> None:
    env = {
        "PATH": "/bin",
        "METALEDGER_PUBLISHER_KEY": "p",
        "METALEDGER_SIGNER_KEYSTORE_PASSWORD": "s",
        "METALEDGER_SIGNER_KEYSTORE": "/k/signer.json",
        "METALEDGER_ANCHORER_KEYSTORE_PASSWORD_FILE": "/k/a.pw",
    }
    assert server_environment(env, "api") == {
        "PATH": "/bin",
        "METALEDGER_SIGNER_KEYSTORE_PASSWORD": "s",
        "METALEDGER_SIGNER_KEYSTORE": "/k/signer.json",
    }
    assert server_environment(env, "worker") == {
        "PATH": "/bin",
        "METALEDGER_SIGNER_KEYSTORE": "/k/signer.json",
        "METALEDGER_ANCHORER_KEYSTORE_PASSWORD_FILE": "/k/a.pw",
    }
    assert server_environment(env, "beat") == {
        "PATH": "/bin",
        "METALEDGER_SIGNER_KEYSTORE": "/k/signer.json",
    }


@pytest.mark.parametrize(
    ("command", "variable", "message"),
    [
        (["api"], "METALEDGER_PUBLISHER_KEY", "the api process must not hold the publisher key"),
        (["api"], "METALEDGER_ANCHORER_KEY", "the api process must not hold the anchorer key"),
        (
            ["workers", "worker"],
            "METALEDGER_SIGNER_KEY",
            "the worker process must not hold the result signer key",
        ),
    ],
)
def test_the_server_processes_refuse_other_roles_keys(
    tmp_path: Path, command: list[str], variable: str, message: str
) -> None:
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp_path),
        "METALEDGER_DATA_DIR": str(tmp_path),
        variable: ANVIL_DEV_KEYS[3],
    }
    done = subprocess.run(
        [sys.executable, "-m", *command],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr.strip().splitlines()[-1].startswith(f"error: {message}")
