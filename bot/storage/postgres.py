"""The PostgreSQL backend: a connection that runs the Store's SQL, and the migrations.

The Store's logic (validation, group commit, holds, settlement, row mapping)
is written once, in the repositories over ``database.Database``, against a
small connection interface (``backend.Connection``): aiosqlite's, and
``PgConnection`` here. Only what must differ lives here:

* dialect: the Store writes ``?`` placeholders; ``PgConnection`` turns them into
  ``$1, $2, …``. Its ``BEGIN IMMEDIATE`` (SQLite's "take the write lock now")
  becomes a READ COMMITTED transaction: PostgreSQL locks the rows a transaction
  writes, and the ledger guards (migration 3) lock the account row before they
  check a hold, so concurrent holds on one account are still serialised. Its
  read-only ``BEGIN`` becomes REPEATABLE READ READ ONLY: one snapshot, as in
  SQLite.
* schema: the same migration list, in PostgreSQL's dialect
  (``migrations_pg.postgres_script``). Version numbers are the positions in
  ``migrations.MIGRATIONS``; the version is kept in table ``schema_version``, and a
  transaction-scoped advisory lock makes concurrent start-ups apply each migration once.
* durability: PostgreSQL's defaults (``fsync=on``, ``synchronous_commit=on``):
  COMMIT returns once the WAL is flushed, as with SQLite's ``synchronous=FULL``.
"""

from __future__ import annotations

import contextlib
import functools
import re
from collections.abc import Iterable, Sequence
from typing import Any

import asyncpg

from bot.storage.migrations import MIGRATIONS
from bot.storage.migrations_pg import postgres_script

MIGRATION_LOCK = 0x706F6B6572  # pg_advisory_xact_lock key while migrating ("poker")


def is_postgres_url(target: object) -> bool:
    return isinstance(target, str) and target.startswith(("postgresql://", "postgres://"))


# ---------------------------------------------------------------- dialect


@functools.lru_cache(maxsize=1024)
def translate(sql: str) -> str:
    """The Store's SQLite SQL in PostgreSQL's dialect (placeholders, BEGIN)."""
    head = sql.strip().upper()
    if head == "BEGIN IMMEDIATE":
        return "BEGIN ISOLATION LEVEL READ COMMITTED"
    if head == "BEGIN":
        return "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"
    out: list[str] = []
    number = 0
    quoted = False
    for char in sql:
        if char == "'":
            quoted = not quoted
        if char == "?" and not quoted:
            number += 1
            out.append(f"${number}")
        else:
            out.append(char)
    return "".join(out)


_RETURNS_ROWS = re.compile(r"^\s*(SELECT|WITH|VALUES)\b|\bRETURNING\b", re.IGNORECASE)


class PgCursor:
    """What the Store reads from an executed statement (as from aiosqlite's cursor)."""

    def __init__(self, rows: list[asyncpg.Record], rowcount: int) -> None:
        self._rows = rows
        self.rowcount = rowcount
        self.lastrowid = None  # the Store uses RETURNING instead

    async def fetchone(self) -> asyncpg.Record | None:
        return self._rows[0] if self._rows else None

    async def fetchall(self) -> list[asyncpg.Record]:
        return self._rows


class _Statement:
    """``await conn.execute(...)`` and ``async with conn.execute(...) as cursor``."""

    def __init__(self, conn: asyncpg.Connection, sql: str, args: Sequence[Any]) -> None:
        self._conn, self._sql, self._args = conn, sql, args

    async def _run(self) -> PgCursor:
        sql = translate(self._sql)
        if _RETURNS_ROWS.search(sql):
            rows = await self._conn.fetch(sql, *self._args)
            return PgCursor(rows, len(rows))
        status = await self._conn.execute(sql, *self._args)
        count = status.rsplit(" ", 1)[-1]  # "UPDATE 3", "INSERT 0 1", "BEGIN"
        return PgCursor([], int(count) if count.isdigit() else -1)

    def __await__(self) -> Any:
        return self._run().__await__()

    async def __aenter__(self) -> PgCursor:
        return await self._run()

    async def __aexit__(self, *exc: object) -> None:
        return None


class PgConnection:
    """An asyncpg connection behind the interface the Store uses (``backend.Connection``)."""

    row_factory: Any = None  # asyncpg's records already index by name and position

    def __init__(self, conn: asyncpg.Connection, url: str = "") -> None:
        self.raw = conn
        self.url = url  # to open a new session when this one is lost

    def lost(self) -> bool:
        """Is the session gone (terminated, the server restarted, the network cut)?"""
        return bool(self.raw.is_closed())

    def execute(self, sql: str, parameters: Iterable[Any] | None = None) -> Any:
        return _Statement(self.raw, sql, tuple(parameters or ()))

    async def executemany(self, sql: str, parameters: Iterable[Iterable[Any]]) -> None:
        rows = [tuple(row) for row in parameters]
        if rows:
            await self.raw.executemany(translate(sql), rows)

    async def close(self) -> None:
        await self.raw.close()


async def schema_version(conn: asyncpg.Connection) -> int:
    exists = await conn.fetchval("SELECT to_regclass('schema_version') IS NOT NULL")
    if not exists:
        return 0
    return int(await conn.fetchval("SELECT version FROM schema_version"))


async def migrate(conn: asyncpg.Connection, migrations: list[str] | None = None) -> int:
    """Apply the migrations the database lacks, each in one transaction with its version."""
    migrations = MIGRATIONS if migrations is None else migrations
    for target, script in enumerate(migrations, start=1):
        async with conn.transaction():
            # Concurrent start-ups queue here, so each migration is applied once.
            await conn.execute("SELECT pg_advisory_xact_lock($1)", MIGRATION_LOCK)
            await conn.execute(
                "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL); "
                "INSERT INTO schema_version SELECT 0 "
                "WHERE NOT EXISTS (SELECT 1 FROM schema_version)"
            )
            if await schema_version(conn) >= target:
                continue
            await conn.execute(postgres_script(script))
            await conn.execute("UPDATE schema_version SET version = $1", target)
    version = await schema_version(conn)
    if version > len(migrations):
        raise RuntimeError(
            f"database schema v{version} is newer than this code (v{len(migrations)})"
        )
    return version


async def connect(url: str) -> asyncpg.Connection:
    """A connection to ``url`` (extra query parameters are server settings)."""
    return await asyncpg.connect(url)


async def open_database(url: str) -> PgConnection:
    """Connect and migrate to the latest schema."""
    conn = await connect(url)
    try:
        await migrate(conn)
    except BaseException:
        await conn.close()
        raise
    return PgConnection(conn, url)


async def reconnect(lost: PgConnection) -> PgConnection:
    """A new session to the database of a lost one (already migrated: no migrations)."""
    with contextlib.suppress(Exception):
        await lost.raw.close()  # nothing to close cleanly on a dead socket
    return PgConnection(await connect(lost.url), lost.url)
