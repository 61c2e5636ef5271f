"""Opening the SQLite file: durable PRAGMAs and versioned migrations.

Durability choice: WAL with ``synchronous=FULL``. In WAL mode ``NORMAL`` only
syncs at checkpoints, so a power cut can lose the last commits; chip movements
reported to players must survive that, so every commit syncs the WAL.

Migrations: ``MIGRATIONS[i]`` brings the schema from version ``i`` to ``i + 1``
(version kept in ``PRAGMA user_version``). Each runs in its own transaction
together with the version bump, so a crash leaves the file at a whole version.
Never edit a released migration; append a new one.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sqlite3
from pathlib import Path

import aiosqlite

from bot.storage.connection import Connection
from bot.storage.dm_channels import DM_CHANNELS_MIGRATION

PRAGMAS: tuple[str, ...] = (
    "PRAGMA journal_mode = WAL",
    "PRAGMA synchronous = FULL",
    "PRAGMA foreign_keys = ON",
    "PRAGMA busy_timeout = 5000",
)

_V1 = """
CREATE TABLE tables (
    channel_id    INTEGER PRIMARY KEY,
    guild_id      INTEGER NOT NULL,
    variant       TEXT    NOT NULL,
    settings_json TEXT    NOT NULL DEFAULT '{}',
    button        INTEGER,
    turn_deadline REAL,
    open          INTEGER NOT NULL DEFAULT 1 CHECK (open IN (0, 1)),
    updated_at    REAL    NOT NULL
);

CREATE TABLE seats (
    channel_id      INTEGER NOT NULL REFERENCES tables (channel_id) ON DELETE CASCADE,
    seat            INTEGER NOT NULL CHECK (seat >= 0),
    user_id         INTEGER NOT NULL,
    display_name    TEXT    NOT NULL,
    sitting_out     INTEGER NOT NULL DEFAULT 0 CHECK (sitting_out IN (0, 1)),
    leaving         INTEGER NOT NULL DEFAULT 0 CHECK (leaving IN (0, 1)),
    timeouts_in_row INTEGER NOT NULL DEFAULT 0 CHECK (timeouts_in_row >= 0),
    PRIMARY KEY (channel_id, seat),
    UNIQUE (channel_id, user_id)
);

-- balance = granted + refilled + net_won is kept by the Store and checked in tests.
CREATE TABLE accounts (
    guild_id     INTEGER NOT NULL,
    user_id      INTEGER NOT NULL,
    display_name TEXT    NOT NULL,
    balance      INTEGER NOT NULL CHECK (balance >= 0),
    granted      INTEGER NOT NULL CHECK (granted >= 0),
    refilled     INTEGER NOT NULL DEFAULT 0 CHECK (refilled >= 0),
    net_won      INTEGER NOT NULL DEFAULT 0,
    hands_played INTEGER NOT NULL DEFAULT 0 CHECK (hands_played >= 0),
    created_at   REAL    NOT NULL,
    PRIMARY KEY (guild_id, user_id)
);

CREATE TABLE hands (
    hand_id      INTEGER PRIMARY KEY AUTOINCREMENT,
    guild_id     INTEGER NOT NULL,
    channel_id   INTEGER NOT NULL,
    variant      TEXT    NOT NULL,
    header_json  TEXT    NOT NULL,
    status       TEXT    NOT NULL DEFAULT 'live' CHECK (status IN ('live', 'complete')),
    started_at   REAL    NOT NULL,
    completed_at REAL
);
CREATE INDEX hands_by_status ON hands (status);

-- One row per player of a hand. A hold counts against the account's
-- available chips while the hand is live; completing the hand releases it.
CREATE TABLE hand_players (
    hand_id  INTEGER NOT NULL REFERENCES hands (hand_id),
    seat     INTEGER NOT NULL CHECK (seat >= 0),
    guild_id INTEGER NOT NULL,
    user_id  INTEGER NOT NULL,
    hold     INTEGER NOT NULL CHECK (hold >= 0),
    net      INTEGER,
    PRIMARY KEY (hand_id, seat),
    UNIQUE (hand_id, user_id),
    FOREIGN KEY (guild_id, user_id) REFERENCES accounts (guild_id, user_id)
);
CREATE INDEX hand_players_by_user ON hand_players (guild_id, user_id);

CREATE TABLE hand_actions (
    hand_id     INTEGER NOT NULL REFERENCES hands (hand_id),
    idx         INTEGER NOT NULL CHECK (idx >= 0),
    action_json TEXT    NOT NULL,
    created_at  REAL    NOT NULL,
    PRIMARY KEY (hand_id, idx)
);

CREATE TABLE hand_reshuffles (
    hand_id    INTEGER NOT NULL REFERENCES hands (hand_id),
    idx        INTEGER NOT NULL CHECK (idx >= 0),
    cards_json TEXT    NOT NULL,
    created_at REAL    NOT NULL,
    PRIMARY KEY (hand_id, idx)
);

CREATE TABLE ledger (
    entry_id      INTEGER PRIMARY KEY AUTOINCREMENT,
    guild_id      INTEGER NOT NULL,
    user_id       INTEGER NOT NULL,
    kind          TEXT    NOT NULL CHECK (kind IN ('grant', 'refill', 'hand')),
    amount        INTEGER NOT NULL,
    hand_id       INTEGER REFERENCES hands (hand_id),
    balance_after INTEGER NOT NULL,
    created_at    REAL    NOT NULL,
    FOREIGN KEY (guild_id, user_id) REFERENCES accounts (guild_id, user_id),
    CHECK ((kind = 'hand') = (hand_id IS NOT NULL))
);
-- Second line of defence for "a hand pays out exactly once".
CREATE UNIQUE INDEX ledger_hand_once ON ledger (hand_id, user_id) WHERE hand_id IS NOT NULL;
CREATE INDEX ledger_by_user ON ledger (guild_id, user_id);
"""

# v2: the Discord message that shows each table, so it is edited in place after a restart.
_V2 = """
CREATE TABLE table_messages (
    channel_id INTEGER PRIMARY KEY,
    message_id INTEGER NOT NULL
);
"""

# v3: the database itself refuses what would break the ledger, whatever the code does:
# a hold beyond the available chips (balance - holds of live hands), a loss beyond
# the hold, a second settlement, an action appended to a finished hand.
LEDGER_GUARDS = """
CREATE TRIGGER hold_within_available BEFORE INSERT ON hand_players
WHEN NEW.hold > (SELECT balance FROM accounts
                 WHERE guild_id = NEW.guild_id AND user_id = NEW.user_id)
     - (SELECT COALESCE(SUM(hp.hold), 0) FROM hand_players hp JOIN hands h USING (hand_id)
        WHERE hp.guild_id = NEW.guild_id AND hp.user_id = NEW.user_id AND h.status = 'live')
BEGIN SELECT RAISE(ABORT, 'hold exceeds available chips'); END;

CREATE TRIGGER loss_within_hold BEFORE UPDATE OF net ON hand_players
WHEN NEW.net < -NEW.hold
BEGIN SELECT RAISE(ABORT, 'a player loses more than the hold'); END;

CREATE TRIGGER settled_once BEFORE UPDATE OF status ON hands
WHEN OLD.status = 'complete'
BEGIN SELECT RAISE(ABORT, 'a completed hand is final'); END;

CREATE TRIGGER action_to_live_hand BEFORE INSERT ON hand_actions
WHEN NOT EXISTS (SELECT 1 FROM hands WHERE hand_id = NEW.hand_id AND status = 'live')
BEGIN SELECT RAISE(ABORT, 'append to a hand that is not live'); END;

CREATE TRIGGER reshuffle_to_live_hand BEFORE INSERT ON hand_reshuffles
WHEN NOT EXISTS (SELECT 1 FROM hands WHERE hand_id = NEW.hand_id AND status = 'live')
BEGIN SELECT RAISE(ABORT, 'append to a hand that is not live'); END;
"""

# v4: per-server settings (issue 9), and hands cancelled by a forced close (every
# player gets back what they put in: nets of 0, shown as cancelled).
SERVER_CONTROLS = """
CREATE TABLE guild_settings (
    guild_id         INTEGER PRIMARY KEY,
    allowed_channels TEXT    NOT NULL DEFAULT '[]',  -- JSON list of channel ids; [] = any
    moderator_role   INTEGER,                        -- NULL: Manage Channels only
    turn_timeout     REAL,                           -- NULL: the bot's default
    auto_deal        INTEGER CHECK (auto_deal IN (0, 1)),  -- NULL: the bot's default
    open_by          TEXT    NOT NULL DEFAULT 'anyone' CHECK (open_by IN ('anyone', 'moderators')),
    language         TEXT    NOT NULL DEFAULT 'auto',
    updated_at       REAL    NOT NULL
);
ALTER TABLE hands ADD COLUMN cancelled INTEGER NOT NULL DEFAULT 0 CHECK (cancelled IN (0, 1));
"""

# v5: on PostgreSQL, writes for a guild whose advisory lock another session holds are
# refused (sharded processes: postgres.DIALECT). A SQLite file has one process: nothing.
GUILD_OWNER_GUARD = """
-- PostgreSQL only: see bot/storage/postgres.py
"""

# v6: each hand keeps its players' display names, so a result or a restarted hand names
# a player who has left the table meanwhile (NULL for hands stored before).
HAND_NAMES = """
ALTER TABLE hand_players ADD COLUMN display_name TEXT;
"""

# v7: practice tables (issue 11): computer players' seats (``bot``: their level), the
# practice stacks everyone plays from there, and hands that move no chips: a practice
# hand's players hold nothing and their results go to ``practice_net``, never the ledger.
PRACTICE = """
ALTER TABLE seats ADD COLUMN bot TEXT;
ALTER TABLE seats ADD COLUMN practice_stack INTEGER;
ALTER TABLE hands ADD COLUMN practice INTEGER NOT NULL DEFAULT 0;
ALTER TABLE hand_players ADD COLUMN practice_net INTEGER;
"""

# PostgreSQL runs this same list (bot/storage/postgres.py maps the column types);
# a migration using SQLite-only syntax needs its PostgreSQL text in postgres.DIALECT.
MIGRATIONS: list[str] = [
    _V1,
    _V2,
    LEDGER_GUARDS,
    SERVER_CONTROLS,
    GUILD_OWNER_GUARD,
    HAND_NAMES,
    PRACTICE,
    DM_CHANNELS_MIGRATION,  # v8 (issue 22)
]


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
