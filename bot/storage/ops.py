"""Operations on the database behind ``python -m bot COMMAND`` (``bot/operations.py``,
docs/operations.md).

* ``migrate``: apply the migrations the database lacks (SQLite file or PostgreSQL),
  print the version. The bot does this at start-up too; run it on its own to migrate
  before starting several processes, or to check a database.
* ``export --guild ID``: one server's ledger as JSON (accounts, every ledger entry,
  every hand's players and results), on standard output or ``--output FILE``.
* ``copy-sqlite-to-postgres``: move a SQLite ledger (DATABASE_PATH, or ``--sqlite``)
  into an empty PostgreSQL database (DATABASE_URL, or ``--url``). One transaction:
  every table is copied, then every account's balance, grant, refills, winnings,
  hands played and held chips, each account's ledger sum and every table's row count
  are compared with the SQLite file; any difference rolls the whole copy back.

Settings come from the environment / ``.env`` as for the bot; no token is needed.
A PostgreSQL URL is never printed (it may hold a password).
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Sequence
from decimal import Decimal
from pathlib import Path
from typing import Any

import asyncpg

from bot.storage import postgres, sqlite
from bot.storage.backend import Connection, open_connection

COMMANDS = ("migrate", "export", "copy-sqlite-to-postgres")


class OperationFailed(Exception):
    """A command could not do its work; the message is one line for the operator."""


def describe(target: str | Path) -> str:
    return (
        "the PostgreSQL database (DATABASE_URL)"
        if postgres.is_postgres_url(target)
        else (f"the SQLite file {target}")
    )


def _plain(value: Any) -> Any:
    return int(value) if isinstance(value, Decimal) else value


async def _rows(conn: Connection, sql: str, args: Sequence[Any] = ()) -> list[dict[str, Any]]:
    async with conn.execute(sql, args) as cursor:
        return [{k: _plain(v) for k, v in dict(row).items()} for row in await cursor.fetchall()]


# ---------------------------------------------------------------- migrate


async def migrate(target: str | Path) -> int:
    conn = await open_connection(target)  # migrates
    try:
        if isinstance(conn, postgres.PgConnection):
            return await postgres.schema_version(conn.raw)
        return await sqlite.schema_version(conn)  # type: ignore[arg-type]
    finally:
        await conn.close()


# ---------------------------------------------------------------- export

_HELD = """COALESCE((SELECT SUM(hp.hold) FROM hand_players hp JOIN hands h USING (hand_id)
    JOIN people p ON p.person_id = hp.person_id
    WHERE p.guild_id = a.guild_id AND p.user_id = a.user_id AND h.status = 'live'), 0)"""


async def export_guild(target: str | Path, guild_id: int) -> dict[str, Any]:
    """Everything the ledger holds about one guild, as plain JSON-ready data."""
    conn = await open_connection(target)
    try:
        accounts = await _rows(
            conn,
            "SELECT a.user_id, a.display_name, a.balance, "
            f"{_HELD} AS held, a.granted, a.refilled, a.net_won, a.hands_played, a.created_at "
            "FROM accounts a WHERE a.guild_id = ? ORDER BY a.user_id",
            (guild_id,),
        )
        ledger = await _rows(
            conn,
            "SELECT l.entry_id, p.user_id, l.kind, l.amount, l.hand_id, l.balance_after, "
            "l.created_at FROM ledger l JOIN people p ON p.person_id = l.person_id "
            "WHERE l.guild_id = ? ORDER BY l.entry_id",
            (guild_id,),
        )
        hands = await _rows(
            conn,
            "SELECT hand_id, channel_id, variant, status, started_at, completed_at "
            "FROM hands WHERE guild_id = ? ORDER BY hand_id",
            (guild_id,),
        )
        players = await _rows(
            conn,
            "SELECT hp.hand_id, hp.seat, p.user_id, hp.hold, hp.net FROM hand_players hp "
            "JOIN people p ON p.person_id = hp.person_id WHERE hp.guild_id = ? "
            "ORDER BY hp.hand_id, hp.seat",
            (guild_id,),
        )
    finally:
        await conn.close()
    seated: dict[int, list[dict[str, Any]]] = {}
    for player in players:
        seated.setdefault(player.pop("hand_id"), []).append(player)
    for account in accounts:
        account["available"] = account["balance"] - account["held"]
    for hand in hands:
        hand["players"] = seated.get(hand["hand_id"], [])
    return {
        "guild_id": guild_id,
        "exported_at": time.time(),
        "accounts": accounts,
        "ledger": ledger,
        "hands": hands,
    }


# ---------------------------------------------------------------- copy SQLite -> PostgreSQL


def _sqlite_tables(conn: sqlite3.Connection) -> list[str]:
    """The bot's tables, each after the tables its foreign keys reference."""
    names = [
        r[0]
        for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
            "ORDER BY name"
        )
    ]
    needs = {
        name: {r[2] for r in conn.execute(f"PRAGMA foreign_key_list({name})")} - {name}
        for name in names
    }
    ordered: list[str] = []
    while len(ordered) < len(names):
        ready = [n for n in names if n not in ordered and needs[n] <= set(ordered)]
        if not ready:
            raise OperationFailed(
                f"circular foreign keys among {sorted(set(names) - set(ordered))}"
            )
        ordered.extend(ready)
    return ordered


async def _coerce(pg: asyncpg.Connection, table: str) -> dict[str, type]:
    """PostgreSQL's column types as Python converters (COPY wants exact types)."""
    types = await pg.fetch(
        "SELECT column_name, data_type FROM information_schema.columns "
        "WHERE table_schema = current_schema() AND table_name = $1",
        table,
    )
    kinds = {"bigint": int, "integer": int, "smallint": int, "double precision": float}
    return {r["column_name"]: kinds.get(r["data_type"], str) for r in types}


_CHECK = f"""
SELECT a.guild_id, a.user_id, a.balance, a.granted, a.refilled, a.net_won, a.hands_played,
       {_HELD} AS held,
       COALESCE((SELECT SUM(l.amount) FROM ledger l JOIN people p ON p.person_id = l.person_id
                 WHERE p.guild_id = a.guild_id AND p.user_id = a.user_id), 0) AS ledger_sum
FROM accounts a ORDER BY a.guild_id, a.user_id
"""


async def copy_sqlite_to_postgres(path: Path, url: str) -> dict[str, int]:
    """Copy and verify; return the row count of each table. See the module docstring."""
    if not path.is_file():
        raise OperationFailed(f"no SQLite database at {path}")
    source = await open_connection(path)  # brought to the latest schema first
    await source.close()
    await (await open_connection(url)).close()  # so is the target
    lite = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    pg = await postgres.connect(url)
    try:
        tables = _sqlite_tables(lite)
        lite.execute("BEGIN")  # one snapshot of the file
        async with pg.transaction():
            for table in tables:
                if await pg.fetchval(f"SELECT EXISTS (SELECT 1 FROM {table})"):
                    raise OperationFailed(
                        f"the PostgreSQL database already has rows in {table}: "
                        "copy only into an empty database"
                    )
            counts: dict[str, int] = {}
            for table in tables:
                cursor = lite.execute(f"SELECT * FROM {table}")
                columns = [d[0] for d in cursor.description]
                kinds = await _coerce(pg, table)
                rows = [
                    tuple(
                        None if v is None else kinds[c](v)
                        for c, v in zip(columns, row, strict=True)
                    )
                    for row in cursor
                ]
                # The ledger guards judge new play, not history (actions of finished
                # hands, holds of old hands): off for this transaction only.
                await pg.execute(f"ALTER TABLE {table} DISABLE TRIGGER USER")
                await pg.copy_records_to_table(table, records=rows, columns=columns)
                await pg.execute(f"ALTER TABLE {table} ENABLE TRIGGER USER")
                counts[table] = len(rows)
            for table, column in (
                ("hands", "hand_id"),
                ("ledger", "entry_id"),
                ("people", "person_id"),
                ("tournaments", "tournament_id"),
            ):
                await pg.execute(
                    f"SELECT setval(pg_get_serial_sequence('{table}', '{column}'), "
                    f"COALESCE((SELECT MAX({column}) FROM {table}), 0) + 1, false)"
                )
            _verify(lite, pg_rows=await pg.fetch(postgres.translate(_CHECK)), tables=tables)
            for table in tables:
                if await pg.fetchval(f"SELECT COUNT(*) FROM {table}") != counts[table]:
                    raise OperationFailed(f"{table}: row counts differ after the copy")
    finally:
        lite.close()
        await pg.close()
    return counts


def _verify(lite: sqlite3.Connection, pg_rows: list[Any], tables: list[str]) -> None:
    """Every account identical on both sides, and consistent with its ledger."""
    before = [tuple(r) for r in lite.execute(_CHECK)]
    after = [tuple(_plain(v) for v in r.values()) for r in pg_rows]
    if len(before) != len(after):
        raise OperationFailed(f"{len(before)} accounts in SQLite but {len(after)} copied")
    for old, new in zip(before, after, strict=True):
        if old != new:
            raise OperationFailed(f"account {old[:2]} differs after the copy: {old} != {new}")
        if new[2] != new[8]:  # balance == Σ ledger
            raise OperationFailed(
                f"account {new[:2]}: balance {new[2]} but ledger sums to {new[7]}"
            )
