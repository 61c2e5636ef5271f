"""Which guilds this process may write: claiming a guild in the database.

On PostgreSQL a session advisory lock keyed by the guild id, on the Store's own
session: it lapses when the process dies, and the database refuses writes for a
guild another session holds (``migrations.GUILD_OWNER_GUARD``). On SQLite always
granted (one file, one process). Which shards (hence guilds) a process runs at
all is ``shards.Shards``: arithmetic on ids, no database.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from bot.storage import postgres
from bot.storage.connection import Connection
from bot.storage.database import Database

log = logging.getLogger(__name__)

GuildsLost = Callable[[frozenset[int]], None]


class Ownership:
    """The guilds this process has claimed, over one ``Database``.

    A session advisory lock lives and dies with its session: when the Database
    replaces a lost session, every claimed guild is claimed again on the new one
    before anything else runs there. A guild another process took meanwhile is
    *lost*: it leaves ``guilds`` and ``on_lost`` is called with it, so the process
    stops serving it (the manager drops its tables); the database refuses this
    process's writes to it from then on (GUILD_TAKEN), ledger and accounts included."""

    def __init__(self, db: Database, on_lost: GuildsLost | None = None) -> None:
        self._db = db
        self.guilds: set[int] = set()  # claimed by this process's session
        self.lost: set[int] = set()  # claimed once, then taken by another process
        self.on_lost = on_lost  # told which guilds were lost (the table service drops them)
        db.on_reconnect.append(self._reclaim)

    async def _reclaim(self, conn: Connection) -> None:
        if not isinstance(conn, postgres.PgConnection):
            return
        kept = set()
        for guild in sorted(self.guilds):
            if await conn.raw.fetchval("SELECT pg_try_advisory_lock($1)", guild):
                kept.add(guild)
        lost = frozenset(self.guilds - kept)
        log.warning(
            "new PostgreSQL session: re-claimed %d guilds, lost %s",
            len(self.guilds) - len(lost),
            sorted(lost) or "none",
        )
        if lost:
            self._db.metrics.guilds_lost.inc(len(lost))
            self.guilds -= lost
            self.lost |= lost
            if self.on_lost is not None:
                self.on_lost(lost)

    async def claim_guild(self, guild_id: int) -> bool:
        """Make this process the only one acting on the guild's tables, until it exits;
        False while another process holds it. Idempotent."""
        if not isinstance(self._db.conn, postgres.PgConnection):
            self.guilds.add(guild_id)
            return True
        # in a (read) transaction so that a lost session is replaced first; a session
        # lock outlives the transaction that took it
        async with self._db.read() as conn:
            if guild_id in self.guilds:
                return True
            assert isinstance(conn, postgres.PgConnection)
            if not await conn.raw.fetchval("SELECT pg_try_advisory_lock($1)", guild_id):
                return False
            self.guilds.add(guild_id)
            self.lost.discard(guild_id)
            return True
