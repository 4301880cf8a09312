"""Encrypted key files: eth-account's keystore JSON (Web3 Secret Storage, version 3).

The one keystore loader of the project: the operator's role keys (`ledger.keys.roles`) and
collectors' wallets are read here. A keystore's address is plaintext in the file, so a deploy
command can name the result signer and the anchorer without decrypting their keys; the password
comes from a file (a mounted secret) or from the environment, never from the command line.
"""

from __future__ import annotations

import json
import os
import secrets
from pathlib import Path
from typing import Any

from eth_account import Account
from eth_utils import is_hex_address, to_checksum_address

from ledger.errors import ConfigurationError
from ledger.keys.signer import LocalSigner

#: a keystore larger than this is not a keystore (they are about 500 bytes)
_MAX_KEYSTORE_BYTES = 64 * 1024


def read_keystore(path: Path) -> dict[str, Any]:
    """The keystore JSON at `path`; ConfigurationError naming the file when it is not one."""
    try:
        if path.stat().st_size > _MAX_KEYSTORE_BYTES:
            raise ConfigurationError(f"{path} is not a keystore file (larger than 64 KiB)")
        data = json.loads(path.read_text())
    except FileNotFoundError:
        raise ConfigurationError(f"no keystore file at {path}") from None
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise ConfigurationError(f"{path} is not a keystore file: {exc}") from None
    if not isinstance(data, dict) or not isinstance(data.get("crypto") or data.get("Crypto"), dict):
        raise ConfigurationError(f"{path} is not a keystore file (no 'crypto' section)")
    if data.get("version") != 3:
        raise ConfigurationError(f"{path}: only version 3 keystores are supported")
    return data


def keystore_address(path: Path) -> str:
    """The checksummed address a keystore declares (read without its password)."""
    address = read_keystore(path).get("address")
    if not isinstance(address, str) or not is_hex_address("0x" + address.removeprefix("0x")):
        raise ConfigurationError(f"keystore {path} declares no address")
    return to_checksum_address("0x" + address.removeprefix("0x"))


def read_password_file(path: Path) -> str:
    """A password from a file (one trailing newline dropped, as `echo` writes it)."""
    try:
        text = path.read_text()
    except OSError as exc:
        raise ConfigurationError(f"can't read the password file {path}: {exc}") from None
    return text[:-1] if text.endswith("\n") else text


def decrypt_keystore(path: Path, password: str) -> bytes:
    """The private key in the keystore at `path`; ConfigurationError for a wrong password or a
    key that is not the address the file declares."""
    data = read_keystore(path)
    try:
        key = bytes(Account.decrypt(data, password))
    except ValueError:
        raise ConfigurationError(f"wrong password for keystore {path}") from None
    if data.get("address") and keystore_address(path) != Account.from_key(key).address:
        raise ConfigurationError(f"keystore {path} declares another address than its key's")
    return key


def load_keystore(path: Path, password: str) -> LocalSigner:
    """A signer of the key in the keystore at `path` (see `decrypt_keystore`)."""
    return LocalSigner(decrypt_keystore(path, password))


def write_keystore(path: Path, password: str, private_key: str | bytes | None = None) -> str:
    """Encrypt `private_key` (a new random key if None) with `password` (scrypt) into a new file
    at `path`, readable by its owner only; the key's address. An existing file is never replaced."""
    if not password:
        raise ConfigurationError("a keystore needs a non-empty password")
    key: Any = private_key if private_key is not None else secrets.token_bytes(32)
    try:
        data = Account.encrypt(key, password, kdf="scrypt")
    except (ValueError, TypeError) as exc:
        raise ConfigurationError(f"not a private key: {exc}") from None
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        raise ConfigurationError(f"{path} exists; a keystore is never overwritten") from None
    with os.fdopen(fd, "w") as out:
        json.dump(data, out)
    return to_checksum_address("0x" + str(data["address"]))
