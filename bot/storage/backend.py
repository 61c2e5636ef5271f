"""What the Store needs from a database connection, and how a target picks the backend.

A target is a file path (SQLite, the default) or a ``postgresql://`` URL
(PostgreSQL through asyncpg). Both backends hand the Store a ``Connection``:
aiosqlite's own, or ``postgres.PgConnection``, which runs the same SQL.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import asyncpg

from bot.storage import postgres, sqlite
from bot.storage.connection import Connection, Row

__all__ = [
    "GUILD_TAKEN",
    "INTEGRITY_ERRORS",
    "Connection",
    "Row",
    "Timeouts",
    "open_connection",
]
Timeouts = postgres.Timeouts

# A constraint or ledger guard of the database refused a write (either backend).
INTEGRITY_ERRORS: tuple[type[Exception], ...] = (
    sqlite3.IntegrityError,
    asyncpg.IntegrityConstraintViolationError,
)
# PostgreSQL refused a write for a guild that another process holds (migration 5).
GUILD_TAKEN = asyncpg.LockNotAvailableError


async def open_connection(
    target: str | Path, timeouts: postgres.Timeouts | None = None
) -> Connection:
    """A migrated connection to ``target`` (a SQLite path or a postgresql:// URL);
    ``timeouts`` bound PostgreSQL's statements (None: unbounded, for tools)."""
    if postgres.is_postgres_url(target):
        return await postgres.open_database(str(target), timeouts)
    conn = await sqlite.open_database(target)
    conn.row_factory = sqlite3.Row
    return conn
