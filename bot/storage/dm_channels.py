"""Each user's DM channel, and whether their DMs were found closed: kept so that a restart
costs no create-DM request per player, and a closed DM is not tried again and again."""

from __future__ import annotations

from dataclasses import dataclass

from bot.storage.connection import Connection
from bot.storage.database import Database, all_rows


@dataclass(frozen=True)
class DmChannel:
    user_id: int
    channel_id: int
    closed: bool = False  # the last message sent there was refused (403)


class DmChannels:
    """The ``dm_channels`` rows, each read or write one transaction of the database."""

    def __init__(self, db: Database) -> None:
        self._db = db

    async def all(self) -> dict[int, DmChannel]:
        async with self._db.read() as conn:
            return await load_dm_channels(conn)

    async def get(self, user_id: int) -> DmChannel | None:
        """One user's row (None: no DM channel stored for them)."""
        async with self._db.read() as conn:
            rows = await all_rows(
                conn, "SELECT user_id, channel_id, closed FROM dm_channels WHERE user_id = ?",
                (user_id,),
            )  # fmt: skip
        return next((DmChannel(int(r[0]), int(r[1]), bool(r[2])) for r in rows), None)

    async def save(self, dm: DmChannel) -> None:
        async with self._db.write("set_dm_channel") as conn:
            await save_dm_channel(conn, dm, self._db.clock())


async def load_dm_channels(conn: Connection) -> dict[int, DmChannel]:
    rows = await all_rows(conn, "SELECT user_id, channel_id, closed FROM dm_channels")
    return {int(r[0]): DmChannel(int(r[0]), int(r[1]), bool(r[2])) for r in rows}


async def save_dm_channel(conn: Connection, dm: DmChannel, now: float) -> None:
    await conn.execute(
        "INSERT INTO dm_channels (user_id, channel_id, closed, updated_at) VALUES (?, ?, ?, ?) "
        "ON CONFLICT (user_id) DO UPDATE SET channel_id = excluded.channel_id, "
        "closed = excluded.closed, updated_at = excluded.updated_at",
        (dm.user_id, dm.channel_id, int(dm.closed), now),
    )
