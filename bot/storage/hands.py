"""The hands repository: start, append to, finish and cancel hands (the writes of play).

Group commit: ``append_action`` (the hot path, one per player action at every
table) goes through ``database.GroupCommit``: appends that arrive while another
transaction runs are written together in one transaction, one fsync for all.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bot.storage import people, player_stats
from bot.storage.backend import GUILD_TAKEN
from bot.storage.connection import Connection, Row
from bot.storage.database import Database, GroupCommit, all_rows, one
from bot.storage.errors import (
    BadSettlement,
    HandNotLive,
    InsufficientChips,
    OutOfSequence,
    UnknownHand,
    UnknownTable,
)
from bot.storage.ledger import Ledger, check_settlement
from bot.storage.rows import KEEP, SeatRow, check_seats, check_unique, dumps
from bot.storage.tables import Tables
from bot.storage.totals import HandStats


@dataclass(slots=True)
class Append:
    """One player step waiting for its group commit: written all or nothing."""

    hand_id: int
    # (hand_reshuffles, index, JSON text) or (hand_actions, index, the action), in order
    rows: list[tuple[str, int, Any]]
    deadline: float | None = KEEP
    seats: Sequence[SeatRow] | None = None  # replaces the table's seats


_COLUMN = {"hand_actions": "action_json", "hand_reshuffles": "cards_json"}
PLAYERS_SQL = (
    "SELECT p.user_id, hp.hold FROM hand_players hp JOIN people p ON p.person_id = hp.person_id "
    "WHERE hp.hand_id = ? ORDER BY hp.seat"
)


class Hands:
    """The writes of play over one ``Database``, with the ledger and the tables."""

    def __init__(self, db: Database, ledger: Ledger, tables: Tables) -> None:
        self._db, self._ledger, self._tables = db, ledger, tables
        self.appends: GroupCommit[Append] = GroupCommit(db, "append_action", self._write_appends)

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
        settings: Mapping[str, Any] | None = KEEP,
        generation: int | None = None,
    ) -> int:
        """Record a new live hand and hold each player's chips; return its hand_id.

        ``names`` (user_id -> display name) are kept on the players' people, for the
        hand's result.

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
        stacks), and ``settings`` (if given) the table's settings (a mixed table's
        rotation moves with the deal).

        The channel's table, if it has a row, must be open, and of ``generation`` if
        given (else TableClosed): the hand keeps the generation it was dealt at, so the
        database refuses its actions once that table is closed or replaced.
        """
        check_hand_args(header, holds, seat_users)
        if practice and any(holds.values()):
            raise ValueError(f"a practice hand holds no chips: {dict(holds)}")
        if seats is not None:
            check_seats(seats)
        async with self._db.write("start_hand") as conn:
            if generation is not None or await one(
                conn, "SELECT 1 FROM tables WHERE channel_id = ?", (channel_id,)
            ):
                await self._tables.hold_open(conn, channel_id, generation)
                row = await one(
                    conn, "SELECT generation FROM tables WHERE channel_id = ?", (channel_id,)
                )
                assert row is not None  # hold_open found it
                generation = int(row[0])
            for user_id in seat_users if not practice else ():
                account = await self._ledger.account_in(conn, guild_id, user_id)
                if account.available < holds[user_id]:
                    raise InsufficientChips(user_id, account.available, holds[user_id])
            players = [u for u in seat_users if u > 0 or not practice]
            persons = await people.ensure(conn, guild_id, players, names)
            stored = people.rename_players(header, people.player_tokens(persons))
            hand_id = await self._insert_hand(
                conn, guild_id, channel_id, variant, stored, int(practice), generation
            )
            await conn.executemany(
                "INSERT INTO hand_players (hand_id, seat, guild_id, person_id, hold) "
                "VALUES (?, ?, ?, ?, ?)",
                [
                    (hand_id, i, guild_id, persons[u], holds[u])
                    for i, u in enumerate(seat_users)
                    if u in persons
                ],
            )
            if seats is not None:
                await self._tables.replace_seats(conn, channel_id, seats, generation)
            updates = {"button": button, "turn_deadline": deadline}
            changes: dict[str, Any] = {c: v for c, v in updates.items() if v is not KEEP}
            if settings is not KEEP:
                changes["settings_json"] = dumps(dict(settings or {}))
            if changes:
                sets = ", ".join(f"{column} = ?" for column in changes)
                cursor = await conn.execute(
                    f"UPDATE tables SET {sets}, updated_at = ? WHERE channel_id = ?",
                    (*changes.values(), self._db.clock(), channel_id),
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
            check_seats(seats)
        rows: list[tuple[str, int, Any]] = [
            ("hand_reshuffles", number, dumps(list(cards))) for number, cards in reshuffles
        ]
        rows.append(("hand_actions", index, dict(action)))  # players named by the writer
        await self.appends.submit(Append(hand_id, rows, deadline, seats))

    async def _write_appends(self, conn: Connection, batch: list[Append]) -> list[Exception | None]:
        """Validate every append against the database and the appends before it in
        the batch, then write the valid ones; return each append's error (or None)."""
        hand_ids = sorted({item.hand_id for item in batch})
        marks = ",".join("?" * len(hand_ids))
        hands = {
            row[0]: (row[1], row[2], row[3])
            for row in await all_rows(
                conn,
                "SELECT hand_id, status, channel_id, generation FROM hands "
                f"WHERE hand_id IN ({marks})",
                hand_ids,
            )
        }
        following: dict[tuple[str, int], int] = {}
        for table in _COLUMN:
            for row in await all_rows(
                conn,
                f"SELECT hand_id, MAX(idx) + 1 FROM {table} WHERE hand_id IN ({marks}) "
                "GROUP BY hand_id",
                hand_ids,
            ):
                following[(table, row[0])] = row[1]
        tokens = await people.hands_people(conn, hand_ids)
        as_person = {
            hand_id: {user: person for person, user in found.items()}
            for hand_id, found in tokens.items()
        }
        errors: list[Exception | None] = []
        rows: dict[str, list[tuple[int, int, str, float]]] = {table: [] for table in _COLUMN}
        deadlines: dict[int, float | None] = {}
        seats: dict[int, tuple[Sequence[SeatRow], int | None]] = {}
        now = self._db.clock()
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
                    if not isinstance(data, str):  # an action: its player as a person
                        data = dumps(people.rename_players(data, as_person.get(item.hand_id, {})))
                    rows[table].append((item.hand_id, index, data, now))
                if item.deadline is not KEEP:
                    deadlines[hand[1]] = item.deadline
                if item.seats is not None:
                    seats[hand[1]] = (item.seats, hand[2])
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
        for channel, (table_seats, generation) in seats.items():
            await self._tables.replace_seats(conn, channel, table_seats, generation)
        return errors

    async def finish_hand(
        self,
        hand_id: int,
        net: Mapping[int, int],
        *,
        seats: Sequence[SeatRow] | None = None,
        stats: Mapping[int, HandStats] | None = None,
    ) -> bool:
        """Settle a hand exactly once; False (and no write) if it was already settled.

        ``net`` maps user_id -> chips won (+) or lost (-); it must sum to 0,
        name only the hand's players (missing ones net 0) and lose at most each
        player's hold. One transaction: hand complete, holds released, a
        'hand' ledger entry per player, balances/net_won/hands_played updated,
        and ``seats`` (if given) replacing the table's seats (leavers gone, ...).
        A practice hand moves no chips: its people's results go to
        ``practice_net`` (for /history) and no account or ledger row changes.
        ``stats`` (user_id -> what the hand adds to their /stats, computed by the caller
        from the hand it played; the hand's people only) are added in the same
        transaction, to the kind of figures the hand's row says (``player_stats.add_hand``).
        """
        if sum(net.values()) != 0:
            raise BadSettlement(f"hand #{hand_id}: nets sum to {sum(net.values())}, not 0")
        if seats is not None:
            check_seats(seats)
        async with self._db.write("finish_hand") as conn:
            try:
                hand = await self.live_hand_row(conn, hand_id)
            except HandNotLive:
                return False
            await conn.execute(
                "UPDATE hands SET status = 'complete', completed_at = ? WHERE hand_id = ?",
                (self._db.clock(), hand_id),
            )
            if hand["practice"]:
                await conn.executemany(
                    "UPDATE hand_players SET practice_net = ? WHERE hand_id = ? "
                    f"AND person_id = {people.PERSON_SQL}",
                    [
                        (chips, hand_id, hand["guild_id"], user)
                        for user, chips in net.items()
                        if user > 0
                    ],
                )
            else:
                players = await all_rows(conn, PLAYERS_SQL, (hand_id,))
                check_settlement(hand_id, net, {p["user_id"]: p["hold"] for p in players})
                await self._ledger.settle(
                    conn, hand, [(p["user_id"], net.get(p["user_id"], 0)) for p in players]
                )
            await player_stats.add_hand(conn, hand, stats or {}, self._db.clock())  # /stats
            if seats is not None:
                await self._tables.replace_seats(
                    conn, hand["channel_id"], seats, hand["generation"]
                )
        return True

    async def drop_reshuffles(self, hand_id: int, first: int) -> int:
        """Delete a live hand's reshuffles numbered ``first`` and up; return how many.

        For recovery only: a reshuffle no stored action drew from was never seen by
        anyone (files written before reshuffles were stored with their action)."""
        async with self._db.write("drop_reshuffles") as conn:
            await self.live_hand_row(conn, hand_id)
            cursor = await conn.execute(
                "DELETE FROM hand_reshuffles WHERE hand_id = ? AND idx >= ?", (hand_id, first)
            )
        return int(cursor.rowcount)

    async def cancel_hand(self, hand_id: int, close_channel: int | None = None) -> bool:
        """Void a live hand: every player nets 0 (gets back exactly what they put in),
        the hand is complete and marked cancelled, its holds are released; with
        ``close_channel`` that table is closed (seats removed) in the same transaction.
        False (and no write) if the hand was already settled."""
        async with self._db.write("cancel_hand") as conn:
            try:
                hand = await self.live_hand_row(conn, hand_id)
            except HandNotLive:
                return False
            players = await all_rows(conn, PLAYERS_SQL, (hand_id,))
            await conn.execute(
                "UPDATE hands SET status = 'complete', cancelled = 1, completed_at = ? "
                "WHERE hand_id = ?",
                (self._db.clock(), hand_id),
            )
            # every net 0, and not a played hand: hands_played stays as it was
            await self._ledger.settle(conn, hand, [(p[0], 0) for p in players], played=False)
            if close_channel is not None:
                same = close_channel == hand["channel_id"]  # the table the hand was dealt at
                await self._tables.close_in(
                    conn, close_channel, hand["generation"] if same else None
                )
        return True

    async def repair_orphans(self) -> list[tuple[int, int]]:
        """Cancel every live hand whose table is closed (releasing its holds), each
        in its own transaction; return the (hand_id, channel_id) pairs cancelled. A hand
        of a guild another process runs is left to it (the database refuses the write)."""
        async with self._db.read() as conn:
            orphans = await all_rows(
                conn,
                "SELECT h.hand_id, h.channel_id FROM hands h "
                "JOIN tables t ON t.channel_id = h.channel_id "
                "WHERE h.status = 'live' AND t.open = 0 "
                "ORDER BY h.hand_id",
            )
        repaired = []
        for hand_id, channel_id in ((int(r[0]), int(r[1])) for r in orphans):
            try:
                if await self.cancel_hand(hand_id):
                    repaired.append((hand_id, channel_id))
            except GUILD_TAKEN:
                continue
        return repaired

    async def _insert_hand(
        self,
        conn: Connection,
        guild_id: int,
        channel_id: int,
        variant: str,
        header: Mapping[str, Any],
        practice: int,
        generation: int | None,
    ) -> int:
        row = await one(
            conn,
            "INSERT INTO hands (guild_id, channel_id, variant, header_json, started_at, "
            "practice, generation) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING hand_id",
            (
                guild_id,
                channel_id,
                variant,
                dumps(dict(header)),
                self._db.clock(),
                practice,
                generation,
            ),
        )
        assert row is not None  # RETURNING gives the new row
        return int(row[0])

    async def live_hand_row(self, conn: Connection, hand_id: int) -> Row:
        row = await one(conn, "SELECT * FROM hands WHERE hand_id = ?", (hand_id,))
        if row is None:
            raise UnknownHand(hand_id)
        if row["status"] != "live":
            raise HandNotLive(hand_id)
        return row


def check_hand_args(
    header: Mapping[str, Any], holds: Mapping[int, int], seat_users: Sequence[int]
) -> None:
    check_unique("user_id", seat_users)
    if set(holds) != set(seat_users):
        raise ValueError(f"holds {sorted(holds)} must cover exactly seat_users {list(seat_users)}")
    if any(amount < 0 for amount in holds.values()):
        raise ValueError(f"holds must be >= 0: {dict(holds)}")
    if {"reshuffles", "actions"} & set(header):
        raise ValueError("header must not contain 'reshuffles' or 'actions' (record keys)")
