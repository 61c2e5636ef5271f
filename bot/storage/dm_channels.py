"""Each user's DM channel, and whether their DMs were found closed: kept so that a restart
costs no create-DM request per player, and a closed DM is not tried again and again."""

from __future__ import annotations

from dataclasses import dataclass

from bot.storage.connection import Connection

#: the migration that adds the table (appended to ``db.MIGRATIONS``; PostgreSQL runs it too)
DM_CHANNELS_MIGRATION = """
CREATE TABLE dm_channels (
    user_id    INTEGER PRIMARY KEY,
    channel_id INTEGER NOT NULL,
    closed     INTEGER NOT NULL DEFAULT 0 CHECK (closed IN (0, 1)),
    updated_at REAL    NOT NULL
);
"""


@dataclass(frozen=True)
class DmChannel:
    user_id: int
    channel_id: int
    closed: bool = False  # the last message sent there was refused (403)


async def load_dm_channels(conn: Connection) -> dict[int, DmChannel]:
    async with conn.execute("SELECT user_id, channel_id, closed FROM dm_channels") as cursor:
        rows = await cursor.fetchall()
    return {int(r[0]): DmChannel(int(r[0]), int(r[1]), bool(r[2])) for r in rows}


async def save_dm_channel(conn: Connection, dm: DmChannel, now: float) -> None:
    await conn.execute(
        "INSERT INTO dm_channels (user_id, channel_id, closed, updated_at) VALUES (?, ?, ?, ?) "
        "ON CONFLICT (user_id) DO UPDATE SET channel_id = excluded.channel_id, "
        "closed = excluded.closed, updated_at = excluded.updated_at",
        (dm.user_id, dm.channel_id, int(dm.closed), now),
    )
