"""Where a collector's key comes from for the CLI (`metaledger trade`, `metaledger play`): an
encrypted keystore file (eth-account / geth keystore JSON, password from a file or
METALEDGER_WALLET_PASSWORD) or METALEDGER_WALLET_KEY, never a command-line argument, which
shows in `ps` and in shell history. `metaledger play --key` is kept for Anvil's public dev keys
on chain 31337 only, with a warning.
"""

from __future__ import annotations

from pathlib import Path

from eth_account import Account

from ledger.errors import ConfigurationError
from ledger.keys.keystore import decrypt_keystore, read_password_file
from ledger.settings import ANVIL_CHAIN_ID, ANVIL_DEV_KEYS, Settings

HOW = (
    "give --keystore FILE (an encrypted keystore JSON; password from --password-file or "
    "METALEDGER_WALLET_PASSWORD), or set METALEDGER_WALLET_KEY"
)
DEV_KEY_WARNING = (
    "warning: a key on the command line shows in `ps` and in shell history; --key takes only "
    "Anvil's public dev keys, on chain 31337 (use --keystore or METALEDGER_WALLET_KEY otherwise)"
)


def wallet_key(
    settings: Settings, keystore: Path | None = None, password_file: Path | None = None
) -> str:
    """The collector's key: from `keystore` (or METALEDGER_WALLET_KEYSTORE), decrypted with the
    password in `password_file` (or METALEDGER_WALLET_PASSWORD); else METALEDGER_WALLET_KEY."""
    path = keystore or settings.wallet_keystore
    if path is not None:
        if password_file is not None:
            password = read_password_file(password_file)
        elif settings.wallet_password is not None:
            password = settings.wallet_password.get_secret_value()
        else:
            raise ConfigurationError(
                f"keystore {path} needs its password: --password-file FILE or METALEDGER_WALLET_PASSWORD"
            )
        return "0x" + decrypt_keystore(path, password).hex()
    if settings.wallet_key is not None:
        key = settings.wallet_key.get_secret_value()
        try:
            Account.from_key(key)
        except (ValueError, TypeError):
            raise ConfigurationError("METALEDGER_WALLET_KEY is not a private key") from None
        return key
    raise ConfigurationError(f"no wallet key: {HOW}")


def dev_key_argument(key: str) -> str:
    """A key given as a command-line argument: accepted only if it is one of Anvil's public dev
    keys (the caller checks the chain is 31337 with `require_dev_chain`)."""
    if key.lower() not in ANVIL_DEV_KEYS:
        raise ConfigurationError(
            f"--key takes only Anvil's public dev keys (chain 31337); for any other key {HOW}"
        )
    return key


def require_dev_chain(chain_id: int) -> None:
    """Refuse a command-line dev key on a chain other than Anvil's 31337."""
    if chain_id != ANVIL_CHAIN_ID:
        raise ConfigurationError(f"--key (an Anvil dev key) is refused on chain {chain_id}: {HOW}")
