"""Which guilds this process may write: claiming a guild in the database.

On PostgreSQL a session advisory lock keyed by the guild id, on the Store's own
session: it lapses when the process dies, and the database refuses writes for a
guild another session holds (``migrations.GUILD_OWNER_GUARD``). On SQLite always
granted (one file, one process). Which shards (hence guilds) a process runs at
all is ``shards.Shards``: arithmetic on ids, no database.
"""

from __future__ import annotations

from bot.storage import postgres
from bot.storage.database import Database


class Ownership:
    """The guilds this process has claimed, over one ``Database``."""

    def __init__(self, db: Database) -> None:
        self._db = db
        self.guilds: set[int] = set()  # claimed by this process's session

    async def claim_guild(self, guild_id: int) -> bool:
        """Make this process the only one acting on the guild's tables, until it exits;
        False while another process holds it. Idempotent."""
        async with self._db.lock:
            conn = self._db.conn
            if not isinstance(conn, postgres.PgConnection):
                self.guilds.add(guild_id)
                return True
            if guild_id in self.guilds:
                return True
            if not await conn.raw.fetchval("SELECT pg_try_advisory_lock($1)", guild_id):
                return False
            self.guilds.add(guild_id)
            return True
