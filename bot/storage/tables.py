"""The tables repository: table rows, their seats and the message that shows each table."""

from __future__ import annotations

from collections.abc import Collection, Sequence

from bot.storage.connection import Connection
from bot.storage.database import Database, all_rows, one
from bot.storage.errors import TableClosed, TableHasLiveHand, UnknownTable
from bot.storage.rows import SeatRow, TableRow, check_seats, dumps, seat_of, table_of


class Tables:
    """Tables, seats and table messages over one ``Database``."""

    def __init__(self, db: Database) -> None:
        self._db = db

    async def save_table(self, table: TableRow, *, seats: Sequence[SeatRow] | None = None) -> int:
        """Save the table's row, and with ``seats`` all its seats, in one transaction
        (without, the seats are left as they are); return the row's generation.

        A row with no ``generation`` is inserted, or opens the channel's closed table
        anew (the database counts a new generation). A row with one updates that
        opening of the table only: TableClosed, and nothing written, once it is closed
        or was replaced."""
        if seats is not None:
            check_seats(seats)
        async with self._db.write("save_table") as conn:
            values = (
                table.guild_id,
                table.variant,
                dumps(table.settings),
                table.button,
                table.turn_deadline,
                int(table.open),
                self._db.clock(),
            )
            if table.generation is None:
                await conn.execute(
                    """INSERT INTO tables (guild_id, variant, settings_json, button,
                                           turn_deadline, open, updated_at, channel_id)
                       VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                       ON CONFLICT (channel_id) DO UPDATE SET
                         guild_id = excluded.guild_id, variant = excluded.variant,
                         settings_json = excluded.settings_json, button = excluded.button,
                         turn_deadline = excluded.turn_deadline, open = excluded.open,
                         updated_at = excluded.updated_at""",
                    (*values, table.channel_id),
                )
            else:
                await self.hold_open(conn, table.channel_id, table.generation)
                await conn.execute(
                    """UPDATE tables SET guild_id = ?, variant = ?, settings_json = ?,
                                         button = ?, turn_deadline = ?, open = ?,
                                         updated_at = ?
                       WHERE channel_id = ?""",
                    (*values, table.channel_id),
                )
            row = await one(
                conn, "SELECT generation FROM tables WHERE channel_id = ?", (table.channel_id,)
            )
            assert row is not None  # just written
            if seats is not None:
                await self.replace_seats(conn, table.channel_id, seats, int(row[0]))
        return int(row[0])

    async def hold_open(self, conn: Connection, channel_id: int, generation: int | None) -> None:
        """Refuse (TableClosed; UnknownTable if it never had one) unless the channel's
        table is open, and of ``generation`` if given: the guard of every write for a
        table, inside its transaction. It writes the row, so on PostgreSQL the row stays
        locked until the COMMIT: a close elsewhere waits, then sees this write."""
        sql = "UPDATE tables SET updated_at = ? WHERE channel_id = ? AND open = 1"
        args: tuple[float | int, ...] = (self._db.clock(), channel_id)
        if generation is not None:
            sql, args = sql + " AND generation = ?", (*args, generation)
        cursor = await conn.execute(sql, args)
        if cursor.rowcount == 1:
            return
        if await one(conn, "SELECT 1 FROM tables WHERE channel_id = ?", (channel_id,)):
            raise TableClosed(channel_id, generation)
        raise UnknownTable(channel_id)

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

    async def close_table(self, channel_id: int, *, generation: int | None = None) -> None:
        """Mark closed, clear the deadline and remove its seats (the row is kept).
        Refused (TableHasLiveHand) while a hand of the table is live: settle or cancel it;
        TableClosed if it is closed already, or (``generation`` given) was replaced."""
        async with self._db.write("close_table") as conn:
            await self.close_in(conn, channel_id, generation)

    async def close_in(
        self, conn: Connection, channel_id: int, generation: int | None = None
    ) -> None:
        """close_table inside the caller's transaction; TableHasLiveHand while a hand of
        the table is live (the database refuses it too: close_without_live_hand)."""
        await self.hold_open(conn, channel_id, generation)
        live = await one(
            conn,
            "SELECT hand_id FROM hands WHERE status = 'live' AND channel_id = ?",
            (channel_id,),
        )
        if live is not None:
            raise TableHasLiveHand(channel_id, int(live[0]))
        await conn.execute(
            "UPDATE tables SET open = 0, turn_deadline = NULL, updated_at = ? WHERE channel_id = ?",
            (self._db.clock(), channel_id),
        )
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

    async def save_seats(
        self, channel_id: int, seats: Sequence[SeatRow], *, generation: int | None = None
    ) -> None:
        """Replace all seats of the table (which must be open, and of ``generation`` if
        given: else TableClosed) with ``seats``."""
        check_seats(seats)
        async with self._db.write("save_seats") as conn:
            await self.replace_seats(conn, channel_id, seats, generation)

    async def replace_seats(
        self,
        conn: Connection,
        channel_id: int,
        seats: Sequence[SeatRow],
        generation: int | None = None,
    ) -> None:
        """save_seats inside the caller's transaction."""
        await self.hold_open(conn, channel_id, generation)
        await conn.execute("DELETE FROM seats WHERE channel_id = ?", (channel_id,))
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
