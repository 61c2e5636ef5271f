"""The multi-table tournaments repository: tables, seats, moves, breaks, hands counted.

A multi-table tournament is a tournament row (``bot.storage.tournaments``: its fees,
entries, prizes and ledger entries) with a row of ``mtt_tournaments`` (its table size;
``tournaments.seats`` is then its cap on entrants) and its ``mtt_tables``. Each method
is one transaction. A hand's count, the places of the players it put out and the moves
and breaks that follow it are written in one transaction, once: each table keeps the
last hand it counted, so a retry after a kill changes nothing. Every such write checks
in the database that the chips in play are still the entrants' starting stacks, that
every player still in sits at a live table, and that no table holds more than its size
(``ChipsNotConserved`` otherwise, and the transaction rolls back).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from bot.storage import people
from bot.storage.connection import Connection
from bot.storage.database import Database, all_rows, one
from bot.storage.errors import StorageError
from bot.storage.tournaments import Final, TournamentRefused, TournamentRow, Tournaments


class ChipsNotConserved(StorageError):
    """A write would lose, make or misplace chips or players (a bug: rolled back)."""


@dataclass(frozen=True, slots=True)
class MttTableRow:
    number: int
    break_rank: int  # the lowest breaks first
    button: int | None
    last_hand_id: int | None
    broken: bool


@dataclass(frozen=True, slots=True)
class MttSeatRow:
    user_id: int
    table_no: int | None  # None: out, or out and waiting for their place
    seat: int | None
    stack: int
    place: int | None


@dataclass(frozen=True, slots=True)
class MttState:
    """Everything a restart needs to resume a multi-table tournament."""

    tournament: TournamentRow
    table_size: int
    hand_for_hand: bool
    late_levels: int
    tables: list[MttTableRow]
    seats: list[MttSeatRow]
    start_count: int | None = None  # it starts as soon as that many have registered


@dataclass(frozen=True, slots=True)
class SeatMove:
    user_id: int
    from_table: int
    from_seat: int
    to_table: int
    to_seat: int


class MultiTables:
    """Multi-table tournaments over one ``Database``, beside its ``Tournaments``."""

    def __init__(self, db: Database, tournaments: Tournaments) -> None:
        self._db = db
        self._tournaments = tournaments

    async def create(
        self,
        guild_id: int,
        channel_id: int,
        creator_id: int,
        variant: str,
        *,
        table_size: int,
        cap: int,
        speed: str,
        start_stack: int,
        fee: int,
        starts_at: float | None = None,
        reminders: Sequence[int] = (),
        late_levels: int = 0,
        mix: str | None = None,
        start_count: int | None = None,
    ) -> TournamentRow:
        """A new multi-table tournament, registering, with its table size (one
        transaction; ``tournaments.seats`` holds the cap on entrants; ``mix``: a mixed
        one's games and rotation, as JSON); scheduled with ``starts_at``, its
        ``reminders`` (minutes before the start) still to come; ``start_count``: it
        starts as soon as that many have registered.
        Refused ``channel_busy`` (tournament_id) while another tournament of the channel
        is registering or running."""
        async with self._db.write("create_mtt") as conn:
            busy = await one(
                conn,
                "SELECT tournament_id FROM tournaments WHERE channel_id = ? "
                "AND status IN ('registering', 'running')",
                (channel_id,),
            )
            if busy is not None:
                raise TournamentRefused("channel_busy", tournament_id=int(busy[0]))
            row = await one(
                conn,
                "INSERT INTO tournaments (guild_id, channel_id, creator_id, variant, seats, "
                "speed, start_stack, fee, practice, created_at, mix) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?) RETURNING tournament_id",
                (guild_id, channel_id, creator_id, variant, cap, speed, start_stack, fee,
                 self._db.clock(), mix),
            )  # fmt: skip
            assert row is not None
            await conn.execute(
                "INSERT INTO mtt_tournaments (tournament_id, table_size, starts_at, late_levels, "
                "start_count) VALUES (?, ?, ?, ?, ?)",
                (int(row[0]), table_size, starts_at, late_levels, start_count),
            )
            if starts_at is not None:
                await self._remind(conn, int(row[0]), starts_at, reminders)
            made = await self._tournaments.get_in(conn, int(row[0]))
        assert made is not None
        return made

    async def reschedule(self, tournament_id: int, starts_at: float) -> None:
        """Move a registering tournament's start; reminders not yet sent follow it, and
        those sent for the old time are due again when the new one is still ahead of them."""
        async with self._db.write("reschedule_mtt") as conn:
            await self._tournaments.open_in(conn, tournament_id, "registering")
            await conn.execute(
                "UPDATE mtt_tournaments SET starts_at = ? WHERE tournament_id = ?",
                (starts_at, tournament_id),
            )
            rows = await all_rows(
                conn, "SELECT minutes FROM mtt_reminders WHERE tournament_id = ?", (tournament_id,)
            )
            await conn.execute(
                "DELETE FROM mtt_reminders WHERE tournament_id = ?", (tournament_id,)
            )
            await self._remind(conn, tournament_id, starts_at, [int(r[0]) for r in rows])

    async def set_event(self, tournament_id: int, event_id: int | None) -> None:
        async with self._db.write("mtt_event") as conn:
            await conn.execute(
                "UPDATE mtt_tournaments SET event_id = ? WHERE tournament_id = ?",
                (event_id, tournament_id),
            )

    async def claim_reminders(self, now: float) -> list[tuple[int, int, list[int]]]:
        """The reminders due by ``now`` of tournaments still registering, each marked sent
        in the same transaction (so each goes out once, across restarts): (tournament id,
        minutes, the players registered now)."""
        async with self._db.write("claim_reminders") as conn:
            rows = await all_rows(
                conn,
                "SELECT r.tournament_id, r.minutes FROM mtt_reminders r "
                "JOIN tournaments t ON t.tournament_id = r.tournament_id "
                "WHERE r.sent_at IS NULL AND r.due_at <= ? AND t.status = 'registering' "
                "ORDER BY r.due_at, r.tournament_id",
                (now,),
            )
            due = []
            for tournament_id, minutes in rows:
                cursor = await conn.execute(
                    "UPDATE mtt_reminders SET sent_at = ? "
                    "WHERE tournament_id = ? AND minutes = ? AND sent_at IS NULL",
                    (now, tournament_id, minutes),
                )
                if cursor.rowcount == 1:
                    entries = await self._tournaments.entries_in(conn, int(tournament_id))
                    due.append((int(tournament_id), int(minutes), [e.user_id for e in entries]))
        return due

    async def due_starts(self, now: float) -> list[int]:
        """Registering multi-table tournaments due to start by ``now``: their scheduled
        start has come, or their start count has registered; the earliest first."""
        async with self._db.read() as conn:
            rows = await all_rows(
                conn,
                "SELECT m.tournament_id FROM mtt_tournaments m "
                "JOIN tournaments t ON t.tournament_id = m.tournament_id "
                "WHERE t.status = 'registering' AND ((m.starts_at IS NOT NULL "
                "AND m.starts_at <= ?) OR (m.start_count IS NOT NULL AND m.start_count <= "
                "(SELECT COUNT(*) FROM tournament_entries e "
                "WHERE e.tournament_id = m.tournament_id))) "
                "ORDER BY COALESCE(m.starts_at, 0), m.tournament_id",
                (now,),
            )
        return [int(r[0]) for r in rows]

    async def scheduled(self, tournament_id: int) -> tuple[float | None, int | None]:
        """The scheduled start and the Discord event's id."""
        async with self._db.read() as conn:
            row = await one(
                conn,
                "SELECT starts_at, event_id FROM mtt_tournaments WHERE tournament_id = ?",
                (tournament_id,),
            )
        return (None, None) if row is None else (row[0], row[1])

    async def start(
        self,
        tournament_id: int,
        seating: Mapping[int, tuple[int, int]],
        break_order: Sequence[int],
    ) -> TournamentRow:
        """Registering → running on tables: each entrant (user_id → (table, seat)) gets
        the starting stack; ``break_order`` lists the table numbers, the first to break
        first. Refused ``changed`` if the registrations differ from ``seating``."""
        async with self._db.write("start_mtt") as conn:
            t = await self._tournaments.open_in(conn, tournament_id, "registering")
            entries = await self._tournaments.entries_in(conn, tournament_id)
            if len(entries) < 2:
                raise TournamentRefused("too_few", count=len(entries))
            if sorted(e.user_id for e in entries) != sorted(seating):
                raise TournamentRefused("changed")
            await conn.executemany(
                "INSERT INTO mtt_tables (tournament_id, number, break_rank) VALUES (?, ?, ?)",
                [(tournament_id, number, rank) for rank, number in enumerate(break_order)],
            )
            await conn.executemany(
                "UPDATE tournament_entries SET table_no = ?, seat = ?, stack = ? "
                "WHERE tournament_id = ? AND entry = ?",
                [(*seating[e.user_id], t.start_stack, tournament_id, e.entry) for e in entries],
            )
            await conn.execute(
                "UPDATE tournaments SET status = 'running', started_at = ? "
                "WHERE tournament_id = ? AND status = 'registering'",
                (self._db.clock(), tournament_id),
            )
            await self._check(conn, tournament_id)
            started = await self._tournaments.get_in(conn, tournament_id)
        assert started is not None
        return started

    async def register_late(
        self, tournament_id: int, user_id: int, display_name: str, table_no: int, seat: int
    ) -> None:
        """Register a player into a running tournament at ``table_no``/``seat`` with the
        starting stack, taking the fee; a table not yet known opens and breaks first.
        Refused as a registration is (already_registered, full, elsewhere, short)."""
        async with self._db.write("register_late") as conn:
            t = await self._tournaments.open_in(conn, tournament_id, "running")
            person = (await people.ensure(conn, t.guild_id, [user_id], {user_id: display_name}))[
                user_id
            ]
            count, mine = await self._tournaments.count_in(conn, tournament_id, person)
            if mine:
                raise TournamentRefused("already_registered")
            if count >= t.seats:
                raise TournamentRefused("full", seats=t.seats)
            other = await one(
                conn,
                "SELECT t.tournament_id FROM tournament_entries e JOIN tournaments t "
                "ON t.tournament_id = e.tournament_id WHERE e.person_id = ? "
                "AND (t.status = 'registering' OR (t.status = 'running' AND e.place IS NULL))",
                (person,),
            )
            if other is not None:
                raise TournamentRefused("elsewhere", tournament_id=int(other[0]))
            if t.fee > 0:
                await self._tournaments.move_chips_in(
                    conn, t, user_id, -t.fee, "sng_fee", short_ok=False
                )
            known = await one(
                conn,
                "SELECT MIN(break_rank), SUM(CASE WHEN number = ? THEN 1 ELSE 0 END) "
                "FROM mtt_tables WHERE tournament_id = ?",
                (table_no, tournament_id),
            )
            assert known is not None
            if not known[1]:
                await conn.execute(
                    "INSERT INTO mtt_tables (tournament_id, number, break_rank) VALUES (?, ?, ?)",
                    (tournament_id, table_no, int(known[0]) - 1),
                )
            await conn.execute(
                "INSERT INTO tournament_entries (tournament_id, entry, guild_id, person_id, "
                "display_name, registered_at, table_no, seat, stack) "
                "VALUES (?, (SELECT COALESCE(MAX(entry), -1) + 1 FROM tournament_entries "
                "WHERE tournament_id = ?), ?, ?, ?, ?, ?, ?, ?)",
                (tournament_id, tournament_id, t.guild_id, person, display_name,
                 self._db.clock(), table_no, seat, t.start_stack),
            )  # fmt: skip
            await self._check(conn, tournament_id)

    async def state(self, tournament_id: int) -> MttState | None:
        """The tournament, its tables and its players' seats (None: not multi-table)."""
        async with self._db.read() as conn:
            t = await self._tournaments.get_in(conn, tournament_id)
            settings = await one(
                conn,
                "SELECT table_size, hand_for_hand, late_levels, start_count FROM mtt_tournaments "
                "WHERE tournament_id = ?",
                (tournament_id,),
            )
            if t is None or settings is None:
                return None
            tables = await all_rows(
                conn,
                "SELECT number, break_rank, button, last_hand_id, broken FROM mtt_tables "
                "WHERE tournament_id = ? ORDER BY number",
                (tournament_id,),
            )
            seats = await all_rows(
                conn,
                "SELECT p.user_id, e.table_no, e.seat, e.stack, e.place "
                "FROM tournament_entries e JOIN people p ON p.person_id = e.person_id "
                "WHERE e.tournament_id = ? ORDER BY e.entry",
                (tournament_id,),
            )
        return MttState(
            t,
            int(settings[0]),
            bool(settings[1]),
            int(settings[2]),
            [MttTableRow(int(r[0]), int(r[1]), r[2], r[3], bool(r[4])) for r in tables],
            [MttSeatRow(int(r[0]), r[1], r[2], int(r[3]), r[4]) for r in seats],
            start_count=None if settings[3] is None else int(settings[3]),
        )

    async def record_hand(
        self,
        tournament_id: int,
        table_no: int,
        hand_id: int,
        stacks: Mapping[int, int],
        *,
        out: Iterable[int] = (),
        places: Mapping[int, int],
        button: int | None,
        moves: Sequence[SeatMove] = (),
        broken: Sequence[int] = (),
        hand_for_hand: bool = False,
        final: Final | None = None,
    ) -> bool:
        """Count one finished hand of table ``table_no``: the stacks after it, the
        players it put out (``out``: they leave their seats), the places given now
        (``places``: theirs, or a hand-for-hand round's), then the moves and breaks
        planned after it; with ``final``, the end and its prizes. All in one
        transaction; False if this table counted the hand already."""
        async with self._db.write("record_mtt_hand") as conn:
            t = await self._tournaments.open_in(conn, tournament_id, "running")
            table = await one(
                conn,
                "SELECT last_hand_id, broken FROM mtt_tables "
                "WHERE tournament_id = ? AND number = ?",
                (tournament_id, table_no),
            )
            if table is None or table[1]:
                raise ChipsNotConserved(f"tournament #{tournament_id} has no table {table_no}")
            if table[0] is not None and hand_id <= int(table[0]):
                return False
            await conn.execute(  # its /stats, replays and exports say tournament
                "UPDATE hands SET tournament_id = ? WHERE hand_id = ?", (tournament_id, hand_id)
            )
            await conn.execute(
                "UPDATE mtt_tables SET last_hand_id = ?, button = ? "
                "WHERE tournament_id = ? AND number = ?",
                (hand_id, button, tournament_id, table_no),
            )
            await conn.execute(
                "UPDATE tournaments SET hands = hands + 1, last_hand_id = ? "
                "WHERE tournament_id = ?",
                (max(hand_id, t.last_hand_id or 0), tournament_id),
            )
            await self._tournaments.update_entries_in(conn, t, stacks, places)
            await self._leave(conn, tournament_id, out)
            await self._move(conn, tournament_id, moves, broken, hand_for_hand)
            if final is not None:  # the winner leaves the last table (one statement, not 1,000)
                await conn.execute(
                    "UPDATE tournament_entries SET table_no = NULL, seat = NULL "
                    "WHERE tournament_id = ? AND table_no IS NOT NULL",
                    (tournament_id,),
                )
                await self._tournaments.finish_in(conn, t, final)
            else:
                await self._check(conn, tournament_id)
            return True

    async def move(
        self,
        tournament_id: int,
        moves: Sequence[SeatMove],
        broken: Sequence[int] = (),
        hand_for_hand: bool = False,
    ) -> None:
        """Moves and breaks planned between hands with no hand to count (a held table
        freed, a late seat), in one transaction."""
        async with self._db.write("mtt_moves") as conn:
            await self._tournaments.open_in(conn, tournament_id, "running")
            await self._move(conn, tournament_id, moves, broken, hand_for_hand)
            await self._check(conn, tournament_id)

    # ----- inside a transaction ---------------------------------------------

    async def _remind(
        self, conn: Connection, tournament_id: int, starts_at: float, minutes: Iterable[int]
    ) -> None:
        now = self._db.clock()
        await conn.executemany(
            "INSERT INTO mtt_reminders (tournament_id, minutes, due_at) VALUES (?, ?, ?)",
            [
                (tournament_id, m, starts_at - 60 * m)
                for m in sorted(set(minutes))
                if starts_at - 60 * m > now  # a reminder already past is not sent
            ],
        )

    async def _leave(self, conn: Connection, tournament_id: int, users: Iterable[int]) -> None:
        await conn.executemany(
            "UPDATE tournament_entries SET table_no = NULL, seat = NULL "
            f"WHERE tournament_id = ? AND person_id = ({_PERSON_OF_ENTRY})",
            [(tournament_id, tournament_id, user) for user in users],
        )

    async def _move(
        self,
        conn: Connection,
        tournament_id: int,
        moves: Sequence[SeatMove],
        broken: Sequence[int],
        hand_for_hand: bool,
    ) -> None:
        for m in moves:
            cursor = await conn.execute(
                "UPDATE tournament_entries SET table_no = ?, seat = ? "
                "WHERE tournament_id = ? AND table_no = ? AND seat = ? AND place IS NULL "
                f"AND person_id = ({_PERSON_OF_ENTRY})",
                (m.to_table, m.to_seat, tournament_id, m.from_table, m.from_seat,
                 tournament_id, m.user_id),
            )  # fmt: skip
            if cursor.rowcount != 1:
                raise ChipsNotConserved(f"tournament #{tournament_id}: {m} is not where it says")
        for number in broken:
            await conn.execute(
                "UPDATE mtt_tables SET broken = 1 WHERE tournament_id = ? AND number = ?",
                (tournament_id, number),
            )
        await conn.execute(
            "UPDATE mtt_tournaments SET hand_for_hand = ? WHERE tournament_id = ?",
            (int(hand_for_hand), tournament_id),
        )

    async def _check(self, conn: Connection, tournament_id: int) -> None:
        """The chips in play are the entrants' starting stacks; every player with chips
        sits at a live table; no table holds more than its size."""
        row = await one(
            conn,
            "SELECT t.start_stack * COUNT(*), SUM(e.stack), "
            "SUM(CASE WHEN e.stack > 0 AND (e.table_no IS NULL OR b.broken <> 0) "
            "THEN 1 ELSE 0 END) "
            "FROM tournament_entries e JOIN tournaments t ON t.tournament_id = e.tournament_id "
            "LEFT JOIN mtt_tables b ON b.tournament_id = e.tournament_id "
            "AND b.number = e.table_no "
            "WHERE e.tournament_id = ? GROUP BY t.start_stack",
            (tournament_id,),
        )
        assert row is not None
        if int(row[0]) != int(row[1]) or int(row[2]) != 0:
            raise ChipsNotConserved(
                f"tournament #{tournament_id}: {row[1]} chips in play of {row[0]}, "
                f"{row[2]} players with chips off the live tables"
            )
        crowded = await one(
            conn,
            "SELECT e.table_no, COUNT(*) FROM tournament_entries e "
            "JOIN mtt_tournaments m ON m.tournament_id = e.tournament_id "
            "WHERE e.tournament_id = ? AND e.table_no IS NOT NULL "
            "GROUP BY e.table_no, m.table_size HAVING COUNT(*) > m.table_size",
            (tournament_id,),
        )
        if crowded is not None:
            raise ChipsNotConserved(
                f"tournament #{tournament_id}: table {crowded[0]} seats {crowded[1]}"
            )


_PERSON_OF_ENTRY = (
    "SELECT e2.person_id FROM tournament_entries e2 JOIN people p ON p.person_id = e2.person_id "
    "WHERE e2.tournament_id = ? AND p.user_id = ?"
)
