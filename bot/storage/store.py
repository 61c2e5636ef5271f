"""``Store``: one database and its repositories, composed (no method restates theirs).

Code above the storage layer holds a Store and calls a query where it is written,
in its repository: ``store.tables`` (``tables.Tables``: tables, seats, messages),
``store.ledger`` (``ledger.Ledger``: accounts, refills, leaderboard), ``store.hands``
(``hands.Hands``: the writes of play), ``store.history`` (``history.History``: hand
records and recent hands), ``store.server`` (``server.Server``: settings, a player's
data, erase), ``store.ownership`` (``ownership.Ownership``: guild claims),
``store.dms`` (the presenter's DM channels) and the read-only ``exports``, ``stats``,
``tournaments``, ``seasons``, ``multi_tables``; all over one ``database.Database``
(``store.db``: connection, lock, transactions, group commit). The Store itself only
opens, repairs, pings and closes. Backends: the same code runs on SQLite (a file path)
and PostgreSQL (a ``postgresql://`` URL); ``backend.py``, ``sqlite.py`` and
``postgres.py`` hold all that differs.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path
from types import TracebackType

from bot.storage.backend import Connection, Timeouts, open_connection
from bot.storage.database import Clock, Database, DbMetrics, one
from bot.storage.dm_channels import DmChannels
from bot.storage.exports import ExportRows
from bot.storage.hand_records import History
from bot.storage.hands import Hands
from bot.storage.ledger import Ledger
from bot.storage.multi_table import MultiTables
from bot.storage.ownership import GuildsLost, Ownership
from bot.storage.player_stats import Stats
from bot.storage.seasons import Seasons
from bot.storage.server import Server
from bot.storage.tables import Tables
from bot.storage.tournaments import Tournaments

log = logging.getLogger(__name__)


class Store:
    """Async persistence API over one database connection. See the module docstring."""

    def __init__(
        self,
        conn: Connection,
        clock: Clock = time.time,
        on_guilds_lost: GuildsLost | None = None,
        metrics: DbMetrics | None = None,
    ) -> None:
        """``on_guilds_lost(guild_ids)`` is called when a new PostgreSQL session (after a
        lost one) cannot re-claim guilds this process had claimed: another process runs
        them now, so this one must stop serving them (its writes there are refused).
        ``metrics``: what the database counts into (None: ``database.default_metrics``)."""
        self.db = Database(conn, clock, metrics)  # the connection, its lock, transactions
        self.tables = Tables(self.db)  # tables, seats, table messages
        self.ledger = Ledger(self.db)  # accounts, refills, leaderboard
        self.hands = Hands(self.db, self.ledger, self.tables)  # the writes of play
        self.history = History(self.db)  # hand records, live hands, recent hands
        self.server = Server(self.db, self.ledger)  # guild settings, a player's data, erase
        self.ownership = Ownership(self.db, on_guilds_lost)  # guild claims
        self.dms = DmChannels(self.db)  # the presenter's DM channels
        # read-only views for /replay, /export and /stats (bot/history builds on them)
        self.exports = ExportRows(self.db)
        self.stats = Stats(self.db)
        self.tournaments = Tournaments(self.db)  # Sit & Gos (bot/tournaments drives them)
        self.seasons = Seasons(self.db)  # seasons and their standings (issue 37)
        self.multi_tables = MultiTables(self.db, self.tournaments)  # issue 37

    @classmethod
    async def open(
        cls,
        target: str | Path,
        clock: Clock = time.time,
        timeouts: Timeouts | None = None,
        on_guilds_lost: GuildsLost | None = None,
        metrics: DbMetrics | None = None,
    ) -> Store:
        """Open a SQLite file path or a ``postgresql://`` URL, migrated and repaired: a live
        hand whose table is closed (left by a close that came between a hand's last action
        and its settlement, before the database refused such closes) is cancelled.
        ``timeouts`` bound PostgreSQL (see ``postgres.Timeouts``); None: unbounded.
        ``on_guilds_lost`` and ``metrics``: see the constructor."""
        store = cls(await open_connection(target, timeouts), clock, on_guilds_lost, metrics)
        try:
            for hand_id, channel_id in await store.hands.repair_orphans():
                log.warning(
                    "cancelled live hand #%d: its table in channel %d is closed; "
                    "every player got back what they had put in and their holds were released",
                    hand_id,
                    channel_id,
                )
        except BaseException:
            await store.close()
            raise
        return store

    async def close(self) -> None:
        await self.hands.appends.drain()  # appends already accepted still get written
        await self.db.close()

    async def __aenter__(self) -> Store:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    async def ping(self) -> None:
        """One query (on a new session if the old one was lost): the health check's."""
        async with self.db.read() as conn:
            await one(conn, "SELECT 1")
