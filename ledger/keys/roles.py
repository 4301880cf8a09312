"""Which key each role uses, where it comes from, and which process may hold it.

| role | used by | settings |
|---|---|---|
| publisher | `metaledger chain deploy|seed|signer ...` (deploys, mints, admin) | `METALEDGER_PUBLISHER_*` |
| result signer | the API process (signs results) | `METALEDGER_SIGNER_*` |
| anchorer | the workers (anchor batches) | `METALEDGER_ANCHORER_*` |

A key comes from an encrypted keystore (`<ROLE>_KEYSTORE`, its password from
`<ROLE>_KEYSTORE_PASSWORD_FILE` or `<ROLE>_KEYSTORE_PASSWORD`), or, on a local Anvil chain
(id 31337) only, from a plain `<ROLE>_KEY`, by default Anvil's public dev key of the role. A
process that declared its roles (`hold_only`: the API, a worker) refuses to start while its
environment carries another role's secret, and refuses to load another role's key.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from eth_account import Account
from pydantic import SecretStr

from ledger.errors import ConfigurationError
from ledger.keys.keystore import keystore_address, load_keystore, read_password_file
from ledger.keys.signer import LocalSigner, Signer
from ledger.settings import ANVIL_CHAIN_ID, ANVIL_DEV_KEYS, Settings


class Role(StrEnum):
    """An operator role; its value is the settings' prefix (`METALEDGER_<VALUE>_...`)."""

    PUBLISHER = "publisher"
    RESULT_SIGNER = "signer"
    ANCHORER = "anchorer"

    @property
    def label(self) -> str:
        """The role's name in messages."""
        return "result signer" if self is Role.RESULT_SIGNER else self.value

    @property
    def used_by(self) -> str:
        """The process or commands that hold this role's key."""
        return _USED_BY[self]

    @property
    def dev_key(self) -> str:
        """Anvil's public development key of this role (chain 31337 only)."""
        return ANVIL_DEV_KEYS[_DEV_KEY_INDEX[self]]


_USED_BY = {
    Role.PUBLISHER: "`metaledger chain deploy|seed|signer`",
    Role.RESULT_SIGNER: "the API process",
    Role.ANCHORER: "the workers",
}
_DEV_KEY_INDEX = {Role.PUBLISHER: 0, Role.RESULT_SIGNER: 1, Role.ANCHORER: 2}
_DEV_ADDRESSES = frozenset(Account.from_key(k).address for k in ANVIL_DEV_KEYS)


def _var(role: Role, suffix: str) -> str:
    return f"METALEDGER_{role.value.upper()}_{suffix}"


@dataclass(frozen=True)
class KeySource:
    """Where the settings say a role's key comes from."""

    role: Role
    key: SecretStr | None
    keystore: Path | None
    password_file: Path | None
    password: SecretStr | None

    @classmethod
    def of(cls, settings: Settings, role: Role) -> KeySource:
        """The key source of `role` in `settings`."""
        p = role.value
        return cls(
            role,
            getattr(settings, f"{p}_key"),
            getattr(settings, f"{p}_keystore"),
            getattr(settings, f"{p}_keystore_password_file"),
            getattr(settings, f"{p}_keystore_password"),
        )

    def secret_variables(self) -> list[str]:
        """The variables that hand this role's secret to a process (a plain key, a password)."""
        found: list[tuple[str, object]] = [("KEY", self.key), ("KEYSTORE_PASSWORD", self.password)]
        found.append(("KEYSTORE_PASSWORD_FILE", self.password_file))
        return [_var(self.role, suffix) for suffix, value in found if value is not None]

    def address(self) -> str:
        """The key's address, without decrypting a keystore (its address is plaintext)."""
        if self.keystore is not None:
            return keystore_address(self.keystore)
        key = self.key.get_secret_value() if self.key is not None else self.role.dev_key
        try:
            return str(Account.from_key(key).address)
        except (ValueError, TypeError):
            raise ConfigurationError(f"{_var(self.role, 'KEY')} is not a private key") from None

    def check_chain(self, chain_id: int) -> None:
        """Refuse, off chain 31337, a plain key or a key that is one of Anvil's public dev keys."""
        if chain_id == ANVIL_CHAIN_ID:
            return
        if self.keystore is None and self.key is None:
            raise ConfigurationError(
                f"chain id {chain_id} is not a local Anvil chain (31337): the {self.role.label} "
                f"needs its own key; set {_var(self.role, 'KEYSTORE')} (docs/deploy.md, Keystores)"
            )
        if self.address() in _DEV_ADDRESSES:
            raise ConfigurationError(
                f"chain id {chain_id} is not a local Anvil chain (31337) but the {self.role.label} "
                "key is one of Anvil's public dev keys"
            )
        if self.keystore is None:
            raise ConfigurationError(
                f"a plain {_var(self.role, 'KEY')} is accepted on chain 31337 only; on chain "
                f"{chain_id} set {_var(self.role, 'KEYSTORE')} and its password"
            )

    def load(self) -> Signer:
        """The key as a Signer (a keystore is decrypted here)."""
        if self.keystore is None:
            return LocalSigner(self.key.get_secret_value() if self.key else self.role.dev_key)
        if self.password_file is not None:
            password = read_password_file(self.password_file)
        elif self.password is not None:
            password = self.password.get_secret_value()
        else:
            raise ConfigurationError(
                f"{_var(self.role, 'KEYSTORE')} is set but no password: set "
                f"{_var(self.role, 'KEYSTORE_PASSWORD_FILE')} or {_var(self.role, 'KEYSTORE_PASSWORD')}"
            )
        return load_keystore(self.keystore, password)


#: the roles this process declared it holds (None: not declared, e.g. tests and tools)
_held: frozenset[Role] | None = None


def hold_only(settings: Settings, process: str, *roles: Role) -> None:
    """Declare that this process (`process`, e.g. "api") holds only the keys of `roles`: refuse
    (ConfigurationError) an environment that hands it another role's secret, and from now on
    refuse to load another role's key."""
    global _held
    for other in Role:
        if other in roles:
            continue
        given = KeySource.of(settings, other).secret_variables()
        if given:
            raise ConfigurationError(
                f"the {process} process must not hold the {other.label} key (that is "
                f"{other.used_by}'s): remove {', '.join(given)} from its environment"
            )
    _held = frozenset(roles)


def role_address(settings: Settings, role: Role, chain_id: int | None = None) -> str:
    """The address of `role`'s key (checked against chain `chain_id` if given), no decryption."""
    source = KeySource.of(settings, role)
    if chain_id is not None:
        source.check_chain(chain_id)
    return source.address()


def load_signer(settings: Settings, role: Role, chain_id: int) -> Signer:
    """`role`'s key for chain `chain_id`: refused off 31337 when it is a plain or dev key, and
    refused in a process that declared it holds other roles only."""
    if _held is not None and role not in _held:
        raise ConfigurationError(
            f"this process holds no {role.label} key: that is {role.used_by}'s"
        )
    source = KeySource.of(settings, role)
    source.check_chain(chain_id)
    signer = source.load()
    if chain_id != ANVIL_CHAIN_ID and signer.address in _DEV_ADDRESSES:
        raise ConfigurationError(
            f"chain id {chain_id} is not a local Anvil chain (31337) but the {role.label} "
            "key is one of Anvil's public dev keys"
        )
    return signer


#: the roles of each server process (`python -m api`, `python -m workers worker|beat`)
SERVER_ROLES: dict[str, tuple[Role, ...]] = {
    "api": (Role.RESULT_SIGNER,),
    "worker": (Role.ANCHORER,),
    "beat": (),
}


def server_environment(env: dict[str, str], server: str) -> dict[str, str]:
    """`env` without the secrets of the roles server process `server` must not hold (what the
    local stack and the benchmarks give each child)."""
    held = SERVER_ROLES[server]
    drop = {
        _var(role, suffix)
        for role in Role
        if role not in held
        for suffix in ("KEY", "KEYSTORE_PASSWORD", "KEYSTORE_PASSWORD_FILE")
    }
    return {name: value for name, value in env.items() if name not in drop}
