"""What the Store needs from a database connection, and how a target picks the backend.

A target is a file path (SQLite, the default) or a ``postgresql://`` URL
(PostgreSQL through asyncpg). Both backends hand the Store a ``Connection``:
aiosqlite's own, or ``postgres.PgConnection``, which runs the same SQL.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import asyncpg

from bot.storage import db, postgres
from bot.storage.connection import Connection, Row

__all__ = [
    "GUILD_TAKEN",
    "INTEGRITY_ERRORS",
    "Connection",
    "Row",
    "claim_guild",
    "open_connection",
]

# A constraint or ledger guard of the database refused a write (either backend).
INTEGRITY_ERRORS: tuple[type[Exception], ...] = (
    sqlite3.IntegrityError,
    asyncpg.IntegrityConstraintViolationError,
)
# PostgreSQL refused a write for a guild that another process holds (migration 5).
GUILD_TAKEN = asyncpg.LockNotAvailableError


async def open_connection(target: str | Path) -> Connection:
    """A migrated connection to ``target`` (a SQLite path or a postgresql:// URL)."""
    if postgres.is_postgres_url(target):
        return await postgres.open_database(str(target))
    conn = await db.open_database(target)
    conn.row_factory = sqlite3.Row
    return conn


async def claim_guild(conn: Connection, guild_id: int) -> bool:
    """See Store.claim_guild."""
    if not isinstance(conn, postgres.PgConnection):
        return True
    return await postgres.claim_guild(conn, guild_id)
