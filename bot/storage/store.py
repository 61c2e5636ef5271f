"""The bot's durable state: tables, seats, hand records and chip accounts.

Every public write runs in one ``BEGIN IMMEDIATE … COMMIT`` and returns only
after the COMMIT (synchronous=FULL), so success means "on disk".

One connection is shared by all coroutines, and SQLite transactions belong to
the connection, so an ``asyncio.Lock`` serialises whole transactions; without
it two coroutines' statements would interleave inside one transaction.

Group commit: ``append_action``/``append_reshuffle`` (the hot path, one per
player action at every table) that arrive while another transaction runs are
queued and written together in one transaction, so one fsync serves them all;
each caller still returns only after that COMMIT, and an invalid append (out of
sequence, hand not live) raises for its own caller without failing the batch.

Chips: a hand places a *hold* on each player's account for the chips they
bring (``start_hand``). ``available = balance - Σ holds of live hands``, and a
hold can only be placed within ``available``; ``finish_hand`` refuses a loss
larger than the hold. Hence ``balance`` can never go negative, even for a
player sitting at several tables at once. The database enforces the same
(migration 3, ``db.LEDGER_GUARDS``), so a bug here is refused, not written.

Backends: the same code runs on SQLite (a file path) and PostgreSQL (a
``postgresql://`` URL); ``backend.py`` and ``postgres.py`` hold all that
differs. On PostgreSQL one connection per process is used the same way, and
group commit saves the same round trips and WAL flushes.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Callable, Collection, Iterable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any

from bot.storage.backend import Connection, Row, claim_guild, open_connection
from bot.storage.db import rollback_quietly
from bot.storage.dm_channels import DmChannel, load_dm_channels, save_dm_channel
from bot.storage.server_store import ServerStore

Clock = Callable[[], float]

# ---------------------------------------------------------------- errors


KEEP: Any = object()  # "leave the stored value (deadline, button) as it is"

# Failpoint for the crash tests, None in production: called as ``commit_hook(step, moment)``
# around every COMMIT, ``step`` the public method ("start_hand", "append_action", …) and
# ``moment`` "before" or "after". It may raise (before: the transaction rolls back) or
# kill the process, so tests can stop a step exactly at a write boundary.
commit_hook: Callable[[str, str], None] | None = None


class StorageError(Exception):
    """Base class of the errors the Store raises on purpose."""


class UnknownAccount(StorageError):
    def __init__(self, guild_id: int, user_id: int) -> None:
        super().__init__(f"no chip account for user {user_id} in guild {guild_id}")
        self.guild_id = guild_id
        self.user_id = user_id


class UnknownTable(StorageError):
    def __init__(self, channel_id: int) -> None:
        super().__init__(f"no table in channel {channel_id}")
        self.channel_id = channel_id


class UnknownHand(StorageError):
    def __init__(self, hand_id: int) -> None:
        super().__init__(f"no hand #{hand_id}")
        self.hand_id = hand_id


class HandNotLive(StorageError):
    def __init__(self, hand_id: int) -> None:
        super().__init__(f"hand #{hand_id} is already complete")
        self.hand_id = hand_id


class OutOfSequence(StorageError):
    """An action/reshuffle index that is not the next one (e.g. a duplicate)."""

    def __init__(self, hand_id: int, expected: int, got: int) -> None:
        super().__init__(f"hand #{hand_id}: expected index {expected}, got {got}")
        self.hand_id = hand_id
        self.expected = expected
        self.got = got


class InsufficientChips(StorageError):
    def __init__(self, user_id: int, available: int, needed: int | None = None) -> None:
        wanted = "" if needed is None else f", needs {needed}"
        super().__init__(f"user {user_id} has only {available} chips available{wanted}")
        self.user_id = user_id
        self.available = available
        self.needed = needed


class RefillRefused(StorageError):
    """The message says why, with the numbers; ``code`` and ``params`` say it as data."""

    def __init__(self, message: str, code: str, **params: int) -> None:
        super().__init__(message)
        self.code = code
        self.params = params


class BadSettlement(StorageError, ValueError):
    """finish_hand nets that do not sum to 0, name a stranger, or exceed a hold."""


# ---------------------------------------------------------------- rows


@dataclass(frozen=True, slots=True)
class TableRow:
    channel_id: int
    guild_id: int
    variant: str
    settings: dict[str, Any] = field(default_factory=dict)  # stored as settings_json
    button: int | None = None  # seat index of the dealer button
    turn_deadline: float | None = None  # unix time
    open: bool = True


@dataclass(frozen=True, slots=True)
class SeatRow:
    seat: int
    user_id: int
    display_name: str
    sitting_out: bool = False
    leaving: bool = False
    timeouts_in_row: int = 0
    bot: str | None = None  # a computer player's level (practice tables)
    practice_stack: int | None = None  # chips at a practice table, never the ledger's


@dataclass(frozen=True, slots=True)
class Account:
    guild_id: int
    user_id: int
    display_name: str
    balance: int
    held: int  # Σ holds of this user's live hands
    available: int  # balance - held
    granted: int
    refilled: int
    net_won: int
    hands_played: int


@dataclass(frozen=True, slots=True)
class LiveHand:
    hand_id: int
    guild_id: int
    channel_id: int
    variant: str
    header: dict[str, Any]
    seat_users: list[int]  # user_id of header seat i
    holds: dict[int, int]  # user_id -> chips held
    reshuffles: list[list[str]]  # in index order
    actions: list[dict[str, Any]]  # in index order
    started_at: float
    names: dict[int, str] = field(default_factory=dict)  # user_id -> display name at the deal


@dataclass(frozen=True, slots=True)
class LeaderboardRow:
    rank: int
    user_id: int
    display_name: str
    net_won: int
    hands_played: int
    balance: int


@dataclass(frozen=True, slots=True)
class HandSummary:
    hand_id: int
    channel_id: int
    variant: str
    completed_at: float
    net: int  # this user's result
    record: dict[str, Any]  # as hand_record()
    cancelled: bool = False  # voided by a forced close: every net is 0
    practice: bool = False  # played at a practice table: no chips moved


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


_ACCOUNT_SQL = """
SELECT a.*, COALESCE((
    SELECT SUM(hp.hold) FROM hand_players hp JOIN hands h ON h.hand_id = hp.hand_id
    WHERE hp.guild_id = a.guild_id AND hp.user_id = a.user_id AND h.status = 'live'
), 0) AS held
FROM accounts a WHERE a.guild_id = ? AND a.user_id = ?
"""


def _account(row: Row) -> Account:
    return Account(
        guild_id=row["guild_id"],
        user_id=row["user_id"],
        display_name=row["display_name"],
        balance=row["balance"],
        held=int(row["held"]),  # PostgreSQL's SUM of BIGINT is NUMERIC
        available=row["balance"] - int(row["held"]),
        granted=row["granted"],
        refilled=row["refilled"],
        net_won=row["net_won"],
        hands_played=row["hands_played"],
    )


def _table(row: Row) -> TableRow:
    return TableRow(
        channel_id=row["channel_id"],
        guild_id=row["guild_id"],
        variant=row["variant"],
        settings=json.loads(row["settings_json"]),
        button=row["button"],
        turn_deadline=row["turn_deadline"],
        open=bool(row["open"]),
    )


def _seat(row: Row) -> SeatRow:
    return SeatRow(
        seat=row["seat"],
        user_id=row["user_id"],
        display_name=row["display_name"],
        sitting_out=bool(row["sitting_out"]),
        leaving=bool(row["leaving"]),
        timeouts_in_row=row["timeouts_in_row"],
        bot=row["bot"],
        practice_stack=row["practice_stack"],
    )


def _check_seats(seats: Sequence[SeatRow]) -> None:
    _check_unique("seat", (s.seat for s in seats))
    _check_unique("user_id", (s.user_id for s in seats))


def _check_unique(what: str, values: Iterable[int]) -> None:
    seen: set[int] = set()
    for value in values:
        if value in seen:
            raise ValueError(f"duplicate {what} {value}")
        seen.add(value)


@dataclass(slots=True)
class _Append:
    """One player step waiting for its group commit: written all or nothing."""

    hand_id: int
    rows: list[tuple[str, int, str]]  # (hand_reshuffles or hand_actions, index, JSON), in order
    deadline: float | None = KEEP
    seats: Sequence[SeatRow] | None = None  # replaces the table's seats
    done: asyncio.Future[None] = field(
        default_factory=lambda: asyncio.get_running_loop().create_future()
    )


_COLUMN = {"hand_actions": "action_json", "hand_reshuffles": "cards_json"}


class Store(ServerStore):
    """Async persistence API over one database connection. See module docstring."""

    def __init__(self, conn: Connection, clock: Clock = time.time) -> None:
        self._conn = conn  # see backend.open_connection
        self._clock = clock
        self._lock = asyncio.Lock()
        self._appends: list[_Append] = []  # waiting for the next group commit
        self._flusher: asyncio.Task[None] | None = None

    @classmethod
    async def open(cls, target: str | Path, clock: Clock = time.time) -> Store:
        """Open a SQLite file path or a ``postgresql://`` URL, migrated."""
        return cls(await open_connection(target), clock)

    async def close(self) -> None:
        while self._flusher is not None and not self._flusher.done():
            await self._flusher  # appends already accepted still get written
        async with self._lock:
            await self._conn.close()

    async def claim_guild(self, guild_id: int) -> bool:
        """Make this process the only one acting on the guild's tables, until it exits;
        False while another process holds it. Idempotent. On PostgreSQL a session
        advisory lock on this same connection (so it lapses when the process dies, and
        the database refuses writes for a guild another session holds: migration 5);
        on SQLite always True (one file, one process)."""
        async with self._lock:
            return await claim_guild(self._conn, guild_id)

    async def __aenter__(self) -> Store:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    # ------------------------------------------------------------ plumbing

    @asynccontextmanager
    async def _write(self, step: str = "server_store") -> AsyncIterator[Connection]:
        """One write transaction; COMMIT (durable) on success, ROLLBACK on error."""
        async with self._lock, self._transaction(step) as conn:
            yield conn

    @asynccontextmanager
    async def _transaction(self, step: str) -> AsyncIterator[Connection]:
        """BEGIN IMMEDIATE … COMMIT / ROLLBACK; the caller holds ``self._lock``.

        ``step`` names the public method, for ``commit_hook``."""
        await self._conn.execute("BEGIN IMMEDIATE")
        try:
            yield self._conn
            if commit_hook is not None:
                commit_hook(step, "before")
            await self._conn.execute("COMMIT")
            if commit_hook is not None:
                commit_hook(step, "after")
        except BaseException:
            await rollback_quietly(self._conn)  # nothing to undo if COMMIT already ran
            raise

    @asynccontextmanager
    async def _read(self) -> AsyncIterator[Connection]:
        """A read transaction, so multi-query reads see one snapshot."""
        async with self._lock:
            await self._conn.execute("BEGIN")
            try:
                yield self._conn
            finally:
                await rollback_quietly(self._conn)

    @staticmethod
    async def _one(conn: Connection, sql: str, args: Sequence[Any]) -> Row | None:
        async with conn.execute(sql, args) as cursor:
            return await cursor.fetchone()

    @staticmethod
    async def _all(conn: Connection, sql: str, args: Sequence[Any]) -> list[Row]:
        async with conn.execute(sql, args) as cursor:
            return list(await cursor.fetchall())

    async def _get_account(self, conn: Connection, guild_id: int, user_id: int) -> Account:
        row = await self._one(conn, _ACCOUNT_SQL, (guild_id, user_id))
        if row is None:
            raise UnknownAccount(guild_id, user_id)
        return _account(row)

    async def _live_hand_row(self, conn: Connection, hand_id: int) -> Row:
        row = await self._one(conn, "SELECT * FROM hands WHERE hand_id = ?", (hand_id,))
        if row is None:
            raise UnknownHand(hand_id)
        if row["status"] != "live":
            raise HandNotLive(hand_id)
        return row

    # ------------------------------------------------------------ tables & seats

    async def save_table(self, table: TableRow, *, seats: Sequence[SeatRow] | None = None) -> None:
        """Insert or replace the table's row, and with ``seats`` all its seats, in one
        transaction (without, the seats are left as they are)."""
        if seats is not None:
            _check_seats(seats)
        async with self._write("save_table") as conn:
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
                    _dumps(table.settings),
                    table.button,
                    table.turn_deadline,
                    int(table.open),
                    self._clock(),
                ),
            )
            if seats is not None:
                await self._replace_seats(conn, table.channel_id, seats)

    async def load_tables(self, include_closed: bool = False) -> list[TableRow]:
        """Open tables (all if include_closed), by channel_id."""
        where = "" if include_closed else "WHERE open = 1"
        async with self._read() as conn:
            rows = await self._all(conn, f"SELECT * FROM tables {where} ORDER BY channel_id", ())
        return [_table(row) for row in rows]

    async def load_table(self, channel_id: int) -> TableRow | None:
        """The channel's table row (open or closed), None if it never had one."""
        async with self._read() as conn:
            row = await self._one(conn, "SELECT * FROM tables WHERE channel_id = ?", (channel_id,))
        return None if row is None else _table(row)

    async def set_deadline(self, channel_id: int, deadline: float | None) -> None:
        async with self._write("set_deadline") as conn:
            cursor = await conn.execute(
                "UPDATE tables SET turn_deadline = ?, updated_at = ? WHERE channel_id = ?",
                (deadline, self._clock(), channel_id),
            )
            if cursor.rowcount != 1:
                raise UnknownTable(channel_id)

    async def close_table(self, channel_id: int) -> None:
        """Mark closed, clear the deadline and remove its seats (the row is kept)."""
        async with self._write("close_table") as conn:
            await self._close_table(conn, channel_id)

    async def _close_table(self, conn: Connection, channel_id: int) -> None:
        cursor = await conn.execute(
            "UPDATE tables SET open = 0, turn_deadline = NULL, updated_at = ? WHERE channel_id = ?",
            (self._clock(), channel_id),
        )
        if cursor.rowcount != 1:
            raise UnknownTable(channel_id)
        await conn.execute("DELETE FROM seats WHERE channel_id = ?", (channel_id,))

    async def set_table_message(self, channel_id: int, message_id: int) -> None:
        """Remember which message shows a table (the Discord layer edits it in place)."""
        async with self._write("set_table_message") as conn:
            await conn.execute(
                "INSERT INTO table_messages (channel_id, message_id) VALUES (?, ?) "
                "ON CONFLICT (channel_id) DO UPDATE SET message_id = excluded.message_id",
                (channel_id, message_id),
            )

    async def table_messages(self) -> dict[int, int]:
        async with self._read() as conn:
            rows = await self._all(conn, "SELECT channel_id, message_id FROM table_messages", ())
        return {int(r[0]): int(r[1]) for r in rows}

    async def dm_channels(self) -> dict[int, DmChannel]:
        """Every user's known DM channel (bot/storage/dm_channels.py)."""
        async with self._read() as conn:
            return await load_dm_channels(conn)

    async def set_dm_channel(self, dm: DmChannel) -> None:
        async with self._write("set_dm_channel") as conn:
            await save_dm_channel(conn, dm, self._clock())

    async def save_seats(self, channel_id: int, seats: Sequence[SeatRow]) -> None:
        """Replace all seats of the table (which must have been saved) with ``seats``."""
        _check_seats(seats)
        async with self._write("save_seats") as conn:
            await self._replace_seats(conn, channel_id, seats)

    async def _replace_seats(
        self, conn: Connection, channel_id: int, seats: Sequence[SeatRow]
    ) -> None:
        if await self._one(conn, "SELECT 1 FROM tables WHERE channel_id = ?", (channel_id,)):
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
        async with self._read() as conn:
            rows = await self._all(
                conn, "SELECT * FROM seats WHERE channel_id = ? ORDER BY seat", (channel_id,)
            )
        return [_seat(row) for row in rows]

    async def load_seats_of(self, channel_ids: Collection[int]) -> dict[int, list[SeatRow]]:
        """``load_seats`` of many tables in one read (recovery: a round trip per table
        adds up on PostgreSQL); every given channel is a key."""
        ids = sorted(set(channel_ids))
        seats: dict[int, list[SeatRow]] = {channel: [] for channel in ids}
        async with self._read() as conn:
            for start in range(0, len(ids), 5000):  # under both backends' parameter limits
                chunk = ids[start : start + 5000]
                for row in await self._all(
                    conn,
                    f"SELECT * FROM seats WHERE channel_id IN ({','.join('?' * len(chunk))}) "
                    "ORDER BY channel_id, seat",
                    chunk,
                ):
                    seats[row["channel_id"]].append(_seat(row))
        return seats

    # ------------------------------------------------------------ accounts

    async def ensure_account(
        self, guild_id: int, user_id: int, display_name: str, grant: int
    ) -> Account:
        """The account, created with a 'grant' ledger entry of ``grant`` if missing.

        An existing account only gets its display_name refreshed.
        """
        if grant < 0:
            raise ValueError(f"grant must be >= 0, got {grant}")
        now = self._clock()
        async with self._write("ensure_account") as conn:
            cursor = await conn.execute(
                "INSERT INTO accounts (guild_id, user_id, display_name, balance, granted, "
                "created_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                (guild_id, user_id, display_name, grant, grant, now),
            )
            if cursor.rowcount == 1:
                await self._ledger(conn, guild_id, user_id, "grant", grant, None, grant)
            else:
                await conn.execute(
                    "UPDATE accounts SET display_name = ? WHERE guild_id = ? AND user_id = ? "
                    "AND display_name != ?",
                    (display_name, guild_id, user_id, display_name),
                )
            return await self._get_account(conn, guild_id, user_id)

    async def balance(self, guild_id: int, user_id: int) -> Account | None:
        async with self._read() as conn:
            row = await self._one(conn, _ACCOUNT_SQL, (guild_id, user_id))
        return None if row is None else _account(row)

    async def refill(self, guild_id: int, user_id: int, grant: int, smallest_minimum: int) -> int:
        """Top the balance up to ``grant``; return the amount added.

        Allowed only when the balance is below the smallest table minimum and
        the player is in no live hand (their chips there are still in play).
        Raises RefillRefused (reason with the numbers) or UnknownAccount.
        """
        async with self._write("refill") as conn:
            account = await self._get_account(conn, guild_id, user_id)
            _check_refill(account, grant, smallest_minimum)
            amount = grant - account.balance
            await conn.execute(
                "UPDATE accounts SET balance = balance + ?, refilled = refilled + ? "
                "WHERE guild_id = ? AND user_id = ?",
                (amount, amount, guild_id, user_id),
            )
            await self._ledger(conn, guild_id, user_id, "refill", amount, None, grant)
        return amount

    async def _ledger(
        self,
        conn: Connection,
        guild_id: int,
        user_id: int,
        kind: str,
        amount: int,
        hand_id: int | None,
        balance_after: int,
    ) -> None:
        await conn.execute(
            "INSERT INTO ledger (guild_id, user_id, kind, amount, hand_id, balance_after, "
            "created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (guild_id, user_id, kind, amount, hand_id, balance_after, self._clock()),
        )

    async def leaderboard(
        self, guild_id: int, page: int, per_page: int = 10
    ) -> tuple[list[LeaderboardRow], int]:
        """Page ``page`` (1-based) of the guild ranked by net_won; and how many are ranked.

        Only players of at least one hand are ranked (an account made by /balance is not).
        net_won is the sum of hand results, so refills do not lift anyone.
        Ties: more hands played first, then lower user_id.
        """
        if page < 1 or per_page < 1:
            raise ValueError(f"page and per_page must be >= 1, got {page}, {per_page}")
        offset = (page - 1) * per_page
        async with self._read() as conn:
            total = await self._one(
                conn,
                "SELECT COUNT(*) FROM accounts "
                "WHERE guild_id = ? AND user_id > 0 AND hands_played > 0",
                (guild_id,),
            )
            rows = await self._all(
                conn,
                "SELECT user_id, display_name, net_won, hands_played, balance FROM accounts "
                "WHERE guild_id = ? AND user_id > 0 "  # erased players (ids < 0) are not ranked
                "AND hands_played > 0 "
                "ORDER BY net_won DESC, hands_played DESC, user_id ASC LIMIT ? OFFSET ?",
                (guild_id, per_page, offset),
            )
        ranked = [LeaderboardRow(rank=offset + i + 1, **dict(row)) for i, row in enumerate(rows)]
        return ranked, int(total[0]) if total else 0

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
    ) -> int:
        """Record a new live hand and hold each player's chips; return its hand_id.

        ``names`` (user_id -> display name) are kept with the hand for its result.

        ``seat_users[i]`` is the user_id of seat i of ``header`` (the header
        names players, the ledger needs ids). ``holds`` maps every one of those
        users to the chips they bring (their maximum loss). A ``button`` or
        ``deadline`` given is stored on the channel's table row (which must
        exist) in the same transaction: the deal and the button it moves are
        one step. All or nothing: InsufficientChips / UnknownAccount /
        UnknownTable leave the database untouched.

        A ``practice`` hand (a table with computer players) holds nothing and
        touches no account: every hold must be 0, and only people (user ids
        above 0) get a ``hand_players`` row, for /history. ``seats`` (if given)
        replace the table's seats in the same transaction (refilled practice
        stacks).
        """
        _check_hand_args(header, holds, seat_users)
        if practice and any(holds.values()):
            raise ValueError(f"a practice hand holds no chips: {dict(holds)}")
        if seats is not None:
            _check_seats(seats)
        async with self._write("start_hand") as conn:
            for user_id in seat_users if not practice else ():
                account = await self._get_account(conn, guild_id, user_id)
                if account.available < holds[user_id]:
                    raise InsufficientChips(user_id, account.available, holds[user_id])
            hand_id = await self._insert_hand(
                conn, guild_id, channel_id, variant, header, int(practice)
            )
            await conn.executemany(
                "INSERT INTO hand_players (hand_id, seat, guild_id, user_id, hold, display_name) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                [
                    (hand_id, i, guild_id, u, holds[u], (names or {}).get(u))
                    for i, u in enumerate(seat_users)
                    if u > 0 or not practice
                ],
            )
            if seats is not None:
                await self._replace_seats(conn, channel_id, seats)
            updates = {"button": button, "turn_deadline": deadline}
            changes = {column: value for column, value in updates.items() if value is not KEEP}
            if changes:
                sets = ", ".join(f"{column} = ?" for column in changes)
                cursor = await conn.execute(
                    f"UPDATE tables SET {sets}, updated_at = ? WHERE channel_id = ?",
                    (*changes.values(), self._clock(), channel_id),
                )
                if cursor.rowcount != 1:
                    raise UnknownTable(channel_id)
        return hand_id

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
        """Append action ``index`` (must be exactly the next: 0, 1, …) to a live hand.

        One player step is one transaction, all or nothing, with:
        ``reshuffles``, the ``(index, cards)`` stubs this action drew (each index
        the next one); ``deadline``, the table's next turn deadline (the default
        keeps the stored one); ``seats``, all of the table's seats (replacing the
        stored ones; e.g. the actor's timeouts-in-a-row count). Raises
        UnknownHand, HandNotLive or OutOfSequence (and writes nothing of it).
        """
        if seats is not None:
            _check_seats(seats)
        rows = [("hand_reshuffles", number, _dumps(list(cards))) for number, cards in reshuffles]
        rows.append(("hand_actions", index, _dumps(dict(action))))
        await self._append(_Append(hand_id, rows, deadline, seats))

    async def append_reshuffle(self, hand_id: int, index: int, cards: Sequence[str]) -> None:
        """Append reshuffle number ``index`` (0, 1, …) alone: the new stub's cards in order.
        (The manager stores a reshuffle with the action that drew it: ``append_action``.)"""
        await self._append(_Append(hand_id, [("hand_reshuffles", index, _dumps(list(cards)))]))

    async def _append(self, item: _Append) -> None:
        """Group commit: appends that arrive while a commit is running wait together
        and are written in one transaction (one fsync); each caller returns after
        that COMMIT, or gets its own error (a bad append never fails the others)."""
        # a caller cancelled while waiting must not leave an unretrieved exception behind
        item.done.add_done_callback(lambda f: f.cancelled() or f.exception())
        self._appends.append(item)
        if self._flusher is None or self._flusher.done():
            self._flusher = asyncio.get_running_loop().create_task(self._flush_appends())
        await asyncio.shield(item.done)

    async def _flush_appends(self) -> None:
        batch: list[_Append] = []
        try:
            while self._appends:
                async with self._lock:
                    batch, self._appends = self._appends, []
                    errors = await self._write_batch(batch)
                for item, error in zip(batch, errors, strict=True):
                    if item.done.done():
                        continue
                    if error is None:
                        item.done.set_result(None)
                    else:
                        item.done.set_exception(error)
        except BaseException as exc:  # cancelled (the loop is closing): nobody may wait forever
            # A batch cut off in its COMMIT may or may not be on disk: callers must reload.
            for item in [*batch, *self._appends]:
                if not item.done.done():
                    item.done.set_exception(StorageError(f"the write was interrupted ({exc!r})"))
            self._appends = []
            raise

    async def _write_batch(self, batch: list[_Append]) -> list[Exception | None]:
        """One transaction for the whole batch; each caller's own error (or None)."""
        try:
            async with self._transaction("append_action") as conn:
                return await self._write_appends(conn, batch)
        except Exception:
            # Something unexpected failed the whole batch: give every append
            # its own transaction, so each caller gets its own answer.
            errors: list[Exception | None] = []
            for item in batch:
                try:
                    async with self._transaction("append_action") as conn:
                        (error,) = await self._write_appends(conn, [item])
                except Exception as exc:
                    error = exc
                errors.append(error)
            return errors

    async def _write_appends(
        self, conn: Connection, batch: list[_Append]
    ) -> list[Exception | None]:
        """Validate every append against the database and the appends before it in
        the batch, then write the valid ones; return each append's error (or None)."""
        hand_ids = sorted({item.hand_id for item in batch})
        marks = ",".join("?" * len(hand_ids))
        hands = {
            row[0]: (row[1], row[2])
            for row in await self._all(
                conn,
                f"SELECT hand_id, status, channel_id FROM hands WHERE hand_id IN ({marks})",
                hand_ids,
            )
        }
        following: dict[tuple[str, int], int] = {}
        for table in _COLUMN:
            for row in await self._all(
                conn,
                f"SELECT hand_id, MAX(idx) + 1 FROM {table} WHERE hand_id IN ({marks}) "
                "GROUP BY hand_id",
                hand_ids,
            ):
                following[(table, row[0])] = row[1]
        errors: list[Exception | None] = []
        rows: dict[str, list[tuple[int, int, str, float]]] = {table: [] for table in _COLUMN}
        deadlines: dict[int, float | None] = {}
        seats: dict[int, Sequence[SeatRow]] = {}
        now = self._clock()
        for item in batch:
            hand = hands.get(item.hand_id)
            error: Exception | None = None
            if hand is None:
                error = UnknownHand(item.hand_id)
            elif hand[0] != "live":
                error = HandNotLive(item.hand_id)
            else:
                ahead = {table: following.get((table, item.hand_id), 0) for table in _COLUMN}
                for table, index, _data in item.rows:
                    if index != ahead[table]:
                        error = OutOfSequence(item.hand_id, ahead[table], index)
                        break
                    ahead[table] += 1
            if error is None and hand is not None:  # all of this append is valid: take it
                for table, next_index in ahead.items():
                    following[(table, item.hand_id)] = next_index
                for table, index, data in item.rows:
                    rows[table].append((item.hand_id, index, data, now))
                if item.deadline is not KEEP:
                    deadlines[hand[1]] = item.deadline
                if item.seats is not None:
                    seats[hand[1]] = item.seats
            errors.append(error)
        for table, values in rows.items():
            if values:
                await conn.executemany(
                    f"INSERT INTO {table} (hand_id, idx, {_COLUMN[table]}, created_at) "
                    "VALUES (?, ?, ?, ?)",
                    values,
                )
        if deadlines:
            await conn.executemany(
                "UPDATE tables SET turn_deadline = ? WHERE channel_id = ?",
                [(deadline, channel) for channel, deadline in deadlines.items()],
            )
        for channel, table_seats in seats.items():
            await self._replace_seats(conn, channel, table_seats)
        return errors

    async def finish_hand(
        self, hand_id: int, net: Mapping[int, int], *, seats: Sequence[SeatRow] | None = None
    ) -> bool:
        """Settle a hand exactly once; False (and no write) if it was already settled.

        ``net`` maps user_id -> chips won (+) or lost (-); it must sum to 0,
        name only the hand's players (missing ones net 0) and lose at most each
        player's hold. One transaction: hand complete, holds released, a
        'hand' ledger entry per player, balances/net_won/hands_played updated,
        and ``seats`` (if given) replacing the table's seats (leavers gone, ...).
        A practice hand moves no chips: its people's results go to
        ``practice_net`` (for /history) and no account or ledger row changes.
        """
        if sum(net.values()) != 0:
            raise BadSettlement(f"hand #{hand_id}: nets sum to {sum(net.values())}, not 0")
        if seats is not None:
            _check_seats(seats)
        async with self._write("finish_hand") as conn:
            try:
                hand = await self._live_hand_row(conn, hand_id)
            except HandNotLive:
                return False
            await conn.execute(
                "UPDATE hands SET status = 'complete', completed_at = ? WHERE hand_id = ?",
                (self._clock(), hand_id),
            )
            if hand["practice"]:
                await conn.executemany(
                    "UPDATE hand_players SET practice_net = ? WHERE hand_id = ? AND user_id = ?",
                    [(chips, hand_id, user) for user, chips in net.items() if user > 0],
                )
            else:
                players = await self._all(
                    conn,
                    "SELECT user_id, hold FROM hand_players WHERE hand_id = ? ORDER BY seat",
                    (hand_id,),
                )
                _check_settlement(hand_id, net, {p["user_id"]: p["hold"] for p in players})
                await self._settle_all(
                    conn, hand, [(p["user_id"], net.get(p["user_id"], 0)) for p in players]
                )
            if seats is not None:
                await self._replace_seats(conn, hand["channel_id"], seats)
        return True

    async def drop_reshuffles(self, hand_id: int, first: int) -> int:
        """Delete a live hand's reshuffles numbered ``first`` and up; return how many.

        For recovery only: a reshuffle no stored action drew from was never seen by
        anyone (files written before reshuffles were stored with their action)."""
        async with self._write("drop_reshuffles") as conn:
            await self._live_hand_row(conn, hand_id)
            cursor = await conn.execute(
                "DELETE FROM hand_reshuffles WHERE hand_id = ? AND idx >= ?", (hand_id, first)
            )
        return int(cursor.rowcount)

    async def _insert_hand(
        self,
        conn: Connection,
        guild_id: int,
        channel_id: int,
        variant: str,
        header: Mapping[str, Any],
        practice: int,
    ) -> int:
        row = await self._one(
            conn,
            "INSERT INTO hands (guild_id, channel_id, variant, header_json, started_at, "
            "practice) VALUES (?, ?, ?, ?, ?, ?) RETURNING hand_id",
            (guild_id, channel_id, variant, _dumps(dict(header)), self._clock(), practice),
        )
        assert row is not None  # RETURNING gives the new row
        return int(row[0])

    async def _settle_all(
        self, conn: Connection, hand: Row, results: list[tuple[int, int]]
    ) -> None:
        """_settle for every player with one statement of each kind (fewer round trips)."""
        guild_id, hand_id = hand["guild_id"], hand["hand_id"]
        await conn.executemany(
            "UPDATE accounts SET balance = balance + ?, net_won = net_won + ?, "
            "hands_played = hands_played + 1 WHERE guild_id = ? AND user_id = ?",
            [(amount, amount, guild_id, user) for user, amount in results],
        )
        await conn.executemany(
            "UPDATE hand_players SET net = ? WHERE hand_id = ? AND user_id = ?",
            [(amount, hand_id, user) for user, amount in results],
        )
        marks = ",".join("?" * len(results))
        balances = {
            row[0]: int(row[1])
            for row in await self._all(
                conn,
                "SELECT user_id, balance FROM accounts "
                f"WHERE guild_id = ? AND user_id IN ({marks})",
                [guild_id, *(user for user, _ in results)],
            )
        }
        now = self._clock()
        await conn.executemany(
            "INSERT INTO ledger (guild_id, user_id, kind, amount, hand_id, balance_after, "
            "created_at) VALUES (?, ?, 'hand', ?, ?, ?, ?)",
            [
                (guild_id, user, amount, hand_id, balances.get(user, 0), now)
                for user, amount in results
            ],
        )

    async def _record(self, conn: Connection, hand: Row) -> dict[str, Any]:
        reshuffles, actions = await self._history(conn, hand["hand_id"])
        return {**json.loads(hand["header_json"]), "reshuffles": reshuffles, "actions": actions}

    async def _history(
        self, conn: Connection, hand_id: int
    ) -> tuple[list[list[str]], list[dict[str, Any]]]:
        reshuffles = await self._all(
            conn,
            "SELECT cards_json FROM hand_reshuffles WHERE hand_id = ? ORDER BY idx",
            (hand_id,),
        )
        actions = await self._all(
            conn, "SELECT action_json FROM hand_actions WHERE hand_id = ? ORDER BY idx", (hand_id,)
        )
        return [json.loads(r[0]) for r in reshuffles], [json.loads(a[0]) for a in actions]

    async def hand_record(self, hand_id: int) -> dict[str, Any]:
        """The header's fields plus "reshuffles" (card lists) and "actions" (dicts), in order."""
        async with self._read() as conn:
            hand = await self._one(conn, "SELECT * FROM hands WHERE hand_id = ?", (hand_id,))
            if hand is None:
                raise UnknownHand(hand_id)
            return await self._record(conn, hand)

    async def load_live_hands(
        self, guilds: Collection[int] | None = None, *, channel_id: int | None = None
    ) -> list[LiveHand]:
        """Every unfinished hand (of ``guilds``, or of one channel, if given) with its full
        history, oldest first (for recovery)."""
        if guilds is not None and not guilds:
            return []
        where, args = "status = 'live'", tuple(sorted(guilds or ()))
        if args:
            where += f" AND guild_id IN ({','.join('?' * len(args))})"
        if channel_id is not None:
            where, args = where + " AND channel_id = ?", (*args, channel_id)
        live = f"SELECT hand_id FROM hands WHERE {where}"
        async with self._read() as conn:  # four queries in all, however many hands
            hands = await self._all(
                conn, f"SELECT * FROM hands WHERE {where} ORDER BY hand_id", args
            )
            players = await self._all(
                conn,
                f"SELECT hand_id, user_id, hold, display_name FROM hand_players "
                f"WHERE hand_id IN ({live}) "
                "ORDER BY hand_id, seat",
                args,
            )
            reshuffles = await self._all(
                conn,
                f"SELECT hand_id, cards_json FROM hand_reshuffles WHERE hand_id IN ({live}) "
                "ORDER BY hand_id, idx",
                args,
            )
            actions = await self._all(
                conn,
                f"SELECT hand_id, action_json FROM hand_actions WHERE hand_id IN ({live}) "
                "ORDER BY hand_id, idx",
                args,
            )
        seated: dict[int, list[Row]] = {}
        for row in players:
            seated.setdefault(row[0], []).append(row)
        shuffled: dict[int, list[list[str]]] = {}
        for row in reshuffles:
            shuffled.setdefault(row[0], []).append(json.loads(row[1]))
        acted: dict[int, list[dict[str, Any]]] = {}
        for row in actions:
            acted.setdefault(row[0], []).append(json.loads(row[1]))
        return [
            LiveHand(
                hand_id=hand["hand_id"],
                guild_id=hand["guild_id"],
                channel_id=hand["channel_id"],
                variant=hand["variant"],
                header=json.loads(hand["header_json"]),
                seat_users=[p["user_id"] for p in seated.get(hand["hand_id"], [])],
                holds={p["user_id"]: p["hold"] for p in seated.get(hand["hand_id"], [])},
                reshuffles=shuffled.get(hand["hand_id"], []),
                actions=acted.get(hand["hand_id"], []),
                started_at=hand["started_at"],
                names={
                    p["user_id"]: p["display_name"]
                    for p in seated.get(hand["hand_id"], [])
                    if p["display_name"] is not None
                },
            )
            for hand in hands
        ]

    async def recent_hands(self, guild_id: int, user_id: int, limit: int = 10) -> list[HandSummary]:
        """The user's last ``limit`` completed hands in the guild, newest first."""
        async with self._read() as conn:
            rows = await self._all(
                conn,
                "SELECT h.*, COALESCE(hp.net, hp.practice_net) AS net "
                "FROM hand_players hp JOIN hands h ON h.hand_id = hp.hand_id "
                "WHERE hp.guild_id = ? AND hp.user_id = ? AND h.status = 'complete' "
                "ORDER BY h.completed_at DESC, h.hand_id DESC LIMIT ?",
                (guild_id, user_id, limit),
            )
            return [
                HandSummary(
                    hand_id=row["hand_id"],
                    channel_id=row["channel_id"],
                    variant=row["variant"],
                    completed_at=row["completed_at"],
                    net=row["net"],
                    record=await self._record(conn, row),
                    cancelled=bool(row["cancelled"]),
                    practice=bool(row["practice"]),
                )
                for row in rows
            ]


def _check_refill(account: Account, grant: int, smallest_minimum: int) -> None:
    if account.held:
        raise RefillRefused(
            f"you have {account.held} chips in a hand still being played; refill after it finishes",
            "in_hand",
            held=account.held,
        )
    if account.balance >= smallest_minimum:
        raise RefillRefused(
            f"your balance {account.balance} is not below the smallest table minimum "
            f"{smallest_minimum}",
            "not_low",
            balance=account.balance,
            minimum=smallest_minimum,
        )
    if grant <= account.balance:
        raise RefillRefused(
            f"your balance {account.balance} is already at least {grant}",
            "at_grant",
            balance=account.balance,
            grant=grant,
        )


def _check_hand_args(
    header: Mapping[str, Any], holds: Mapping[int, int], seat_users: Sequence[int]
) -> None:
    _check_unique("user_id", seat_users)
    if set(holds) != set(seat_users):
        raise ValueError(f"holds {sorted(holds)} must cover exactly seat_users {list(seat_users)}")
    if any(amount < 0 for amount in holds.values()):
        raise ValueError(f"holds must be >= 0: {dict(holds)}")
    if {"reshuffles", "actions"} & set(header):
        raise ValueError("header must not contain 'reshuffles' or 'actions' (record keys)")


def _check_settlement(hand_id: int, net: Mapping[int, int], holds: Mapping[int, int]) -> None:
    strangers = set(net) - set(holds)
    if strangers:
        raise BadSettlement(f"hand #{hand_id}: users {sorted(strangers)} are not in the hand")
    for user_id, amount in net.items():
        if -amount > holds[user_id]:
            raise BadSettlement(
                f"hand #{hand_id}: user {user_id} loses {-amount} but only {holds[user_id]} held"
            )
