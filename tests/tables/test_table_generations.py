"""The database refuses writes for a table that is closed or was replaced (issue 34).

Each opening of a channel's table is a generation; the store names it in every write
for the table, and the database itself (triggers, both backends) refuses a seat at a
closed table, a hand at a closed or replaced one, and an action of a hand whose table
was closed or replaced since it was dealt, whatever path writes them.
"""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

import pytest

from bot.storage.backend import INTEGRITY_ERRORS, open_connection
from bot.storage.errors import TableClosed
from bot.storage.migrations import MIGRATIONS
from bot.storage.rows import SeatRow, TableRow
from bot.storage.sqlite import connect, migrate
from bot.storage.store import Store
from bot.tables.manager import TableManager
from bot.tables.models import Code
from tests.support.databases import Target
from tests.support.manager_helpers import refused
from tests.support.storage_helpers import G, a_header, audit, seat_players

CH = 42
SEATS = [SeatRow(0, 1, "one"), SeatRow(1, 2, "two")]


async def _deal(store: Store, generation: int | None = None) -> int:
    return await store.hands.start_hand(
        G, CH, "a6-draw", a_header([1, 2]), {1: 20, 2: 20}, [1, 2], generation=generation
    )


async def test_the_store_refuses_writes_for_a_closed_or_replaced_table(db_path: Target) -> None:
    async with await Store.open(db_path) as store:
        await seat_players(store, [1, 2])
        first = await store.tables.save_table(TableRow(CH, G, "a6-draw"))
        await store.tables.save_seats(CH, SEATS, generation=first)
        hand = await _deal(store, first)
        assert await store.hands.finish_hand(hand, {1: 5, 2: -5})
        await store.tables.close_table(CH, generation=first)
        # closed: nothing for it is written, whoever asks
        with pytest.raises(TableClosed):
            await store.tables.close_table(CH, generation=first)  # a second close
        with pytest.raises(TableClosed):
            await store.tables.close_table(CH)
        with pytest.raises(TableClosed):
            await store.tables.save_seats(CH, SEATS, generation=first)
        with pytest.raises(TableClosed):
            await store.tables.save_seats(CH, SEATS)
        with pytest.raises(TableClosed):
            await _deal(store, first)
        with pytest.raises(TableClosed):
            await _deal(store)
        with pytest.raises(TableClosed):
            await store.tables.save_table(
                TableRow(CH, G, "a6-draw", {"closing": True}, generation=first)
            )
        # opened anew: another generation, and the old one's writes are still refused
        second = await store.tables.save_table(TableRow(CH, G, "a6-draw"))
        assert second == first + 1
        with pytest.raises(TableClosed):
            await store.tables.save_seats(CH, SEATS, generation=first)
        with pytest.raises(TableClosed):
            await _deal(store, first)
        with pytest.raises(TableClosed):
            await store.tables.close_table(CH, generation=first)
        with pytest.raises(TableClosed):
            await store.tables.save_table(
                TableRow(CH, G, "a6-draw", {"closing": True}, generation=first)
            )
        assert await store.tables.load_seats(CH) == []
        assert await store.history.load_live_hands() == []
        row = await store.tables.load_table(CH)
        assert row is not None and row.open and row.settings == {}
        assert row.generation == second
        # the new opening's own writes go through
        await store.tables.save_seats(CH, SEATS, generation=second)
        hand = await _deal(store, second)
        await store.hands.append_action(hand, 0, {"player": "1", "action": "check"})
        assert await store.hands.cancel_hand(hand, close_channel=CH)
        assert await store.tables.load_tables() == []
    audit(db_path)


async def test_the_database_refuses_them_whatever_writes_them(db_path: Target) -> None:
    """Raw SQL past the store: a seat or a hand at a closed table, an action of a hand
    dealt at an earlier opening of its table."""
    async with await Store.open(db_path) as store:
        await seat_players(store, [1, 2])
        first = await store.tables.save_table(TableRow(CH, G, "a6-draw"))
        await store.tables.close_table(CH, generation=first)
        await store.tables.save_table(TableRow(CH + 1, G, "a6-draw"))
        live = await store.hands.start_hand(
            G, CH + 1, "a6-draw", a_header([1, 2]), {1: 20, 2: 20}, [1, 2]
        )
    conn = await open_connection(db_path)
    seat = "INSERT INTO seats (channel_id, seat, user_id, display_name) VALUES (?, 0, 1, 'one')"
    hand = (
        "INSERT INTO hands (guild_id, channel_id, variant, header_json, started_at, generation) "
        "VALUES (?, ?, 'a6-draw', '{}', 0, ?)"
    )
    action = (
        "INSERT INTO hand_actions (hand_id, idx, action_json, created_at) VALUES (?, ?, '{}', 0)"
    )
    reshuffle = (
        "INSERT INTO hand_reshuffles (hand_id, idx, cards_json, created_at) VALUES (?, 0, '[]', 0)"
    )
    try:
        for sql, args in [
            (seat, (CH,)),
            (hand, (G, CH, None)),
            (hand, (G, CH, first)),
            (hand, (G, CH + 1, 7)),  # an opening of the table that never was
        ]:
            with pytest.raises(INTEGRITY_ERRORS):
                await conn.execute(sql, args)
        # the live hand as if dealt at an earlier opening of its table
        await conn.execute("UPDATE hands SET generation = 0 WHERE hand_id = ?", (live,))
        for sql, args in [(action, (live, 0)), (reshuffle, (live,))]:
            with pytest.raises(INTEGRITY_ERRORS):
                await conn.execute(sql, args)
        # and within the rules the same statements pass: the guards are no blanket refusals
        await conn.execute("UPDATE hands SET generation = 1 WHERE hand_id = ?", (live,))
        await conn.execute(action, (live, 0))
        await conn.execute(reshuffle, (live,))
        await conn.execute(seat, (CH + 1,))
    finally:
        await conn.close()


async def test_tables_stored_before_generations_are_the_first(tmp_path: Path) -> None:
    path = tmp_path / "v13.db"
    conn = await connect(path)
    await migrate(conn, MIGRATIONS[:13])
    for channel, is_open in ((CH, 1), (CH + 1, 0)):
        await conn.execute(
            "INSERT INTO tables (channel_id, guild_id, variant, open, updated_at) "
            "VALUES (?, ?, 'a6-draw', ?, 0)",
            (channel, G, is_open),
        )
    await conn.close()
    async with await Store.open(path) as store:
        rows = await store.tables.load_tables(include_closed=True)
        assert [(r.channel_id, r.generation) for r in rows] == [(CH, 1), (CH + 1, 1)]
        assert await store.tables.save_table(TableRow(CH + 1, G, "a6-draw")) == 2  # reopened
        assert await store.tables.save_table(TableRow(CH, G, "a6-draw")) == 1  # still open


async def test_a_table_closed_behind_the_bots_back_is_dropped_at_its_next_step(
    tmp_path: Path,
) -> None:
    """Memory says open, the database says closed (written past the bot): the next
    step's write is refused, the reload finds the table closed, the step is refused
    "no table" and the channel has no table from then on."""
    path = tmp_path / "t.db"
    store = await Store.open(path)
    m = TableManager(store, rng=random.Random(1))
    await m.start()
    await m.open_table(G, CH, "a6-draw")
    await m.join(CH, 1, "one")
    lite = sqlite3.connect(path, isolation_level=None)
    try:
        lite.execute("UPDATE tables SET open = 0 WHERE channel_id = ?", (CH,))
        lite.execute("DELETE FROM seats WHERE channel_id = ?", (CH,))
    finally:
        lite.close()
    no = await refused(m.join(CH, 2, "two"))
    assert no.code is Code.NO_TABLE
    assert not m.has_table(CH)
    assert await store.tables.load_seats(CH) == []
    await m.open_table(G, CH, "a6-draw")  # the channel can have a table again
    assert (await store.tables.load_table(CH)).generation == 2  # type: ignore[union-attr]
    await m.close()
    await store.close()
