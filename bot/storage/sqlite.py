"""Opening the SQLite file: durable PRAGMAs, and running the migrations on it.

Durability choice: WAL with ``synchronous=FULL``. In WAL mode ``NORMAL`` only
syncs at checkpoints, so a power cut can lose the last commits; chip movements
reported to players must survive that, so every commit syncs the WAL.

Migrations (``migrations.MIGRATIONS``): the version is kept in ``PRAGMA user_version``.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sqlite3
from pathlib import Path

import aiosqlite

from bot.storage.connection import Connection
from bot.storage.migrations import MIGRATIONS

PRAGMAS: tuple[str, ...] = (
    "PRAGMA journal_mode = WAL",
    "PRAGMA synchronous = FULL",
    "PRAGMA foreign_keys = ON",
    "PRAGMA busy_timeout = 5000",
)


def _comment(line: str) -> bool:
    return line.strip().startswith("--")


def split_statements(script: str) -> list[str]:
    """Split a script into statements (trigger bodies stay whole).

    Not ``executescript``: it COMMITs any open transaction first, which would
    break running a migration and its version bump atomically.
    """
    statements: list[str] = []
    *pieces, tail = script.split(";")
    pending = ""
    for piece in pieces:
        pending += piece + ";"
        if sqlite3.complete_statement(pending):
            if pending.strip(" \n\t;"):
                statements.append(pending.strip())
            pending = ""
    pending += tail  # after the last ';': only comments/blanks are allowed
    if any(line.strip() and not _comment(line) for line in pending.splitlines()):
        raise ValueError(f"incomplete SQL statement: {pending.strip()[:60]!r}")
    return statements


async def connect(path: str | Path) -> aiosqlite.Connection:
    """Open (creating parent directories) with the durable PRAGMAs, no migrations.

    ``isolation_level=None``: the caller issues BEGIN/COMMIT itself, so a
    transaction spans exactly what the code says.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = await aiosqlite.connect(path, isolation_level=None)
    try:
        for pragma in PRAGMAS:
            await conn.execute(pragma)
        async with conn.execute("PRAGMA journal_mode") as cursor:
            mode = (await cursor.fetchone() or ("?",))[0]
        if str(mode).lower() != "wal":
            raise RuntimeError(f"could not enable WAL on {path} (journal_mode={mode})")
    except BaseException:
        await conn.close()
        raise
    return conn


async def rollback_quietly(conn: Connection) -> None:
    """Roll back if a transaction is open; SQLite may already have ended it."""
    # "no transaction is active" means there is nothing to undo.
    with contextlib.suppress(sqlite3.OperationalError):
        await conn.execute("ROLLBACK")


async def schema_version(conn: aiosqlite.Connection) -> int:
    async with conn.execute("PRAGMA user_version") as cursor:
        row = await cursor.fetchone()
    return int(row[0]) if row else 0


async def migrate(conn: aiosqlite.Connection, migrations: list[str] | None = None) -> int:
    """Apply the migrations the file lacks, one transaction each; return the version."""
    migrations = MIGRATIONS if migrations is None else migrations
    for target, script in enumerate(migrations, start=1):
        await conn.execute("BEGIN IMMEDIATE")
        try:
            # Read inside the write lock so two processes cannot both apply it.
            if await schema_version(conn) >= target:
                await conn.execute("ROLLBACK")
                continue
            for statement in split_statements(script):
                await conn.execute(statement)
            await conn.execute(f"PRAGMA user_version = {target}")
            await conn.execute("COMMIT")
        except BaseException:
            await rollback_quietly(conn)
            raise
    version = await schema_version(conn)
    if version > len(migrations):
        raise RuntimeError(
            f"database schema v{version} is newer than this code (v{len(migrations)})"
        )
    return version


class DatabaseProblem(Exception):
    """The database cannot be used as it is; the message is one line naming the file and why.

    Raised by ``open_database`` before anything is written to an existing file.
    """


async def open_database(path: str | Path) -> aiosqlite.Connection:
    """Open the bot's database, migrated to the latest schema.

    A file that is not a usable bot database (a directory, not SQLite, damaged, read-only,
    a newer schema, a path that cannot be created) raises DatabaseProblem, and the file
    is left exactly as it was: it is checked read-only before the PRAGMAs switch it to WAL.
    """
    path = Path(path)
    problem = await asyncio.to_thread(_problem, path)
    if problem is not None:
        raise DatabaseProblem(f"database {path} {problem}")
    try:
        conn = await connect(path)
    except (sqlite3.Error, OSError, RuntimeError) as exc:
        raise DatabaseProblem(f"database {path} cannot be opened: {_reason(exc)}") from None
    try:
        await migrate(conn)
    except BaseException as exc:
        await conn.close()
        if isinstance(exc, sqlite3.Error | OSError | RuntimeError):
            raise DatabaseProblem(f"database {path} cannot be migrated: {_reason(exc)}") from None
        raise
    return conn


def _reason(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


def _problem(path: Path) -> str | None:
    """Why ``path`` cannot hold the bot's database, or None; reads but never writes it.

    A new file is created empty here (as SQLite would), so every OS-level refusal is
    reported with the OS's own reason rather than SQLite's "unable to open database file".
    """
    if path.is_dir():
        return "is a directory, not a SQLite file"
    blocker = next((p for p in path.parents if p.exists() and not p.is_dir()), None)
    if blocker is not None:
        return f"cannot be created: {blocker} is a file, not a folder"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        return f"cannot be created: its folder cannot be made ({exc.strerror})"
    existed = path.exists()
    if existed and not path.is_file():
        return "is not a regular file"
    try:  # read-write, as the bot needs it; O_RDWR alone changes nothing in the file
        os.close(os.open(path, os.O_RDWR | (0 if existed else os.O_CREAT | os.O_EXCL), 0o644))
    except OSError as exc:
        if existed:
            return f"cannot be written ({exc.strerror}): is it read-only?"
        return f"cannot be created ({exc.strerror})"
    if not existed:
        return None
    try:
        # immutable=1: read the file as it lies, creating no -wal/-shm beside it.
        with contextlib.closing(
            sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro&immutable=1", uri=True)
        ) as probe:
            version = int(probe.execute("PRAGMA user_version").fetchone()[0])
            probe.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except sqlite3.DatabaseError as exc:
        if "not a database" in str(exc):
            return "is not a SQLite database"
        return f"is damaged ({_reason(exc)}): restore it from a backup"
    if version > len(MIGRATIONS):
        return (
            f"has schema v{version}, newer than this code (v{len(MIGRATIONS)}): "
            "run the version of the bot that wrote it"
        )
    return None
