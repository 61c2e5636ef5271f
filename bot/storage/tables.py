"""The tables repository: table rows, their seats and the message that shows each table."""

from __future__ import annotations

from collections.abc import Collection, Sequence

from bot.storage.connection import Connection
from bot.storage.database import Database, all_rows, one
from bot.storage.errors import TableHasLiveHand, UnknownTable
from bot.storage.rows import SeatRow, TableRow, check_seats, dumps, seat_of, table_of


class Tables:
    """Tables, seats and table messages over one ``Database``."""

    def __init__(self, db: Database) -> None:
        self._db = db

    async def save_table(self, table: TableRow, *, seats: Sequence[SeatRow] | None = None) -> None:
        """Insert or replace the table's row, and with ``seats`` all its seats, in one
        transaction (without, the seats are left as they are)."""
        if seats is not None:
            check_seats(seats)
        async with self._db.write("save_table") as conn:
            await conn.execute(
                """INSERT INTO tables (channel_id, guild_id, variant, settings_json, button,
                                       turn_deadline, open, updated_at)
                   VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                   ON CONFLICT (channel_id) DO UPDATE SET
                     guild_id = excluded.guild_id, variant = excluded.variant,
                     settings_json = excluded.settings_json, button = excluded.button,
                     turn_deadline = excluded.turn_deadline, open = excluded.open,
                     updated_at = excluded.updated_at""",
                (
                    table.channel_id,
                    table.guild_id,
                    table.variant,
                    dumps(table.settings),
                    table.button,
                    table.turn_deadline,
                    int(table.open),
                    self._db.clock(),
                ),
            )
            if seats is not None:
                await self.replace_seats(conn, table.channel_id, seats)

    async def load_tables(self, include_closed: bool = False) -> list[TableRow]:
        """Open tables (all if include_closed), by channel_id."""
        where = "" if include_closed else "WHERE open = 1"
        async with self._db.read() as conn:
            rows = await all_rows(conn, f"SELECT * FROM tables {where} ORDER BY channel_id")
        return [table_of(row) for row in rows]

    async def load_table(self, channel_id: int) -> TableRow | None:
        """The channel's table row (open or closed), None if it never had one."""
        async with self._db.read() as conn:
            row = await one(conn, "SELECT * FROM tables WHERE channel_id = ?", (channel_id,))
        return None if row is None else table_of(row)

    async def count_tables(self, guild_id: int, variant: str) -> int:
        """How many tables of ``variant`` the guild has ever opened (open or closed)."""
        async with self._db.read() as conn:
            row = await one(
                conn,
                "SELECT COUNT(*) FROM tables WHERE guild_id = ? AND variant = ?",
                (guild_id, variant),
            )
        return int(row[0]) if row else 0

    async def close_table(self, channel_id: int) -> None:
        """Mark closed, clear the deadline and remove its seats (the row is kept).
        Refused (TableHasLiveHand) while a hand of the table is live: settle or cancel it."""
        async with self._db.write("close_table") as conn:
            await self.close_in(conn, channel_id)

    async def close_in(self, conn: Connection, channel_id: int) -> None:
        """close_table inside the caller's transaction; TableHasLiveHand while a hand of
        the table is live (the database refuses it too: close_without_live_hand)."""
        live = await one(
            conn,
            "SELECT hand_id FROM hands WHERE status = 'live' AND channel_id = ?",
            (channel_id,),
        )
        if live is not None:
            raise TableHasLiveHand(channel_id, int(live[0]))
        cursor = await conn.execute(
            "UPDATE tables SET open = 0, turn_deadline = NULL, updated_at = ? WHERE channel_id = ?",
            (self._db.clock(), channel_id),
        )
        if cursor.rowcount != 1:
            raise UnknownTable(channel_id)
        await conn.execute("DELETE FROM seats WHERE channel_id = ?", (channel_id,))

    async def set_table_message(self, channel_id: int, message_id: int) -> None:
        """Remember which message shows a table (the Discord layer edits it in place)."""
        async with self._db.write("set_table_message") as conn:
            await conn.execute(
                "INSERT INTO table_messages (channel_id, message_id) VALUES (?, ?) "
                "ON CONFLICT (channel_id) DO UPDATE SET message_id = excluded.message_id",
                (channel_id, message_id),
            )

    async def table_messages(self) -> dict[int, int]:
        async with self._db.read() as conn:
            rows = await all_rows(conn, "SELECT channel_id, message_id FROM table_messages")
        return {int(r[0]): int(r[1]) for r in rows}

    async def save_seats(self, channel_id: int, seats: Sequence[SeatRow]) -> None:
        """Replace all seats of the table (which must have been saved) with ``seats``."""
        check_seats(seats)
        async with self._db.write("save_seats") as conn:
            await self.replace_seats(conn, channel_id, seats)

    async def replace_seats(
        self, conn: Connection, channel_id: int, seats: Sequence[SeatRow]
    ) -> None:
        """save_seats inside the caller's transaction."""
        if await one(conn, "SELECT 1 FROM tables WHERE channel_id = ?", (channel_id,)):
            await conn.execute("DELETE FROM seats WHERE channel_id = ?", (channel_id,))
        else:
            raise UnknownTable(channel_id)
        await conn.executemany(
            "INSERT INTO seats (channel_id, seat, user_id, display_name, sitting_out, "
            "leaving, timeouts_in_row, bot, practice_stack) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    channel_id,
                    s.seat,
                    s.user_id,
                    s.display_name,
                    int(s.sitting_out),
                    int(s.leaving),
                    s.timeouts_in_row,
                    s.bot,
                    s.practice_stack,
                )
                for s in seats
            ],
        )

    async def load_seats(self, channel_id: int) -> list[SeatRow]:
        """Seats of the table ordered by seat number ([] if none or no table)."""
        async with self._db.read() as conn:
            rows = await all_rows(
                conn, "SELECT * FROM seats WHERE channel_id = ? ORDER BY seat", (channel_id,)
            )
        return [seat_of(row) for row in rows]

    async def load_seats_of(self, channel_ids: Collection[int]) -> dict[int, list[SeatRow]]:
        """``load_seats`` of many tables in one read (recovery: a round trip per table
        adds up on PostgreSQL); every given channel is a key."""
        ids = sorted(set(channel_ids))
        seats: dict[int, list[SeatRow]] = {channel: [] for channel in ids}
        async with self._db.read() as conn:
            for start in range(0, len(ids), 5000):  # under both backends' parameter limits
                chunk = ids[start : start + 5000]
                for row in await all_rows(
                    conn,
                    f"SELECT * FROM seats WHERE channel_id IN ({','.join('?' * len(chunk))}) "
                    "ORDER BY channel_id, seat",
                    chunk,
                ):
                    seats[row["channel_id"]].append(seat_of(row))
        return seats
