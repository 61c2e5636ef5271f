"""The part of a database connection the Store uses (aiosqlite's, or postgres.PgConnection)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Protocol

Row = Any  # sqlite3.Row or asyncpg.Record: both index by column name and by position


class Connection(Protocol):
    """The part of aiosqlite's connection the Store uses; ``execute`` returns
    something to await (a cursor with ``rowcount``) or to ``async with``
    (a cursor with ``fetchone``/``fetchall``)."""

    def execute(self, sql: str, parameters: Iterable[Any] | None = None) -> Any: ...

    def executemany(self, sql: str, parameters: Iterable[Iterable[Any]]) -> Any: ...

    async def close(self) -> None: ...
