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
* time bounds (``Timeouts``): the server cancels a statement after
  ``statement_timeout`` and ends a session left idle inside a transaction; the
  client gives up on a session that stays silent a while longer (a half-open
  connection: the network or the server vanished without a reset) and abandons
  it, and ``reconnect`` ends the old server session before the new one is used, so
  a transaction the old one left open is settled (committed or rolled back) before
  anything reads again, and its advisory locks (the guild fence) pass to the new one.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import re
import socket
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from urllib.parse import parse_qs, urlsplit

import asyncpg

from bot.storage.migrations import MIGRATIONS
from bot.storage.migrations_pg import postgres_script

MIGRATION_LOCK = 0x706F6B6572  # pg_advisory_xact_lock key while migrating ("poker")
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Timeouts:
    """How long PostgreSQL may keep the bot waiting, in seconds (settings
    ``DATABASE_STATEMENT_TIMEOUT`` and ``DATABASE_CONNECT_TIMEOUT``).

    ``statement``: the server cancels a statement that runs longer (the transaction
    fails and its step reloads).
    ``silence`` (1.5 × ``statement``): the client waits this long for an answer (longer
    than the server's own bound, so a live server always answers first) before it takes
    the session for dead and replaces it; the server ends a session left idle this long
    inside a transaction, and drops a connection whose data stays unacknowledged as long.
    ``connect``: opening a session, and ending the replaced one. TCP keepalives (both
    sides) probe an idle connection after about ``statement`` seconds, so a peer that
    vanished between transactions is noticed too."""

    statement: float = 10.0
    connect: float = 10.0

    @property
    def silence(self) -> float:
        return self.statement * 1.5

    @property
    def keepalive(self) -> tuple[int, int, int]:
        """Seconds idle before the first probe, seconds between probes, probes."""
        return max(1, round(self.statement)), max(1, round(self.statement / 3)), 3

    def server_settings(self) -> dict[str, str]:
        ms = str(max(1, round(self.statement * 1000)))
        idle, interval, count = self.keepalive
        return {
            "statement_timeout": ms,
            "idle_in_transaction_session_timeout": str(round(self.silence * 1000)),
            "tcp_keepalives_idle": str(idle),
            "tcp_keepalives_interval": str(interval),
            "tcp_keepalives_count": str(count),
            "tcp_user_timeout": str(round(self.silence * 1000)),
        }


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

    def __init__(
        self,
        conn: asyncpg.Connection,
        url: str = "",
        timeouts: Timeouts | None = None,
        started: datetime | None = None,
    ) -> None:
        self.raw = conn
        self.url = url  # to open a new session when this one is lost
        self.timeouts = timeouts  # None: nothing bounded (tools, tests)
        # the server session: ended by ``reconnect`` if it outlived its client
        self.pid: int = conn.get_server_pid()
        self.started = started

    def lost(self) -> bool:
        """Is the session gone (terminated, the server restarted, the network cut, or
        given up by ``abandon``)?"""
        return bool(self.raw.is_closed())

    def abandon(self) -> None:
        """Give the session up at once, without a word to the server (it stopped
        answering, or its state is unknown); the next transaction opens a new one."""
        if not self.raw.is_closed():
            log.warning("the PostgreSQL session %s stopped answering; giving it up", self.pid)
        self.raw.terminate()

    def execute(self, sql: str, parameters: Iterable[Any] | None = None) -> Any:
        return _Statement(self.raw, sql, tuple(parameters or ()))

    async def executemany(self, sql: str, parameters: Iterable[Iterable[Any]]) -> None:
        rows = [tuple(row) for row in parameters]
        if rows:
            await self.raw.executemany(translate(sql), rows)

    async def close(self) -> None:
        if self.timeouts is None:
            await self.raw.close()
        else:  # a silent server must not hold up the shutdown
            await self.raw.close(timeout=self.timeouts.silence)


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


def _keep_alive(conn: asyncpg.Connection, timeouts: Timeouts) -> None:
    """TCP keepalives on the client's socket (a Unix socket has none)."""
    transport = getattr(conn, "_transport", None)  # asyncpg offers no public way
    sock = transport.get_extra_info("socket") if transport is not None else None
    if sock is None or sock.family not in (socket.AF_INET, socket.AF_INET6):
        return
    idle, interval, count = timeouts.keepalive
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
    for option, value in (
        ("TCP_KEEPIDLE", idle),
        ("TCP_KEEPINTVL", interval),
        ("TCP_KEEPCNT", count),
        ("TCP_USER_TIMEOUT", round(timeouts.silence * 1000)),
    ):
        if hasattr(socket, option):  # Linux has them all
            sock.setsockopt(socket.IPPROTO_TCP, getattr(socket, option), value)


async def connect(url: str, timeouts: Timeouts | None = None) -> asyncpg.Connection:
    """A connection to ``url`` (extra query parameters are server settings, and win
    over the ones ``timeouts`` sets), bounded by ``timeouts`` if given."""
    if timeouts is None:
        return await asyncpg.connect(url)
    given = parse_qs(urlsplit(url).query)
    settings = {k: v for k, v in timeouts.server_settings().items() if k not in given}
    conn = await asyncpg.connect(
        url,
        timeout=timeouts.connect,
        command_timeout=timeouts.silence,
        server_settings=settings,
    )
    _keep_alive(conn, timeouts)
    return conn


async def _identified(
    conn: asyncpg.Connection, url: str, timeouts: Timeouts | None
) -> PgConnection:
    """The working session, with what identifies it on the server (pid and start)."""
    try:
        started = await conn.fetchval(
            "SELECT backend_start FROM pg_stat_activity WHERE pid = pg_backend_pid()"
        )
    except BaseException:
        conn.terminate()
        raise
    return PgConnection(conn, url, timeouts, started)


async def open_database(url: str, timeouts: Timeouts | None = None) -> PgConnection:
    """Connect and migrate to the latest schema. With ``timeouts``, the migrations run on
    a session of their own, with no time bound (a large one may take long)."""
    conn = await connect(url)
    try:
        await migrate(conn)
    except BaseException:
        await conn.close()
        raise
    if timeouts is not None:
        await conn.close()
        conn = await connect(url, timeouts)
    return await _identified(conn, url, timeouts)


async def reconnect(lost: PgConnection) -> PgConnection:
    """A new session to the database of a lost one (already migrated: no migrations).

    The old server session is ended first if it is still there (its client gave it up,
    but the server may not know): a transaction it left open then rolls back, or its
    COMMIT has landed, before anything runs on the new one, and the guilds' advisory
    locks it held are free for the new one to take again."""
    lost.abandon()  # nothing to close cleanly on a dead socket
    new = await _identified(await connect(lost.url, lost.timeouts), lost.url, lost.timeouts)
    try:
        await _end_session(new.raw, lost)
    except BaseException:
        new.raw.terminate()
        raise
    return new


async def _end_session(conn: asyncpg.Connection, old: PgConnection) -> None:
    """Terminate ``old``'s server session (same pid and start: never another's) and wait
    until it is gone, at most ``timeouts.connect`` seconds."""
    if old.started is None:  # not known on the server (a test's stand-in)
        return
    args = (old.pid, old.started)
    same = "FROM pg_stat_activity WHERE pid = $1 AND backend_start = $2"
    try:
        if not await conn.fetchval(f"SELECT count(*) {same}", *args):
            return
        log.warning("ending the old PostgreSQL session %s before using the new one", old.pid)
        await conn.fetchval(f"SELECT pg_terminate_backend(pid) {same}", *args)
    except asyncpg.InsufficientPrivilegeError:
        log.warning("may not end the old PostgreSQL session %s; it ends on its own", old.pid)
        return
    loop = asyncio.get_running_loop()
    until = loop.time() + (old.timeouts or Timeouts()).connect
    while await conn.fetchval(f"SELECT count(*) {same}", *args):
        if loop.time() > until:
            log.warning("the old PostgreSQL session %s is still there", old.pid)
            return
        await asyncio.sleep(0.01)
