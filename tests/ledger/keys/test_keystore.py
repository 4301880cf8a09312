"""Keystore files: written encrypted, read back with the password, refused clearly otherwise."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from eth_account import Account

from ledger.errors import ConfigurationError
from ledger.keys.keystore import keystore_address, load_keystore, read_password_file, write_keystore
from ledger.keys.signer import LocalSigner, Signer
from ledger.protocol.signatures import recover_digest_signer


def test_a_written_keystore_loads_with_its_password_only(tmp_path: Path) -> None:
    path = tmp_path / "signer.json"
    key = "0x" + "42" * 32
    address = write_keystore(path, "correct horse", key)
    assert address == Account.from_key(key).address
    assert oct(path.stat().st_mode & 0o777) == "0o600"
    assert key.removeprefix("0x") not in path.read_text(), "the key is stored encrypted"
    assert keystore_address(path) == address  # without the password
    signer = load_keystore(path, "correct horse")
    assert isinstance(signer, Signer) and signer.address == address
    digest = os.urandom(32)
    assert recover_digest_signer(digest, signer.sign_digest(digest)) == address
    assert key.removeprefix("0x") not in repr(LocalSigner(key))
    with pytest.raises(ConfigurationError, match="wrong password for keystore"):
        load_keystore(path, "wrong")


def test_a_new_key_is_random_and_never_overwrites(tmp_path: Path) -> None:
    a = write_keystore(tmp_path / "a.json", "pw")
    b = write_keystore(tmp_path / "b.json", "pw")
    assert a != b
    with pytest.raises(ConfigurationError, match="never overwritten"):
        write_keystore(tmp_path / "a.json", "pw")
    with pytest.raises(ConfigurationError, match="non-empty password"):
        write_keystore(tmp_path / "c.json", "")


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        ("not json", "is not a keystore file"),
        ("[]", "no 'crypto' section"),
        (json.dumps({"crypto": {"cipher": "x"}, "version": 1}), "only version 3"),
        (json.dumps({"crypto": {"cipher": "x"}, "version": 3}), "declares no address"),
    ],
)
def test_a_file_that_is_no_keystore_is_named(tmp_path: Path, content: str, reason: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content)
    with pytest.raises(ConfigurationError, match=reason):
        keystore_address(path)
    with pytest.raises(ConfigurationError, match="no keystore file at"):
        keystore_address(tmp_path / "missing.json")


def test_a_keystore_whose_address_lies_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "k.json"
    write_keystore(path, "pw", "0x" + "07" * 32)
    data = json.loads(path.read_text())
    data["address"] = Account.create().address.removeprefix("0x").lower()
    path.write_text(json.dumps(data))
    with pytest.raises(ConfigurationError, match="another address"):
        load_keystore(path, "pw")


def test_a_password_file_drops_one_trailing_newline(tmp_path: Path) -> None:
    path = tmp_path / "pw"
    path.write_text("secret \n")
    assert read_password_file(path) == "secret "
    with pytest.raises(ConfigurationError, match="can't read the password file"):
        read_password_file(tmp_path / "none")
