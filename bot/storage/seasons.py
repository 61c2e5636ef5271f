"""The seasons repository: a server's seasons and each one's tournament standings.

Each method is one transaction. Seasons are monthly by default: the first look at a
server's season opens the calendar month's (UTC), and a monthly season that has run
past its month ends at the boundary, the month now running opening after it (months
with no look in between have no season). A moderator may start a season (``manual``:
it runs until a moderator ends it; or ``monthly`` again), which ends the running one
at that moment, and may end the running one: after a manual season none runs until a
moderator starts one, after a monthly season the next month's opens on schedule.

A finished tournament (practice events apart) counts in the season whose half-open
window ``[started_at, ended_at)`` holds its ``ended_at``: standings are derived from
the dated tournament rows, so past seasons stay exactly as they were.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from datetime import UTC, datetime
from enum import StrEnum

from bot.storage.connection import Connection, Row
from bot.storage.database import Database, all_rows, one
from bot.storage.errors import StorageError

FOREVER = 1e18  # the end of a season that runs (a timestamp beyond any clock)


class SeasonKind(StrEnum):
    """How a season ends."""

    MONTHLY = "monthly"
    MANUAL = "manual"


class SeasonRefused(StorageError):
    """A request about seasons that cannot be honoured: ``code`` says why.

    Codes: none_running (nothing to end), unknown (no season of that number)."""

    def __init__(self, code: str, **params: int) -> None:
        super().__init__(code)
        self.code = code
        self.params = params


@dataclass(frozen=True, slots=True)
class SeasonRow:
    season_id: int
    guild_id: int
    number: int
    kind: str  # a SeasonKind value
    name: str | None
    started_at: float
    ended_at: float | None  # None: it runs


@dataclass(frozen=True, slots=True)
class SeasonStanding:
    rank: int
    user_id: int
    display_name: str
    points: int
    wins: int
    cashes: int
    entries: int
    best: int  # best finishing place


def month_start(ts: float) -> float:
    """The first instant (UTC) of the calendar month holding ``ts``."""
    day = datetime.fromtimestamp(ts, UTC)
    return day.replace(day=1, hour=0, minute=0, second=0, microsecond=0).timestamp()


def next_month(ts: float) -> float:
    """The first instant (UTC) of the calendar month after the one holding ``ts``."""
    day = datetime.fromtimestamp(month_start(ts), UTC)
    if day.month == 12:
        return day.replace(year=day.year + 1, month=1).timestamp()
    return day.replace(month=day.month + 1).timestamp()


def _season(row: Row) -> SeasonRow:
    values = {f.name: row[f.name] for f in fields(SeasonRow)}
    values["started_at"] = float(values["started_at"])
    if values["ended_at"] is not None:
        values["ended_at"] = float(values["ended_at"])
    return SeasonRow(**values)


class Seasons:
    """Seasons over one ``Database``."""

    def __init__(self, db: Database) -> None:
        self._db = db

    async def current(self, guild_id: int) -> SeasonRow | None:
        """The season running now (opened or rolled over as the rules above say), or
        None when a moderator's season has ended and no other was started."""
        async with self._db.write("season_roll") as conn:
            return await self._roll(conn, guild_id, self._db.clock())

    async def start(
        self, guild_id: int, name: str | None = None, kind: SeasonKind = SeasonKind.MANUAL
    ) -> SeasonRow:
        """End the running season now and start a new one."""
        async with self._db.write("season_start") as conn:
            now = self._db.clock()
            running = await self._roll(conn, guild_id, now)
            if running is not None:
                await self._end(conn, running, now)
            last = await self._last(conn, guild_id)
            return await self._open(conn, guild_id, (last.number if last else 0) + 1, kind,
                                    name, now)  # fmt: skip

    async def end(self, guild_id: int) -> SeasonRow:
        """End the running season now (refused ``none_running`` if none runs)."""
        async with self._db.write("season_end") as conn:
            now = self._db.clock()
            running = await self._roll(conn, guild_id, now)
            if running is None:
                raise SeasonRefused("none_running")
            await self._end(conn, running, now)
            ended = await self._by_number(conn, guild_id, running.number)
        assert ended is not None
        return ended

    async def seasons(
        self, guild_id: int, page: int = 1, per_page: int = 10
    ) -> tuple[list[SeasonRow], int]:
        """Page ``page`` of the server's seasons, the newest first, and how many."""
        if page < 1 or per_page < 1:
            raise ValueError(f"page and per_page must be >= 1, got {page}, {per_page}")
        async with self._db.write("season_roll") as conn:
            await self._roll(conn, guild_id, self._db.clock())
            total = await one(conn, "SELECT COUNT(*) FROM seasons WHERE guild_id = ?", (guild_id,))
            rows = await all_rows(
                conn,
                "SELECT * FROM seasons WHERE guild_id = ? ORDER BY number DESC LIMIT ? OFFSET ?",
                (guild_id, per_page, (page - 1) * per_page),
            )
        return [_season(r) for r in rows], int(total[0]) if total else 0

    async def standings(
        self, guild_id: int, number: int | None = None, page: int = 1, per_page: int = 10
    ) -> tuple[SeasonRow | None, list[SeasonStanding], int]:
        """Page ``page`` of season ``number``'s standings (the running season's if None,
        and then None with no rows when none runs): points, then wins, then the best
        finish, then fewer entries; and how many players are ranked. Refused
        ``unknown`` for a season number the server never had."""
        if page < 1 or per_page < 1:
            raise ValueError(f"page and per_page must be >= 1, got {page}, {per_page}")
        offset = (page - 1) * per_page
        async with self._db.write("season_roll") as conn:
            running = await self._roll(conn, guild_id, self._db.clock())
            season = running if number is None else await self._by_number(conn, guild_id, number)
            if season is None:
                if number is not None:
                    raise SeasonRefused("unknown", number=number)
                return None, [], 0
            end = FOREVER if season.ended_at is None else season.ended_at
            window = (guild_id, season.started_at, end)
            base = (
                "FROM tournament_entries e "
                "JOIN tournaments t ON t.tournament_id = e.tournament_id "
                "JOIN people p ON p.person_id = e.person_id "
                "WHERE t.guild_id = ? AND t.status = 'finished' AND t.practice = 0 "
                "AND t.ended_at >= ? AND t.ended_at < ? AND p.user_id > 0"
            )
            total = await one(conn, f"SELECT COUNT(DISTINCT e.person_id) {base}", window)
            rows = await all_rows(
                conn,
                "SELECT p.user_id, MAX(p.display_name) AS person_name, "
                "MAX(e.display_name) AS entry_name, SUM(e.points) AS points, "
                "SUM(CASE WHEN e.place = 1 THEN 1 ELSE 0 END) AS wins, "
                "SUM(CASE WHEN e.points > 0 THEN 1 ELSE 0 END) AS cashes, "
                "COUNT(*) AS entries, MIN(e.place) AS best "
                f"{base} GROUP BY p.user_id "
                "ORDER BY points DESC, wins DESC, best ASC, entries ASC, p.user_id ASC "
                "LIMIT ? OFFSET ?",
                (*window, per_page, offset),
            )
        ranked = [
            SeasonStanding(
                rank=offset + i + 1,
                user_id=int(r["user_id"]),
                display_name=str(r["person_name"] or r["entry_name"]),
                points=int(r["points"]),
                wins=int(r["wins"]),
                cashes=int(r["cashes"]),
                entries=int(r["entries"]),
                best=int(r["best"]),
            )
            for i, r in enumerate(rows)
        ]
        return season, ranked, int(total[0]) if total else 0

    # ----- inside a transaction ---------------------------------------------

    async def _roll(self, conn: Connection, guild_id: int, now: float) -> SeasonRow | None:
        """The running season after rolling monthly seasons over (see the module)."""
        last = await self._last(conn, guild_id)
        if last is None:
            return await self._open(conn, guild_id, 1, SeasonKind.MONTHLY, None, month_start(now))
        if last.kind != SeasonKind.MONTHLY:
            return last if last.ended_at is None else None
        boundary = next_month(last.started_at)
        if last.ended_at is None:
            if now < boundary:
                return last
            await self._end(conn, last, boundary)
            last = await self._by_number(conn, guild_id, last.number)
            assert last is not None and last.ended_at is not None
        if now < boundary:  # a monthly season ended early: the next opens next month
            return None
        start = max(month_start(now), last.ended_at)
        return await self._open(conn, guild_id, last.number + 1, SeasonKind.MONTHLY, None, start)

    async def _last(self, conn: Connection, guild_id: int) -> SeasonRow | None:
        row = await one(
            conn,
            "SELECT * FROM seasons WHERE guild_id = ? ORDER BY number DESC LIMIT 1",
            (guild_id,),
        )
        return None if row is None else _season(row)

    async def _by_number(self, conn: Connection, guild_id: int, number: int) -> SeasonRow | None:
        row = await one(
            conn, "SELECT * FROM seasons WHERE guild_id = ? AND number = ?", (guild_id, number)
        )
        return None if row is None else _season(row)

    async def _open(
        self,
        conn: Connection,
        guild_id: int,
        number: int,
        kind: SeasonKind,
        name: str | None,
        started_at: float,
    ) -> SeasonRow:
        await conn.execute(
            "INSERT INTO seasons (guild_id, number, kind, name, started_at) VALUES (?, ?, ?, ?, ?)",
            (guild_id, number, kind.value, name, started_at),
        )
        made = await self._by_number(conn, guild_id, number)
        assert made is not None
        return made

    async def _end(self, conn: Connection, season: SeasonRow, at: float) -> None:
        cursor = await conn.execute(
            "UPDATE seasons SET ended_at = ? WHERE season_id = ? AND ended_at IS NULL",
            (max(at, season.started_at), season.season_id),
        )
        if cursor.rowcount != 1:  # another process ended it in between: take theirs
            raise SeasonRefused("none_running")
