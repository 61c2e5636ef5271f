"""The tournaments repository: Sit & Gos, their entries, fees and prizes in the ledger.

Each method is one transaction. Entry fees move through the ledger as entries of
their own kinds, each naming its tournament: ``sng_fee`` (negative, at registration),
``sng_refund`` (at unregister or cancel) and ``sng_prize`` (at the end); the account's
``tournament_net`` is their sum. What a tournament still holds is minus the sum of its
entries; the database refuses a refund or prize beyond it and a second prize to one
player (``migration_tournaments``). Every state change is conditional on the status it
was checked against, so a retry after a kill at any write pays nothing twice. The
chips in play (stacks) are the tournament's own, never the server's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields

from bot.storage import people
from bot.storage.connection import Connection, Row
from bot.storage.database import Database, all_rows, one
from bot.storage.errors import StorageError

OPEN = ("registering", "running")


class TournamentRefused(StorageError):
    """A request the tournament cannot honour: ``code`` says why, ``params`` the facts.

    Codes: unknown, not_registering, not_running, already_registered, full,
    not_registered, short (available, fee), elsewhere (tournament_id), too_few (count)."""

    def __init__(self, code: str, **params: int) -> None:
        super().__init__(code)
        self.code = code
        self.params = params


@dataclass(frozen=True, slots=True)
class TournamentRow:
    tournament_id: int
    guild_id: int
    channel_id: int
    creator_id: int
    variant: str
    seats: int
    speed: str
    start_stack: int
    fee: int
    practice: bool
    status: str  # registering, running, finished, cancelled
    message_id: int | None
    table_channel_id: int | None
    button: int | None
    clock_elapsed: float
    hands: int
    last_hand_id: int | None
    longest_hand_id: int | None
    longest_actions: int
    created_at: float
    started_at: float | None
    ended_at: float | None
    mix: str | None = None  # a mixed tournament's games and rotation (JSON, tournaments.mixing)


@dataclass(frozen=True, slots=True)
class EntryRow:
    entry: int
    user_id: int
    display_name: str
    seat: int | None
    stack: int
    place: int | None
    prize: int
    points: int
    bot: str | None = None  # a computer player's level (a practice Sit & Go's seat)


@dataclass(frozen=True, slots=True)
class Final:
    """The end of a tournament: every entrant's place, prize and standings points."""

    places: Mapping[int, int]
    prizes: Mapping[int, int]
    points: Mapping[int, int]


@dataclass(frozen=True, slots=True)
class StandingRow:
    rank: int
    user_id: int
    display_name: str
    points: int
    wins: int
    cashes: int
    entries: int
    won: int  # chips won in prizes, less fees paid


def _tournament(row: Row) -> TournamentRow:
    values = {f.name: row[f.name] for f in fields(TournamentRow)}
    values["practice"] = bool(values["practice"])
    return TournamentRow(**values)


@dataclass(frozen=True, slots=True)
class _Named:
    """An entry's number and stack (what a hand's count updates)."""

    entry: int
    stack: int


# A computer player has no person: its user id is -(entry + 1), below 1 as at practice
# tables, and unique in its tournament (its entry number never changes).
_ENTRY_SQL = (
    "SELECT e.entry, COALESCE(p.user_id, -(e.entry + 1)), e.display_name, e.seat, e.stack, "
    "e.place, e.prize, e.points, e.bot "
    "FROM tournament_entries e LEFT JOIN people p ON p.person_id = e.person_id "
    "WHERE e.tournament_id = ? ORDER BY e.entry"
)


class Tournaments:
    """Sit & Gos over one ``Database``."""

    def __init__(self, db: Database) -> None:
        self._db = db

    # ----- reads ------------------------------------------------------------

    async def get(self, tournament_id: int) -> TournamentRow | None:
        async with self._db.read() as conn:
            return await self.get_in(conn, tournament_id)

    async def entries(self, tournament_id: int) -> list[EntryRow]:
        async with self._db.read() as conn:
            return await self.entries_in(conn, tournament_id)

    async def open_tournaments(self, guild_id: int | None = None) -> list[TournamentRow]:
        """Tournaments registering or running (one server's, or every one)."""
        where = "status IN ('registering', 'running')"
        args: tuple[int, ...] = ()
        if guild_id is not None:
            where += " AND guild_id = ?"
            args = (guild_id,)
        async with self._db.read() as conn:
            rows = await all_rows(
                conn, f"SELECT * FROM tournaments WHERE {where} ORDER BY tournament_id", args
            )
        return [_tournament(r) for r in rows]

    async def held(self, tournament_id: int) -> int:
        """The fees the tournament holds: minus the sum of its ledger entries."""
        async with self._db.read() as conn:
            return await self._held(conn, tournament_id)

    async def ledger_sums(self, tournament_id: int) -> dict[str, int]:
        """The sum of the tournament's ledger entries by kind."""
        async with self._db.read() as conn:
            rows = await all_rows(
                conn,
                "SELECT kind, SUM(amount) FROM ledger WHERE tournament_id = ? GROUP BY kind",
                (tournament_id,),
            )
        return {str(r[0]): int(r[1]) for r in rows}

    # ----- lifecycle --------------------------------------------------------

    async def create(
        self,
        guild_id: int,
        channel_id: int,
        creator_id: int,
        variant: str,
        *,
        seats: int,
        speed: str,
        start_stack: int,
        fee: int,
        practice: bool = False,
        most_open: int | None = None,
        bots: Sequence[tuple[str, str]] = (),
        mix: str | None = None,
    ) -> TournamentRow:
        """A new tournament, registering (``mix``: a mixed one's games and rotation). With
        ``most_open``, refused (``too_many``) when the server already has that many open.
        ``bots``: computer players (level, name) entered at once, in the same transaction
        (a practice Sit & Go's)."""
        async with self._db.write("create_tournament") as conn:
            if most_open is not None:
                count = await one(
                    conn,
                    "SELECT COUNT(*) FROM tournaments WHERE guild_id = ? "
                    "AND status IN ('registering', 'running')",
                    (guild_id,),
                )
                if count is not None and int(count[0]) >= most_open:
                    raise TournamentRefused("too_many", most=most_open)
            row = await one(
                conn,
                "INSERT INTO tournaments (guild_id, channel_id, creator_id, variant, seats, "
                "speed, start_stack, fee, practice, created_at, mix) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING tournament_id",
                (
                    guild_id,
                    channel_id,
                    creator_id,
                    variant,
                    seats,
                    speed,
                    start_stack,
                    fee,
                    int(practice),
                    self._db.clock(),
                    mix,
                ),
            )
            assert row is not None
            if bots:
                await conn.executemany(
                    "INSERT INTO tournament_entries (tournament_id, entry, guild_id, bot, "
                    "display_name, registered_at) VALUES (?, ?, ?, ?, ?, ?)",
                    [
                        (int(row[0]), i, guild_id, level, name, self._db.clock())
                        for i, (level, name) in enumerate(bots)
                    ],
                )
            made = await self.get_in(conn, int(row[0]))
        assert made is not None
        return made

    async def set_message(self, tournament_id: int, message_id: int) -> None:
        async with self._db.write("tournament_message") as conn:
            await conn.execute(
                "UPDATE tournaments SET message_id = ? WHERE tournament_id = ?",
                (message_id, tournament_id),
            )

    async def set_table(self, tournament_id: int, table_channel_id: int) -> None:
        async with self._db.write("tournament_table") as conn:
            await conn.execute(
                "UPDATE tournaments SET table_channel_id = ? WHERE tournament_id = ?",
                (table_channel_id, tournament_id),
            )

    async def register(self, tournament_id: int, user_id: int, display_name: str) -> list[EntryRow]:
        """Register a player (their account must exist) and take the fee; the entries after.

        Refused: unknown, not_registering, already_registered, full, elsewhere (a
        player is in one open tournament of a server at a time), short (the fee is above
        the chips available: balance less what live hands hold)."""
        async with self._db.write("register") as conn:
            t = await self.open_in(conn, tournament_id, "registering")
            person = (await people.ensure(conn, t.guild_id, [user_id], {user_id: display_name}))[
                user_id
            ]
            count, mine = await self.count_in(conn, tournament_id, person)
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
                await self.move_chips_in(conn, t, user_id, -t.fee, "sng_fee", short_ok=False)
            number = await one(
                conn,
                "SELECT COALESCE(MAX(entry), -1) + 1 FROM tournament_entries "
                "WHERE tournament_id = ?",
                (tournament_id,),
            )
            assert number is not None
            await conn.execute(
                "INSERT INTO tournament_entries (tournament_id, entry, guild_id, person_id, "
                "display_name, registered_at) VALUES (?, ?, ?, ?, ?, ?)",
                (
                    tournament_id,
                    int(number[0]),
                    t.guild_id,
                    person,
                    display_name,
                    self._db.clock(),
                ),
            )
            return await self.entries_in(conn, tournament_id)

    async def unregister(self, tournament_id: int, user_id: int) -> list[EntryRow]:
        """Unregister before the start; the fee comes back. The entries after."""
        async with self._db.write("unregister") as conn:
            t = await self.open_in(conn, tournament_id, "registering")
            person = await people.person_of(conn, t.guild_id, user_id)
            cursor = await conn.execute(
                "DELETE FROM tournament_entries WHERE tournament_id = ? AND person_id = ?",
                (tournament_id, person),
            )
            if person is None or cursor.rowcount != 1:
                raise TournamentRefused("not_registered")
            if t.fee > 0:
                await self.move_chips_in(conn, t, user_id, t.fee, "sng_refund")
            return await self.entries_in(conn, tournament_id)

    async def start(
        self, tournament_id: int, seating: Mapping[int, int], button: int
    ) -> TournamentRow:
        """Registering → running: each entrant (user_id → seat) gets the starting stack.

        ``seating`` must name exactly the registered players (refused ``changed`` if a
        registration came in between); at least two (``too_few``)."""
        async with self._db.write("start_tournament") as conn:
            t = await self.open_in(conn, tournament_id, "registering")
            entries = await self.entries_in(conn, tournament_id)
            if len(entries) < 2:
                raise TournamentRefused("too_few", count=len(entries))
            if sorted(e.user_id for e in entries) != sorted(seating):
                raise TournamentRefused("changed")
            await conn.executemany(
                "UPDATE tournament_entries SET seat = ?, stack = ? "
                "WHERE tournament_id = ? AND entry = ?",
                [(seating[e.user_id], t.start_stack, tournament_id, e.entry) for e in entries],
            )
            await conn.execute(
                "UPDATE tournaments SET status = 'running', started_at = ?, button = ? "
                "WHERE tournament_id = ? AND status = 'registering'",
                (self._db.clock(), button, tournament_id),
            )
            started = await self.get_in(conn, tournament_id)
        assert started is not None
        return started

    async def cancel(self, tournament_id: int) -> TournamentRow:
        """Cancel before the end: every fee comes back, nothing is lost."""
        async with self._db.write("cancel_tournament") as conn:
            t = await self.get_in(conn, tournament_id)
            if t is None:
                raise TournamentRefused("unknown")
            if t.status not in OPEN:
                raise TournamentRefused("not_open")
            await self._close(conn, t, "cancelled")
            for entry in await self.entries_in(conn, tournament_id):
                if t.fee > 0:
                    await self.move_chips_in(conn, t, entry.user_id, t.fee, "sng_refund")
            if await self._held(conn, tournament_id) != 0:  # pragma: no cover - a bug
                raise StorageError(f"tournament #{tournament_id} still holds fees after cancel")
            cancelled = await self.get_in(conn, tournament_id)
        assert cancelled is not None
        return cancelled

    async def record_hand(
        self,
        tournament_id: int,
        hand_id: int,
        stacks: Mapping[int, int],
        *,
        places: Mapping[int, int],
        actions: int,
        clock_elapsed: float,
        button: int | None,
        final: Final | None = None,
    ) -> bool:
        """Count one finished hand: the stacks after it, the places of those it put out,
        the clock; with ``final``, the end and its prizes in the same transaction.
        False if the hand was counted already (a retry after a kill)."""
        async with self._db.write("record_tournament_hand") as conn:
            t = await self.open_in(conn, tournament_id, "running")
            if t.last_hand_id is not None and hand_id <= t.last_hand_id:
                return False
            longest = actions > t.longest_actions
            await conn.execute(
                "UPDATE hands SET tournament_id = ? WHERE hand_id = ?", (tournament_id, hand_id)
            )
            await conn.execute(
                "UPDATE tournaments SET hands = hands + 1, last_hand_id = ?, clock_elapsed = ?, "
                "button = ?, longest_hand_id = ?, longest_actions = ? WHERE tournament_id = ?",
                (
                    hand_id,
                    clock_elapsed,
                    button,
                    hand_id if longest else t.longest_hand_id,
                    max(actions, t.longest_actions),
                    tournament_id,
                ),
            )
            await self.update_entries_in(conn, t, stacks, places)
            if final is not None:
                await self.finish_in(conn, t, final)
            return True

    async def eliminate(
        self,
        tournament_id: int,
        places: Mapping[int, int],
        final: Final | None = None,
    ) -> None:
        """Take players out between hands (a moderator's removal): their chips leave
        play and their places are recorded; with ``final``, the end as well."""
        async with self._db.write("eliminate") as conn:
            t = await self.open_in(conn, tournament_id, "running")
            await self.update_entries_in(conn, t, {u: 0 for u in places}, places)
            if final is not None:
                await self.finish_in(conn, t, final)

    async def save_clock(self, tournament_id: int, clock_elapsed: float) -> None:
        async with self._db.write("tournament_clock") as conn:
            await conn.execute(
                "UPDATE tournaments SET clock_elapsed = ? "
                "WHERE tournament_id = ? AND status = 'running'",
                (clock_elapsed, tournament_id),
            )

    # ----- standings --------------------------------------------------------

    async def standings(
        self, guild_id: int, page: int = 1, per_page: int = 10
    ) -> tuple[list[StandingRow], int]:
        """Page ``page`` of the server's finished tournaments' standings (practice
        events apart): points, then wins, then fewer entries; and how many are ranked."""
        if page < 1 or per_page < 1:
            raise ValueError(f"page and per_page must be >= 1, got {page}, {per_page}")
        offset = (page - 1) * per_page
        base = (
            "FROM tournament_entries e JOIN tournaments t ON t.tournament_id = e.tournament_id "
            "JOIN people p ON p.person_id = e.person_id "
            "WHERE t.guild_id = ? AND t.status = 'finished' AND t.practice = 0 "
            "AND p.user_id > 0"
        )
        async with self._db.read() as conn:
            total = await one(conn, f"SELECT COUNT(DISTINCT e.person_id) {base}", (guild_id,))
            rows = await all_rows(
                conn,
                "SELECT p.user_id, MAX(p.display_name) AS person_name, "
                "MAX(e.display_name) AS entry_name, SUM(e.points) AS points, "
                "SUM(CASE WHEN e.place = 1 THEN 1 ELSE 0 END) AS wins, "
                "SUM(CASE WHEN e.points > 0 THEN 1 ELSE 0 END) AS cashes, "
                "COUNT(*) AS entries, SUM(e.prize - t.fee) AS won "
                f"{base} GROUP BY p.user_id "
                "ORDER BY points DESC, wins DESC, entries ASC, p.user_id ASC LIMIT ? OFFSET ?",
                (guild_id, per_page, offset),
            )
        ranked = [
            StandingRow(
                rank=offset + i + 1,
                user_id=int(r["user_id"]),
                display_name=str(r["person_name"] or r["entry_name"]),
                points=int(r["points"]),
                wins=int(r["wins"]),
                cashes=int(r["cashes"]),
                entries=int(r["entries"]),
                won=int(r["won"]),
            )
            for i, r in enumerate(rows)
        ]
        return ranked, int(total[0]) if total else 0

    # ----- inside a caller's transaction (here and in multi_table.py) ----------

    async def get_in(self, conn: Connection, tournament_id: int) -> TournamentRow | None:
        row = await one(conn, "SELECT * FROM tournaments WHERE tournament_id = ?", (tournament_id,))
        return None if row is None else _tournament(row)

    async def open_in(self, conn: Connection, tournament_id: int, status: str) -> TournamentRow:
        t = await self.get_in(conn, tournament_id)
        if t is None:
            raise TournamentRefused("unknown")
        if t.status != status:
            raise TournamentRefused("not_registering" if status == "registering" else "not_running")
        return t

    async def count_in(
        self, conn: Connection, tournament_id: int, person_id: int
    ) -> tuple[int, bool]:
        """How many have entered, and whether ``person_id`` has (one row, not 1,000)."""
        row = await one(
            conn,
            "SELECT COUNT(*), COALESCE(SUM(CASE WHEN person_id = ? THEN 1 ELSE 0 END), 0) "
            "FROM tournament_entries WHERE tournament_id = ?",
            (person_id, tournament_id),
        )
        assert row is not None
        return int(row[0]), bool(row[1])

    async def entries_in(self, conn: Connection, tournament_id: int) -> list[EntryRow]:
        rows = await all_rows(conn, _ENTRY_SQL, (tournament_id,))
        return [EntryRow(*r) for r in rows]  # the 9 columns in order (1,000 rows: keep it lean)

    async def _held(self, conn: Connection, tournament_id: int) -> int:
        row = await one(
            conn,
            "SELECT COALESCE(SUM(amount), 0) FROM ledger WHERE tournament_id = ?",
            (tournament_id,),
        )
        return -int(row[0]) if row else 0

    async def move_chips_in(
        self,
        conn: Connection,
        t: TournamentRow,
        user_id: int,
        amount: int,
        kind: str,
        *,
        short_ok: bool = True,
    ) -> None:
        """Move ``amount`` into the player's balance (negative: out of it, only within
        the chips available) with its ledger entry."""
        cursor = await conn.execute(
            "UPDATE accounts SET balance = balance + ?, tournament_net = tournament_net + ? "
            "WHERE guild_id = ? AND user_id = ? AND balance - held + ? >= 0",
            (amount, amount, t.guild_id, user_id, amount),
        )
        if cursor.rowcount != 1:
            row = await one(
                conn,
                "SELECT balance - held FROM accounts WHERE guild_id = ? AND user_id = ?",
                (t.guild_id, user_id),
            )
            if short_ok:  # pragma: no cover - a refund or prize always fits
                raise StorageError(f"cannot move {amount} for user {user_id}")
            raise TournamentRefused("short", available=int(row[0]) if row else 0, fee=-amount)
        balance = await one(
            conn,
            "SELECT balance FROM accounts WHERE guild_id = ? AND user_id = ?",
            (t.guild_id, user_id),
        )
        assert balance is not None
        await conn.execute(
            "INSERT INTO ledger (guild_id, person_id, kind, amount, hand_id, balance_after, "
            f"created_at, tournament_id) VALUES (?, {people.PERSON_SQL}, ?, ?, NULL, ?, ?, ?)",
            (
                t.guild_id,
                t.guild_id,
                user_id,
                kind,
                amount,
                int(balance[0]),
                self._db.clock(),
                t.tournament_id,
            ),
        )

    async def update_entries_in(
        self,
        conn: Connection,
        t: TournamentRow,
        stacks: Mapping[int, int],
        places: Mapping[int, int],
    ) -> None:
        # only the named players' rows: a multi-table hand names 2-6 of up to 1,000 entrants
        named = sorted(set(stacks) | set(places))
        people_ids = [u for u in named if u > 0]
        bot_entries = [-u - 1 for u in named if u < 1]  # computer players: -(entry + 1)
        rows = await all_rows(
            conn,
            "SELECT e.entry, COALESCE(p.user_id, -(e.entry + 1)), e.stack "
            "FROM tournament_entries e LEFT JOIN people p ON p.person_id = e.person_id "
            "WHERE e.tournament_id = ? AND ("
            f"p.user_id IN ({', '.join('?' * len(people_ids)) or 'NULL'}) OR "
            f"(e.person_id IS NULL AND e.entry IN ({', '.join('?' * len(bot_entries)) or 'NULL'})))"
            " ORDER BY e.entry",
            (t.tournament_id, *people_ids, *bot_entries),
        ) if named else []  # fmt: skip
        entries = {int(r[1]): _Named(int(r[0]), int(r[2])) for r in rows}
        strangers = set(named) - set(entries)
        if strangers:
            raise StorageError(f"tournament #{t.tournament_id}: {sorted(strangers)} not entered")
        await conn.executemany(
            "UPDATE tournament_entries SET stack = ?, place = COALESCE(?, place) "
            "WHERE tournament_id = ? AND entry = ?",
            [
                (stacks.get(u, e.stack), places.get(u), t.tournament_id, e.entry)
                for u, e in entries.items()
                if u in stacks or u in places
            ],
        )

    async def finish_in(self, conn: Connection, t: TournamentRow, final: Final) -> None:
        entries = await self.entries_in(conn, t.tournament_id)
        users = {e.user_id for e in entries}
        if set(final.places) != users or set(final.prizes) != users:
            raise StorageError(f"tournament #{t.tournament_id}: the end must place everyone")
        held = await self._held(conn, t.tournament_id)
        if sum(final.prizes.values()) != held:
            raise StorageError(
                f"tournament #{t.tournament_id}: prizes {sum(final.prizes.values())} "
                f"but it holds {held}"
            )
        await self._close(conn, t, "finished")
        ends = [
            (final.places[e.user_id], final.prizes[e.user_id], final.points.get(e.user_id, 0), e)
            for e in entries
        ]
        await conn.executemany(  # the rows that change (most of 1,000 are placed already)
            "UPDATE tournament_entries SET place = ?, prize = ?, points = ? "
            "WHERE tournament_id = ? AND entry = ?",
            [
                (place, prize, points, t.tournament_id, e.entry)
                for place, prize, points, e in ends
                if (place, prize, points) != (e.place, e.prize, e.points)
            ],
        )
        paid = {e.user_id: final.prizes[e.user_id] for e in entries if final.prizes[e.user_id] > 0}
        await self._pay_in(conn, t, paid)

    async def _pay_in(self, conn: Connection, t: TournamentRow, prizes: Mapping[int, int]) -> None:
        """Pay every prize (user -> chips, all above 0) with its ledger entry: three
        statements for all the players (153 are paid at 1,000 entrants), not three each."""
        if not prizes:
            return
        users = list(prizes)
        rows = await all_rows(
            conn,
            "SELECT user_id, balance FROM accounts WHERE guild_id = ? "
            f"AND user_id IN ({', '.join('?' * len(users))})",
            (t.guild_id, *users),
        )
        before = {int(r[0]): int(r[1]) for r in rows}
        if len(before) != len(users):  # pragma: no cover - every entrant has an account
            raise StorageError(f"tournament #{t.tournament_id}: a prize winner has no account")
        await conn.executemany(
            "UPDATE accounts SET balance = balance + ?, tournament_net = tournament_net + ? "
            "WHERE guild_id = ? AND user_id = ?",
            [(prizes[u], prizes[u], t.guild_id, u) for u in users],
        )
        now = self._db.clock()
        await conn.executemany(
            "INSERT INTO ledger (guild_id, person_id, kind, amount, hand_id, balance_after, "
            f"created_at, tournament_id) VALUES (?, {people.PERSON_SQL}, 'sng_prize', ?, NULL, "
            "?, ?, ?)",
            [(t.guild_id, t.guild_id, u, prizes[u], before[u] + prizes[u], now, t.tournament_id)
             for u in users],
        )  # fmt: skip

    async def _close(self, conn: Connection, t: TournamentRow, status: str) -> None:
        cursor = await conn.execute(
            "UPDATE tournaments SET status = ?, ended_at = ? "
            "WHERE tournament_id = ? AND status = ?",
            (status, self._db.clock(), t.tournament_id, t.status),
        )
        if cursor.rowcount != 1:  # another process moved it on: take theirs
            raise TournamentRefused("not_open")
