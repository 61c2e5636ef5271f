"""Test databases on both backends: fresh SQLite files and fresh PostgreSQL schemas.

A *target* is what ``Store.open`` takes: a SQLite file path, or a
``postgresql://`` URL whose ``search_path`` names a schema made for one test
(so tests share the throwaway server but never each other's rows).

``open_reader(target)`` gives the tests a plain synchronous connection
(``execute(sql, args).fetchall()``, ``?`` placeholders) to audit the stored
rows independently of the Store, on either backend.
"""

from __future__ import annotations

import asyncio
import os
import sqlite3
import threading
import uuid
from collections.abc import Coroutine, Iterator, Sequence
from decimal import Decimal
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlencode

import asyncpg

from bot.storage.postgres import translate

T = TypeVar("T")
PG_URL = os.environ.get("TEST_DATABASE_URL", "")
BACKENDS = ("sqlite", "postgres")
SKIP_REASON = (
    "PostgreSQL tests need a server: TEST_DATABASE_URL is not set "
    "(run the tests through scripts/with-postgres.sh to start a throwaway one)"
)

Target = Path | str


class _Loop:
    """One event loop in a thread, so synchronous helpers can talk to PostgreSQL."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        threading.Thread(target=self.loop.run_forever, daemon=True).start()

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result()


_loop: _Loop | None = None


def run_sync(coro: Coroutine[Any, Any, T]) -> T:
    global _loop
    if _loop is None:
        _loop = _Loop()
    return _loop.run(coro)


def with_settings(url: str, **settings: str) -> str:
    return url + ("&" if "?" in url else "?") + urlencode(settings)


def schema_of(url: str) -> str:
    return url.rsplit("search_path=", 1)[1]


async def _admin(statement: str) -> None:
    conn = await asyncpg.connect(PG_URL)
    try:
        await conn.execute(statement)
    finally:
        await conn.close()


def new_schema() -> str:
    """A fresh, empty schema; its URL (search_path set to it)."""
    schema = f"t_{uuid.uuid4().hex[:12]}"
    run_sync(_admin(f"CREATE SCHEMA {schema}"))
    return with_settings(PG_URL, search_path=schema)


def drop_schema(url: str) -> None:
    run_sync(_admin(f"DROP SCHEMA IF EXISTS {schema_of(url)} CASCADE"))


class Databases:
    """Fresh targets of one backend for one test; PostgreSQL schemas dropped after it."""

    def __init__(self, backend: str, directory: Path) -> None:
        self.backend = backend
        self.directory = directory
        self._made: list[Target] = []
        self._named: dict[str, Target] = {}

    def target(self, name: str) -> Target:
        """The test's database called ``name`` (made on first use)."""
        if name not in self._named:
            self._named[name] = self.new()
        return self._named[name]

    def new(self) -> Target:
        if self.backend == "postgres":
            target: Target = new_schema()
        else:
            # nested: opening must create missing directories
            target = self.directory / "nested" / f"db{len(self._made)}" / "poker.db"
        self._made.append(target)
        return target

    def cleanup(self) -> None:
        for target in self._made:
            if isinstance(target, str):
                reader = _readers.pop(target, None)
                if reader is not None:
                    run_sync(reader.conn.close())
                drop_schema(target)


# ---------------------------------------------------------------- reading rows


def _plain(value: Any) -> Any:
    return int(value) if isinstance(value, Decimal) else value  # PostgreSQL's SUM


class _Rows:
    def __init__(self, rows: list[tuple[Any, ...]]) -> None:
        self._rows = rows

    def fetchall(self) -> list[tuple[Any, ...]]:
        return self._rows

    def fetchone(self) -> tuple[Any, ...] | None:
        return self._rows[0] if self._rows else None

    def __iter__(self) -> Iterator[tuple[Any, ...]]:
        return iter(self._rows)


class PgReader:
    """sqlite3-style synchronous reads of a PostgreSQL target (one connection per
    target, kept until the test's cleanup: audits run after every step)."""

    def __init__(self, url: str) -> None:
        self.conn: asyncpg.Connection = run_sync(asyncpg.connect(url))

    def execute(self, sql: str, args: Sequence[Any] = ()) -> _Rows:
        records = run_sync(self.conn.fetch(translate(sql), *args))
        return _Rows([tuple(_plain(v) for v in r.values()) for r in records])

    def close(self) -> None:
        """Kept open for the next audit; Databases.cleanup closes it."""


_readers: dict[str, PgReader] = {}


def open_reader(target: Target) -> sqlite3.Connection | PgReader:
    if isinstance(target, str):
        if target not in _readers:
            _readers[target] = PgReader(target)
        return _readers[target]
    return sqlite3.connect(f"file:{target}?mode=ro", uri=True)


async def store_reshuffle_alone(store: Any, hand_id: int, index: int, cards: list[str]) -> None:
    """Write a reshuffle with no action, as files written before reshuffles were stored with
    the action that drew them hold (the Store no longer writes one alone)."""
    import json
    import time

    async with store.db.lock:
        await store.db.conn.execute(
            "INSERT INTO hand_reshuffles (hand_id, idx, cards_json, created_at) "
            "VALUES (?, ?, ?, ?)",
            (hand_id, index, json.dumps(cards), time.time()),
        )
