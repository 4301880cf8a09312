"""The one settings class. Every knob is an environment variable prefixed METALEDGER_."""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

ANVIL_CHAIN_ID = 31337
#: Default admin handover delay off chain 31337 (see contracts/SECURITY.md, "Admin").
PRODUCTION_ADMIN_DELAY_SECONDS = 5 * 24 * 3600

#: Anvil's well-known development keys (mnemonic "test test ... junk"). Public knowledge;
#: accepted only on chain id 31337.
ANVIL_DEV_KEYS: tuple[str, ...] = (
    "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80",
    "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d",
    "0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a",
    "0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6",
    "0x47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a",
    "0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba",
    "0x92db14e403b83dfe3df233f83dfa3a0d7096f21ca9b0d6d6b8d88b2b4ec1564e",
    "0x4bbbf85ce3377467afe5d46f804f221813b2bb87f24d81f60f1fcdbf7cbf4356",
    "0xdbda1821b80551c9d65939329250298aa3472ba22feea921c0cf5d620ea67b97",
    "0x2a871d0798f97d79848a013d4936a73bf4cc922c825d33c1cf7073dff6d409c6",
)


class Settings(BaseSettings):
    """MetaLedger configuration (env prefix METALEDGER_, or a .env file)."""

    model_config = SettingsConfigDict(
        env_prefix="METALEDGER_", env_file=".env", extra="ignore", validate_default=True
    )

    # where local state lives: SQLite file, redis data, chain logs, deployment file
    data_dir: Path = Field(
        Path(".metaledger"), description="local state: SQLite file, chain state, logs, deployment"
    )

    # chain
    rpc_url: str = Field("http://127.0.0.1:8545", description="EVM JSON-RPC URL")
    anvil_port: int = Field(8545, description="port for the local Anvil that `make run` starts")
    deployment_file: Path | None = Field(None, description="default: <data_dir>/deployment.json")
    confirmations: int = Field(1, ge=0, description="blocks to wait before a batch is final")
    web_rpc_url: str | None = Field(
        None,
        description="the chain RPC the web pages call themselves (the audit page's own checks); default: METALEDGER_RPC_URL when it is on this machine, else none (a remote RPC URL may carry a key)",
    )
    rpc_max_log_range: int = Field(
        2000,
        ge=1,
        description="largest block range one eth_getLogs asks for (halved while a provider refuses it)",
    )

    admin_delay_seconds: int | None = Field(
        None,
        ge=0,
        lt=2**48,
        description="default: 0 on chain 31337, else 432000 (5 days); the contracts' admin handover delay",
    )

    # keys, one per role (ledger.keys.roles): an encrypted keystore with its password from a
    # file or the environment; a plain hex key only on chain 31337, where Anvil's dev keys are
    # the defaults (refused on any other chain)
    publisher_key: SecretStr | None = Field(
        None,
        description="plain hex key of the publisher (chain 31337 only; default: Anvil dev key 0)",
    )
    publisher_keystore: Path | None = Field(
        None, description="keystore JSON of the publisher key (deploys, mints, admin: CLI only)"
    )
    publisher_keystore_password_file: Path | None = Field(
        None, description="file holding the publisher keystore's password"
    )
    publisher_keystore_password: SecretStr | None = Field(
        None, description="the publisher keystore's password (if no password file)"
    )
    signer_key: SecretStr | None = Field(
        None,
        description="plain hex key of the result signer (chain 31337 only; default: Anvil dev key 1)",
    )
    signer_keystore: Path | None = Field(
        None, description="keystore JSON of the result signer key (the API process)"
    )
    signer_keystore_password_file: Path | None = Field(
        None, description="file holding the result signer keystore's password"
    )
    signer_keystore_password: SecretStr | None = Field(
        None, description="the result signer keystore's password (if no password file)"
    )
    anchorer_key: SecretStr | None = Field(
        None,
        description="plain hex key of the anchorer (chain 31337 only; default: Anvil dev key 2)",
    )
    anchorer_keystore: Path | None = Field(
        None, description="keystore JSON of the anchorer key (the workers)"
    )
    anchorer_keystore_password_file: Path | None = Field(
        None, description="file holding the anchorer keystore's password"
    )
    anchorer_keystore_password: SecretStr | None = Field(
        None, description="the anchorer keystore's password (if no password file)"
    )

    # persistence and broker
    database_url: str | None = Field(
        None, description="default: sqlite:///<data_dir>/metaledger.db"
    )
    broker_url: str | None = Field(
        None, description="default: the project's own local redis-server"
    )
    redis_port: int = Field(6390, description="port for the local redis-server")

    # API
    api_host: str = Field("127.0.0.1", description="where `metaledger api` listens")
    api_port: int = Field(8000, description="API port (a free one if taken, under `make run`)")
    siwe_domain: str | None = Field(None, description="default: <api_host>:<api_port>")
    session_ttl_seconds: int = Field(24 * 3600, description="how long a sign-in session lasts")
    siwe_nonce_ttl_seconds: int = Field(600, description="how long a sign-in nonce may wait")
    turn_timeout_seconds: int = Field(300, description="an idle player loses after this long")

    # workers
    batch_max_results: int = Field(1024, ge=1, description="a batch closes at this many results")
    batch_max_seconds: float = Field(10.0, gt=0, description="... or after this many seconds")
    indexer_reorg_depth: int = Field(12, ge=0, description="blocks the indexer re-reads")
    anchor_replace_after_seconds: float = Field(
        60.0,
        gt=0,
        description="an anchor transaction unmined this long is replaced (same nonce, fees +12.5 % or more)",
    )
    anchor_max_fee_gwei: float = Field(
        500.0, gt=0, description="the highest max fee per gas (gwei) an anchor transaction offers"
    )
    indexer_poll_seconds: float = Field(
        2.0, description="how often the indexer looks for transfers"
    )

    # --- API / services (added by the API work) ---
    chain_head_ttl_seconds: float = Field(
        1.0,
        ge=0,
        description="how long the API reuses the latest block as the pin of ownership checks",
    )
    match_cache_size: int = Field(
        256, ge=0, description="live match states kept per API process (a cache only)"
    )

    # --- health (/healthz, /metrics) ---
    worker_heartbeat_seconds: float = Field(
        5.0, gt=0, description="how often each worker records that it is alive"
    )
    health_timeout_seconds: float = Field(
        0.5, gt=0, description="how long /healthz waits for the broker and the chain"
    )
    health_backlog_max_seconds: float = Field(
        300.0,
        gt=0,
        description="/healthz answers 503 once a result has waited this long to be anchored",
    )

    # --- trading and card metadata (issue 14) ---
    public_base_url: str | None = Field(
        None,
        description="the API's public URL, base of CardToken.uri() and of card links; default: http://<api_host>:<api_port>",
    )
    wallet_key: SecretStr | None = Field(
        None, description="a collector's private key for `metaledger trade` (or use a keystore)"
    )
    wallet_keystore: Path | None = Field(
        None, description="an encrypted keystore JSON file holding the `metaledger trade` wallet"
    )
    wallet_password: SecretStr | None = Field(
        None, description="the keystore's password (or pass --password-file)"
    )

    @field_validator(
        "data_dir",
        "deployment_file",
        "publisher_keystore",
        "publisher_keystore_password_file",
        "signer_keystore",
        "signer_keystore_password_file",
        "anchorer_keystore",
        "anchorer_keystore_password_file",
    )
    @classmethod
    def _absolute_path(cls, path: Path | None) -> Path | None:
        # made absolute once, here: child processes (redis-server chdirs into its --dir) and
        # commands run from another directory then all mean the same files
        return None if path is None else path.expanduser().resolve()

    @field_validator("database_url")
    @classmethod
    def _absolute_sqlite_path(cls, url: str | None) -> str | None:
        prefix = "sqlite:///"
        if url is None or not url.startswith(prefix):
            return url
        path, query = url.removeprefix(prefix), ""
        if "?" in path:
            path, query = path.split("?", 1)
            query = "?" + query
        if not path or path == ":memory:" or path.startswith("/"):
            return url
        return f"{prefix}{Path(path).expanduser().resolve()}{query}"

    # --- input limits (issue 11): each is named in the problem+json that enforces it ---
    siwe_uri: str | None = Field(
        None,
        description="default: http://<siwe_domain>; sign-in messages must name a URI of this origin",
    )
    max_body_bytes: int = Field(
        1_048_576, ge=1024, description="largest request body, checked while it streams in (413)"
    )
    max_header_bytes: int = Field(
        16_384, ge=1024, description="largest request line + headers (431)"
    )
    max_json_depth: int = Field(
        32,
        ge=2,
        le=256,
        description="deepest JSON nesting in a body or bundle, checked before parsing",
    )
    max_string_length: int = Field(
        16_384, ge=64, description="longest JSON string (or object key) in a body or bundle"
    )
    max_bundle_bytes: int = Field(
        64 * 1_048_576, ge=1024, description="largest bundle file `metaledger verify` reads"
    )
    rate_limit_window_seconds: int = Field(
        60, ge=1, description="window of the per-address rate limits on unauthenticated endpoints"
    )
    sign_in_rate_limit: int = Field(
        30,
        ge=1,
        description="POST /auth/nonce and /auth/verify per client address per window (429)",
    )
    public_rate_limit: int = Field(
        600, ge=1, description="other unauthenticated requests per client address per window (429)"
    )
    forwarded_allow_ips: str | None = Field(
        None,
        description="proxies trusted for X-Forwarded-For (the client address of rate limits); default: none",
    )
    # --- the hot path (issue 15): processes, caches, live updates ---
    api_processes: int = Field(
        1, ge=1, le=64, description="API processes `metaledger api` serves the port with"
    )
    api_access_log: bool = Field(
        True, description="whether the API logs one line per request (uvicorn's access log)"
    )
    session_cache_seconds: float = Field(
        2.0,
        ge=0,
        description="how long an API process trusts a session it looked up (the longest a sign-out takes to reach every process)",
    )
    events_max_streams: int = Field(
        256, ge=1, description="live-update streams one API process holds open (503 past it)"
    )
    events_keepalive_seconds: float = Field(
        15.0, gt=0, description="a live-update stream sends a keep-alive comment this often"
    )

    @property
    def resolved_deployment_file(self) -> Path:
        """The deployment JSON path."""
        return self.deployment_file or self.data_dir / "deployment.json"

    @property
    def resolved_database_url(self) -> str:
        """The database URL (default: SQLite file under data_dir)."""
        return self.database_url or f"sqlite:///{self.data_dir / 'metaledger.db'}"

    @property
    def resolved_broker_url(self) -> str:
        """The broker URL (default: the local redis-server on redis_port)."""
        return self.broker_url or f"redis://127.0.0.1:{self.redis_port}/0"

    @property
    def resolved_web_rpc_url(self) -> str | None:
        """The chain RPC URL the web pages may call from the browser: the configured one, or
        METALEDGER_RPC_URL when it is on this machine; never a remote URL by default."""
        if self.web_rpc_url:
            return self.web_rpc_url
        local = urlsplit(self.rpc_url).hostname in ("127.0.0.1", "localhost", "::1")
        return self.rpc_url if local else None

    @property
    def resolved_siwe_domain(self) -> str:
        """The domain sign-in messages must name."""
        return self.siwe_domain or f"{self.api_host}:{self.api_port}"

    def admin_delay_for_chain(self, chain_id: int) -> int:
        """Seconds a default admin handover of CardToken and MatchLedger waits on `chain_id`."""
        if self.admin_delay_seconds is not None:
            return self.admin_delay_seconds
        return 0 if chain_id == ANVIL_CHAIN_ID else PRODUCTION_ADMIN_DELAY_SECONDS

    @property
    def resolved_public_base_url(self) -> str:
        """Where the API is reached from outside, without a trailing slash."""
        return (self.public_base_url or f"http://{self.api_host}:{self.api_port}").rstrip("/")

    @property
    def token_uri(self) -> str:
        """CardToken's metadata URI template (ERC-1155 `{id}` form) under the public base URL."""
        from ledger.protocol.tokenids import metadata_uri_template

        return metadata_uri_template(self.resolved_public_base_url)

    @property
    def resolved_siwe_uri(self) -> str:
        """The URI (origin) sign-in messages must name."""
        return self.siwe_uri or f"http://{self.resolved_siwe_domain}"


_OVERRIDES: dict[str, Any] = {}


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The process-wide settings, read once from the environment (and command-line options)."""
    return Settings(**_OVERRIDES)


def override_settings(**values: Any) -> None:
    """Let command-line options (e.g. `--data-dir`) win over the environment; None is ignored."""
    _OVERRIDES.update({name: value for name, value in values.items() if value is not None})
    get_settings.cache_clear()


def child_environment(**overrides: str) -> dict[str, str]:
    """This process's environment plus METALEDGER_<NAME> overrides, for child processes."""
    env = dict(os.environ)
    env.update({f"METALEDGER_{name.upper()}": value for name, value in overrides.items()})
    return env
