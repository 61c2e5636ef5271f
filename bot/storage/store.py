"""``Store``: the storage facade, one object over the database and its repositories.

Code above the storage layer holds a Store (typed as ``api.Storage``) and calls
its methods; each is one transaction of one repository: ``tables.Tables``
(tables, seats, messages), ``ledger.Ledger`` (accounts, refills, leaderboard),
``hands.Hands`` (the writes of play), ``history.History`` (hand records and
recent hands), ``server.Server`` (settings, a player's data, erase) and
``ownership.Ownership`` (guild claims), all composed over one
``database.Database`` (connection, lock, transactions, group commit). Backends:
the same code runs on SQLite (a file path) and PostgreSQL (a ``postgresql://``
URL); ``backend.py``, ``sqlite.py`` and ``postgres.py`` hold all that differs.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any

from bot.storage.backend import Connection, Timeouts, open_connection
from bot.storage.database import Clock, Database, one
from bot.storage.dm_channels import DmChannel, DmChannels
from bot.storage.exports import Exports
from bot.storage.hands import Hands
from bot.storage.history import History
from bot.storage.ledger import Ledger
from bot.storage.multi_table import MultiTables
from bot.storage.ownership import GuildsLost, Ownership
from bot.storage.rows import (
    KEEP,
    Account,
    GuildSettings,
    HandSummary,
    LeaderboardRow,
    LiveHand,
    PlayerData,
    SeatRow,
    TableRow,
)
from bot.storage.seasons import Seasons
from bot.storage.server import Server
from bot.storage.stats import Stats
from bot.storage.tables import Tables
from bot.storage.tournaments import Tournaments

log = logging.getLogger(__name__)


class Store:
    """Async persistence API over one database connection. See the module docstring."""

    def __init__(
        self, conn: Connection, clock: Clock = time.time, on_guilds_lost: GuildsLost | None = None
    ) -> None:
        """``on_guilds_lost(guild_ids)`` is called when a new PostgreSQL session (after a
        lost one) cannot re-claim guilds this process had claimed: another process runs
        them now, so this one must stop serving them (its writes there are refused)."""
        self._db = Database(conn, clock)
        self._tables = Tables(self._db)
        self._ledger = Ledger(self._db)
        self._hands = Hands(self._db, self._ledger, self._tables)
        self._history = History(self._db)
        self._server = Server(self._db, self._ledger)
        self._owner = Ownership(self._db, on_guilds_lost)
        self._dms = DmChannels(self._db)
        # read-only views for /replay, /export and /stats (bot/history builds on them)
        self.exports = Exports(self._db)
        self.stats = Stats(self._db)
        self.tournaments = Tournaments(self._db)  # Sit & Gos (bot/tournaments drives them)
        self.seasons = Seasons(self._db)  # seasons and their standings (issue 37)
        self.multi_tables = MultiTables(self._db, self.tournaments)  # issue 37

    @classmethod
    async def open(
        cls,
        target: str | Path,
        clock: Clock = time.time,
        timeouts: Timeouts | None = None,
        on_guilds_lost: GuildsLost | None = None,
    ) -> Store:
        """Open a SQLite file path or a ``postgresql://`` URL, migrated and repaired: a live
        hand whose table is closed (left by a close that came between a hand's last action
        and its settlement, before the database refused such closes) is cancelled.
        ``timeouts`` bound PostgreSQL (see ``postgres.Timeouts``); None: unbounded.
        ``on_guilds_lost``: see the constructor."""
        store = cls(await open_connection(target, timeouts), clock, on_guilds_lost)
        try:
            for hand_id, channel_id in await store._hands.repair_orphans():
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

    @property
    def _conn(self) -> Connection:  # the raw connection, for tests that break it
        return self._db.conn

    @property
    def _lock(self) -> asyncio.Lock:  # the transaction lock, for tests that hold it
        return self._db.lock

    async def close(self) -> None:
        await self._hands.appends.drain()  # appends already accepted still get written
        await self._db.close()

    async def __aenter__(self) -> Store:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    # ------------------------------------------------------------ ownership

    async def claim_guild(self, guild_id: int) -> bool:
        """See ``ownership.Ownership.claim_guild``."""
        return await self._owner.claim_guild(guild_id)

    def claimed_guilds(self) -> frozenset[int]:
        """The guilds this process has claimed (see ``claim_guild``)."""
        return frozenset(self._owner.guilds)

    async def ping(self) -> None:
        """One query (on a new session if the old one was lost): the health check's."""
        async with self._db.read() as conn:
            await one(conn, "SELECT 1")

    # ------------------------------------------------------------ tables & seats

    async def save_table(self, table: TableRow, *, seats: Sequence[SeatRow] | None = None) -> int:
        return await self._tables.save_table(table, seats=seats)

    async def load_tables(self, include_closed: bool = False) -> list[TableRow]:
        return await self._tables.load_tables(include_closed)

    async def load_table(self, channel_id: int) -> TableRow | None:
        return await self._tables.load_table(channel_id)

    async def count_tables(self, guild_id: int, variant: str) -> int:
        return await self._tables.count_tables(guild_id, variant)

    async def close_table(self, channel_id: int, *, generation: int | None = None) -> None:
        await self._tables.close_table(channel_id, generation=generation)

    async def set_table_message(self, channel_id: int, message_id: int) -> None:
        await self._tables.set_table_message(channel_id, message_id)

    async def table_messages(self) -> dict[int, int]:
        return await self._tables.table_messages()

    async def dm_channels(self) -> dict[int, DmChannel]:
        """Every user's known DM channel, and whether it was found closed."""
        return await self._dms.all()

    async def dm_channel(self, user_id: int) -> DmChannel | None:
        return await self._dms.get(user_id)

    async def set_dm_channel(self, dm: DmChannel) -> None:
        await self._dms.save(dm)

    async def save_seats(
        self, channel_id: int, seats: Sequence[SeatRow], *, generation: int | None = None
    ) -> None:
        await self._tables.save_seats(channel_id, seats, generation=generation)

    async def load_seats(self, channel_id: int) -> list[SeatRow]:
        return await self._tables.load_seats(channel_id)

    async def load_seats_of(self, channel_ids: Collection[int]) -> dict[int, list[SeatRow]]:
        return await self._tables.load_seats_of(channel_ids)

    # ------------------------------------------------------------ accounts

    async def ensure_account(
        self, guild_id: int, user_id: int, display_name: str, grant: int
    ) -> Account:
        return await self._ledger.ensure_account(guild_id, user_id, display_name, grant)

    async def balance(self, guild_id: int, user_id: int) -> Account | None:
        return await self._ledger.balance(guild_id, user_id)

    async def refill(self, guild_id: int, user_id: int, grant: int, smallest_minimum: int) -> int:
        return await self._ledger.refill(guild_id, user_id, grant, smallest_minimum)

    async def leaderboard(
        self, guild_id: int, page: int, per_page: int = 10
    ) -> tuple[list[LeaderboardRow], int]:
        return await self._ledger.leaderboard(guild_id, page, per_page)

    # ------------------------------------------------------------ hands

    async def start_hand(
        self,
        guild_id: int,
        channel_id: int,
        variant: str,
        header: Mapping[str, Any],
        holds: Mapping[int, int],
        seat_users: Sequence[int],
        names: Mapping[int, str] | None = None,
        *,
        button: int | None = KEEP,
        deadline: float | None = KEEP,
        practice: bool = False,
        seats: Sequence[SeatRow] | None = None,
        settings: Mapping[str, Any] | None = KEEP,
        generation: int | None = None,
    ) -> int:
        return await self._hands.start_hand(
            guild_id,
            channel_id,
            variant,
            header,
            holds,
            seat_users,
            names,
            button=button,
            deadline=deadline,
            practice=practice,
            seats=seats,
            settings=settings,
            generation=generation,
        )

    async def append_action(
        self,
        hand_id: int,
        index: int,
        action: Mapping[str, Any],
        deadline: float | None = KEEP,
        *,
        reshuffles: Sequence[tuple[int, Sequence[str]]] = (),
        seats: Sequence[SeatRow] | None = None,
    ) -> None:
        await self._hands.append_action(
            hand_id, index, action, deadline, reshuffles=reshuffles, seats=seats
        )

    async def finish_hand(
        self, hand_id: int, net: Mapping[int, int], *, seats: Sequence[SeatRow] | None = None
    ) -> bool:
        return await self._hands.finish_hand(hand_id, net, seats=seats)

    async def cancel_hand(self, hand_id: int, close_channel: int | None = None) -> bool:
        return await self._hands.cancel_hand(hand_id, close_channel)

    async def drop_reshuffles(self, hand_id: int, first: int) -> int:
        return await self._hands.drop_reshuffles(hand_id, first)

    async def hand_record(self, hand_id: int) -> dict[str, Any]:
        return await self._history.hand_record(hand_id)

    async def load_live_hands(
        self, guilds: Collection[int] | None = None, *, channel_id: int | None = None
    ) -> list[LiveHand]:
        return await self._history.load_live_hands(guilds, channel_id=channel_id)

    async def recent_hands(self, guild_id: int, user_id: int, limit: int = 10) -> list[HandSummary]:
        return await self._history.recent_hands(guild_id, user_id, limit)

    # ------------------------------------------------------------ server controls

    async def guild_settings(self, guild_id: int) -> GuildSettings:
        return await self._server.guild_settings(guild_id)

    async def save_guild_settings(self, settings: GuildSettings) -> None:
        await self._server.save_guild_settings(settings)

    async def player_data(self, guild_id: int, user_id: int) -> PlayerData | None:
        return await self._server.player_data(guild_id, user_id)

    async def erase_player(self, guild_id: int, user_id: int) -> int:
        return await self._server.erase_player(guild_id, user_id)
