"""The project's own servers: a real redis-server and a real PostgreSQL (or external ones)."""

from __future__ import annotations

import redis
import sqlalchemy as sa

from ledger.devstack.servers import RedisServer


def test_redis_server_answers_and_restarts_on_its_port(redis_server: RedisServer) -> None:
    client = redis.Redis.from_url(redis_server.url)
    assert client.ping()
    client.close()


def test_redis_server_can_stop_and_start_again(tmp_path) -> None:  # type: ignore[no-untyped-def]
    server = RedisServer(tmp_path).start()
    try:
        port = server.port
        server.stop()
        server.start()
        assert server.port == port
        assert redis.Redis.from_url(server.url).ping()
    finally:
        server.stop()


def test_database_url_is_a_working_empty_database(database_url: str) -> None:
    engine = sa.create_engine(database_url)
    with engine.begin() as conn:
        conn.execute(sa.text("CREATE TABLE probe (id INTEGER PRIMARY KEY)"))
        conn.execute(sa.text("INSERT INTO probe (id) VALUES (1)"))
        assert conn.execute(sa.text("SELECT count(*) FROM probe")).scalar_one() == 1
    engine.dispose()
