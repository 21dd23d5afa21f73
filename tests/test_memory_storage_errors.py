"""The memory store on PostgreSQL says what to do when the database refuses a write or cannot be
reached (a StorageError: 503 on the memory routes), as the threads and checkpoints do."""

from __future__ import annotations

import asyncio

import psycopg
import pytest
from tests.conftest import make_settings

from cadence.errors import StorageError
from cadence.memory.store import open_memory_store
from pg_support import fresh_database, postgres_server_url  # noqa: F401  (fixture)
from test_persistence_conformance import _drop_connections


async def test_a_read_only_postgres_is_a_storage_error_for_memory(request: pytest.FixtureRequest) -> None:
    server = request.getfixturevalue("postgres_server_url")
    url = fresh_database(server)
    async with open_memory_store(make_settings(database_url=url)) as store:
        await store.aput(("memories", "alice"), "m1", {"text": "I live in Paris."})
        with psycopg.connect(server, autocommit=True) as conn:
            conn.execute(f'ALTER DATABASE "{url.rsplit("/", 1)[1]}" SET default_transaction_read_only = on')
        _drop_connections(url)  # the pool reconnects, read-only now
        await asyncio.sleep(0.1)
        with pytest.raises(StorageError) as caught:  # it was psycopg's ReadOnlySqlTransaction (500)
            await store.aput(("memories", "alice"), "m2", {"text": "I work on compilers."})
        assert caught.value.code == "storage_read_only" and "CADENCE_DATABASE_URL" in caught.value.message
        kept = await store.asearch(("memories", "alice"), refresh_ttl=False)  # reads still work: nothing lost
        assert [item.key for item in kept] == ["m1"]
