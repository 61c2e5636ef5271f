"""The PostgreSQL backend: a connection that runs the Store's SQL, and the migrations.

The Store's logic (validation, group commit, holds, settlement, row mapping)
is written once, in ``store.py``, against a small connection interface
(``backend.Connection``): aiosqlite's, and ``PgConnection`` here. Only what
must differ lives here:

* dialect: the Store writes ``?`` placeholders; ``PgConnection`` turns them into
  ``$1, $2, …``. Its ``BEGIN IMMEDIATE`` (SQLite's "take the write lock now")
  becomes a READ COMMITTED transaction: PostgreSQL locks the rows a transaction
  writes, and the ledger guards (migration 3) lock the account row before they
  check a hold, so concurrent holds on one account are still serialised. Its
  read-only ``BEGIN`` becomes REPEATABLE READ READ ONLY: one snapshot, as in
  SQLite.
* schema: the same migration list, with SQLite's types mapped to PostgreSQL's
  (``postgres_script``), except the migrations in ``DIALECT`` written out in
  both dialects. Version numbers are the positions in ``db.MIGRATIONS``; the
  version is kept in table ``schema_version``, and a transaction-scoped advisory
  lock makes concurrent start-ups apply each migration once.
* durability: PostgreSQL's defaults (``fsync=on``, ``synchronous_commit=on``):
  COMMIT returns once the WAL is flushed, as with SQLite's ``synchronous=FULL``.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence
from typing import Any

import asyncpg

from bot.storage.db import GUILD_OWNER_GUARD, LEDGER_GUARDS, MIGRATIONS

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

    def __init__(self, conn: asyncpg.Connection) -> None:
        self.raw = conn
        self.guilds: set[int] = set()  # advisory locks this session holds

    def execute(self, sql: str, parameters: Iterable[Any] | None = None) -> Any:
        return _Statement(self.raw, sql, tuple(parameters or ()))

    async def executemany(self, sql: str, parameters: Iterable[Iterable[Any]]) -> None:
        rows = [tuple(row) for row in parameters]
        if rows:
            await self.raw.executemany(translate(sql), rows)

    async def close(self) -> None:
        await self.raw.close()


async def claim_guild(conn: PgConnection, guild_id: int) -> bool:
    """A session advisory lock keyed by the guild id, held until the session ends."""
    if guild_id not in conn.guilds:
        if not await conn.raw.fetchval("SELECT pg_try_advisory_lock($1)", guild_id):
            return False
        conn.guilds.add(guild_id)
    return True


# ---------------------------------------------------------------- schema

_TYPES = (
    (
        re.compile(r"\bINTEGER PRIMARY KEY AUTOINCREMENT\b"),
        "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY",
    ),
    (re.compile(r"\bINTEGER\b"), "BIGINT"),  # Discord ids are 64-bit
    (re.compile(r"\bREAL\b"), "DOUBLE PRECISION"),
)

# v3 (db.LEDGER_GUARDS) in PostgreSQL's dialect. The hold check locks the account
# row first, so two transactions holding chips of one account take turns, and
# each sees the other's committed holds (READ COMMITTED: a fresh snapshot per
# statement of the function).
_LEDGER_GUARDS_PG = """
CREATE FUNCTION ledger_hold_within_available() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    bal BIGINT;
    held BIGINT;
BEGIN
    SELECT balance INTO bal FROM accounts
        WHERE guild_id = NEW.guild_id AND user_id = NEW.user_id FOR UPDATE;
    IF NOT FOUND THEN
        RETURN NEW;  -- the foreign key refuses it
    END IF;
    SELECT COALESCE(SUM(hp.hold), 0) INTO held
        FROM hand_players hp JOIN hands h ON h.hand_id = hp.hand_id
        WHERE hp.guild_id = NEW.guild_id AND hp.user_id = NEW.user_id AND h.status = 'live';
    IF NEW.hold > bal - held THEN
        RAISE EXCEPTION 'hold exceeds available chips' USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER hold_within_available BEFORE INSERT ON hand_players
    FOR EACH ROW EXECUTE FUNCTION ledger_hold_within_available();

CREATE FUNCTION ledger_refuse() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '%', TG_ARGV[0] USING ERRCODE = 'check_violation';
END $$;
CREATE TRIGGER loss_within_hold BEFORE UPDATE OF net ON hand_players
    FOR EACH ROW WHEN (NEW.net < -NEW.hold)
    EXECUTE FUNCTION ledger_refuse('a player loses more than the hold');
CREATE TRIGGER settled_once BEFORE UPDATE OF status ON hands
    FOR EACH ROW WHEN (OLD.status = 'complete')
    EXECUTE FUNCTION ledger_refuse('a completed hand is final');

CREATE FUNCTION ledger_append_to_live() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM hands WHERE hand_id = NEW.hand_id AND status = 'live') THEN
        RAISE EXCEPTION 'append to a hand that is not live' USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER action_to_live_hand BEFORE INSERT ON hand_actions
    FOR EACH ROW EXECUTE FUNCTION ledger_append_to_live();
CREATE TRIGGER reshuffle_to_live_hand BEFORE INSERT ON hand_reshuffles
    FOR EACH ROW EXECUTE FUNCTION ledger_append_to_live();
"""

# v5 (db.GUILD_OWNER_GUARD): a process acts on a guild's tables only while it holds the
# guild's advisory lock (claim_guild, on the Store's own session). Each write to a
# table, seat, hand or action checks that no *other* session holds the guild's lock:
# pg_try_advisory_lock succeeds if this session holds it (or nobody does), and the
# unlock undoes just that one acquisition.
_GUILD_OWNER_GUARD_PG = """
CREATE FUNCTION guard_guild_owner() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    guild BIGINT;
BEGIN
    IF TG_TABLE_NAME IN ('tables', 'hands') THEN
        guild := NEW.guild_id;
    ELSIF TG_TABLE_NAME = 'seats' THEN
        SELECT guild_id INTO guild FROM tables WHERE channel_id = NEW.channel_id;
    ELSE
        SELECT guild_id INTO guild FROM hands WHERE hand_id = NEW.hand_id;
    END IF;
    IF guild IS NOT NULL THEN
        IF NOT pg_try_advisory_lock(guild) THEN
            RAISE EXCEPTION 'guild % is run by another process', guild
                USING ERRCODE = 'lock_not_available';
        END IF;
        PERFORM pg_advisory_unlock(guild);
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER tables_owner BEFORE INSERT OR UPDATE ON tables
    FOR EACH ROW EXECUTE FUNCTION guard_guild_owner();
CREATE TRIGGER seats_owner BEFORE INSERT OR UPDATE ON seats
    FOR EACH ROW EXECUTE FUNCTION guard_guild_owner();
CREATE TRIGGER hands_owner BEFORE INSERT OR UPDATE ON hands
    FOR EACH ROW EXECUTE FUNCTION guard_guild_owner();
CREATE TRIGGER actions_owner BEFORE INSERT ON hand_actions
    FOR EACH ROW EXECUTE FUNCTION guard_guild_owner();
CREATE TRIGGER reshuffles_owner BEFORE INSERT ON hand_reshuffles
    FOR EACH ROW EXECUTE FUNCTION guard_guild_owner();
"""

# SQLite migrations that the type mapping cannot carry over, by their SQLite text.
DIALECT: dict[str, str] = {
    LEDGER_GUARDS: _LEDGER_GUARDS_PG,
    GUILD_OWNER_GUARD: _GUILD_OWNER_GUARD_PG,
}


def postgres_script(sqlite_script: str) -> str:
    """One migration in PostgreSQL's dialect."""
    if sqlite_script in DIALECT:
        return DIALECT[sqlite_script]
    script = sqlite_script
    for pattern, replacement in _TYPES:
        script = pattern.sub(replacement, script)
    return script


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
    return PgConnection(conn)
