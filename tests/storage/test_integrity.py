"""What the database keeps by itself (issue 17), on both backends: the chips a player holds
on the account row, cancelled hands that are not played hands, an erase that forgets the
player in the tables' settings too, no table closed under a live hand (and the repair of
such hands at start-up), the count of a server's tables, and the v8 migration of old data."""

from __future__ import annotations

import json
import logging
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bench import player_history
from bot.storage.backend import INTEGRITY_ERRORS
from bot.storage.errors import TableHasLiveHand
from bot.storage.migrations import MIGRATIONS
from bot.storage.rows import SeatRow, TableRow
from bot.storage.sqlite import connect, migrate
from bot.storage.store import Store
from tests.support.databases import Target, open_reader, run_sync
from tests.support.storage_helpers import GRANT, FakeClock, G, a_header, audit, seat_players

CHANNEL = 77


@pytest.fixture
async def store(db_path: Target) -> AsyncIterator[Store]:
    s = await Store.open(db_path, clock=FakeClock())
    yield s
    await s.close()


async def played_hand(store: Store, players: list[int], net: dict[int, int]) -> int:
    hand_id = await store.hands.start_hand(
        G, CHANNEL, "a6-draw", a_header(players), {p: 20 for p in players}, players
    )
    for i, p in enumerate(players):
        await store.hands.append_action(hand_id, i, {"player": str(p), "action": "check"})
    await store.hands.finish_hand(hand_id, net)
    return hand_id


def _rows(target: Target, sql: str, args: tuple = ()) -> list[tuple]:
    db = open_reader(target)
    try:
        return [tuple(r) for r in db.execute(sql, args).fetchall()]
    finally:
        db.close()


async def _live_hand(store: Store, players: list[int], channel: int = CHANNEL) -> int:
    return await store.hands.start_hand(
        G, channel, "a6-draw", a_header(players), {p: 20 for p in players}, players
    )


async def test_held_chips_live_on_the_account_row(store: Store, db_path: Target) -> None:
    await seat_players(store, [1, 2])
    await store.tables.save_table(TableRow(CHANNEL, G, "a6-draw"))
    await store.tables.save_table(TableRow(CHANNEL + 1, G, "a6-draw"))
    first = await _live_hand(store, [1, 2])
    second = await _live_hand(store, [1, 2], CHANNEL + 1)
    assert _rows(db_path, "SELECT user_id, held FROM accounts ORDER BY user_id") == [
        (1, 40),
        (2, 40),
    ]
    account = await store.ledger.balance(G, 1)
    assert account is not None and (account.held, account.available) == (40, GRANT - 40)
    await store.hands.finish_hand(first, {1: 15, 2: -15})
    await store.hands.cancel_hand(second)
    assert _rows(db_path, "SELECT user_id, held FROM accounts ORDER BY user_id") == [
        (1, 0),
        (2, 0),
    ]
    audit(db_path)


async def test_a_cancelled_hand_is_not_a_played_hand(store: Store, db_path: Target) -> None:
    """Defect 8: after a forced close cancels a hand, /balance's hand count and the
    leaderboard's are what they were (the old code counted the cancelled hand)."""
    await seat_players(store, [1, 2])
    await store.tables.save_table(TableRow(CHANNEL, G, "a6-draw"))
    await played_hand(store, [1, 2], {1: 5, 2: -5})
    live = await _live_hand(store, [1, 2])
    assert await store.hands.cancel_hand(live, close_channel=CHANNEL)
    account = await store.ledger.balance(G, 1)
    assert account is not None and (account.net_won, account.hands_played) == (5, 1)
    ranked, total = await store.ledger.leaderboard(G, 1)
    assert total == 2 and [(r.user_id, r.hands_played) for r in ranked] == [(1, 1), (2, 1)]
    audit(db_path)


async def test_erase_forgets_the_player_in_the_tables_settings(
    store: Store, db_path: Target
) -> None:
    """Defect 9: the erased id is gone from every stored table row (opener, kicked)."""
    await seat_players(store, [1, 2])
    opened = {"seat_limit": 6, "opener": 1, "closing": False, "kicked": [2]}
    kicked = {"seat_limit": 6, "opener": 2, "closing": False, "kicked": [1, 2]}
    await store.tables.save_table(TableRow(CHANNEL, G, "a6-draw", opened))
    await store.tables.save_table(TableRow(CHANNEL + 1, G, "a6-draw", kicked))
    await store.tables.save_table(TableRow(CHANNEL + 2, G + 1, "a6-draw", opened))  # another server
    await played_hand(store, [1, 2], {1: 5, 2: -5})
    await store.server.erase_player(G, 1)
    stored = {
        channel: json.loads(settings)
        for channel, settings in _rows(db_path, "SELECT channel_id, settings_json FROM tables")
    }
    assert stored[CHANNEL] == {**opened, "opener": None}
    assert stored[CHANNEL + 1] == {**kicked, "kicked": [2]}
    assert stored[CHANNEL + 2] == opened  # the other server's player 1 is someone else
    for (text,) in _rows(db_path, "SELECT header_json FROM hands"):
        assert '"1"' not in text
    audit(db_path)


async def test_a_table_with_a_live_hand_cannot_close(store: Store, db_path: Target) -> None:
    """Defect 3: the store refuses (a clear error, nothing changed), and so does the
    database itself, whatever the code above does."""
    await seat_players(store, [1, 2])
    seats = [SeatRow(0, 1, "one"), SeatRow(1, 2, "two")]
    await store.tables.save_table(TableRow(CHANNEL, G, "a6-draw"), seats=seats)
    hand = await _live_hand(store, [1, 2])
    with pytest.raises(TableHasLiveHand, match="settle or cancel"):
        await store.tables.close_table(CHANNEL)
    with pytest.raises(INTEGRITY_ERRORS):
        await store.tables.save_table(TableRow(CHANNEL, G, "a6-draw", open=False))
    assert [t.channel_id for t in await store.tables.load_tables()] == [CHANNEL]
    assert await store.tables.load_seats(CHANNEL) == seats
    await store.hands.finish_hand(hand, {1: 3, 2: -3})
    await store.tables.close_table(CHANNEL)  # settled: now it closes
    assert await store.tables.load_tables() == []
    audit(db_path)


def _close_behind_the_guard(target: Target, channel: int) -> None:
    """What a database written before the guard can hold: a closed table with a live hand."""
    if isinstance(target, str):
        db = open_reader(target)
        run_sync(
            db.conn.execute(  # type: ignore[union-attr]
                "ALTER TABLE tables DISABLE TRIGGER close_without_live_hand;"
                f"UPDATE tables SET open = 0 WHERE channel_id = {channel};"
                "ALTER TABLE tables ENABLE TRIGGER close_without_live_hand"
            )
        )
        return
    lite = sqlite3.connect(target, isolation_level=None)
    try:
        lite.execute("DROP TRIGGER close_without_live_hand")
        lite.execute("UPDATE tables SET open = 0 WHERE channel_id = ?", (channel,))
    finally:
        lite.close()


async def test_start_up_cancels_live_hands_of_closed_tables(
    db_path: Target, caplog: pytest.LogCaptureFixture
) -> None:
    store = await Store.open(db_path, clock=FakeClock())
    await seat_players(store, [1, 2])
    await store.tables.save_table(TableRow(CHANNEL, G, "a6-draw"))
    await store.tables.save_table(TableRow(CHANNEL + 1, G, "a6-draw"))
    orphan = await _live_hand(store, [1, 2])
    playing = await _live_hand(store, [1, 2], CHANNEL + 1)
    await store.close()
    _close_behind_the_guard(db_path, CHANNEL)

    with caplog.at_level(logging.WARNING, logger="bot.storage.store"):
        store = await Store.open(db_path, clock=FakeClock())
    try:
        assert f"cancelled live hand #{orphan}" in caplog.text
        assert [h.hand_id for h in await store.history.load_live_hands()] == [playing]
        account = await store.ledger.balance(G, 1)
        assert account is not None and (account.held, account.balance) == (20, GRANT)
        assert (await store.history.hand_record(orphan)) is not None
        assert _rows(db_path, "SELECT cancelled FROM hands WHERE hand_id = ?", (orphan,)) == [(1,)]
    finally:
        await store.close()
    audit(db_path)


async def test_count_tables_counts_a_servers_tables_of_a_game(store: Store) -> None:
    for channel, guild, variant in [(1, G, "a6-draw"), (2, G, "a6-draw"), (3, G, "a5-draw")]:
        await store.tables.save_table(TableRow(channel, guild, variant))
    await store.tables.save_table(TableRow(4, G + 1, "a6-draw"))
    await store.tables.close_table(2)  # closed tables keep their number
    assert await store.tables.count_tables(G, "a6-draw") == 2
    assert await store.tables.count_tables(G, "a5-draw") == 1
    assert await store.tables.count_tables(G, "abyssinia") == 0
    assert await store.tables.count_tables(G + 1, "a6-draw") == 1


async def test_v8_migration_converts_what_v7_stored(tmp_path: Path) -> None:
    """held is computed from the live hands, and cancelled hands leave hands_played."""
    path = tmp_path / "v7.db"
    conn = await connect(path)
    await migrate(conn, MIGRATIONS[:7])
    for sql in (
        "INSERT INTO accounts (guild_id, user_id, display_name, balance, granted, net_won, "
        "hands_played, created_at) VALUES (1, 5, 'e', 100, 100, 0, 2, 0)",
        "INSERT INTO hands (guild_id, channel_id, variant, header_json, status, started_at, "
        "completed_at, cancelled) VALUES (1, 9, 'a6-draw', '{}', 'complete', 0, 1, 1)",
        "INSERT INTO hands (guild_id, channel_id, variant, header_json, status, started_at, "
        "completed_at) VALUES (1, 9, 'a6-draw', '{}', 'complete', 2, 3)",
        "INSERT INTO hands (guild_id, channel_id, variant, header_json, started_at) "
        "VALUES (1, 9, 'a6-draw', '{}', 4)",
        "INSERT INTO hand_players (hand_id, seat, guild_id, user_id, hold, net) "
        "VALUES (1, 0, 1, 5, 20, 0), (2, 0, 1, 5, 20, 0), (3, 0, 1, 5, 30, NULL)",
    ):
        await conn.execute(sql)
    await conn.close()
    async with await Store.open(path) as store:
        account = await store.ledger.balance(1, 5)
        assert account is not None and (account.held, account.hands_played) == (30, 1)
        assert [h.hand_id for h in await store.history.recent_hands(1, 5)] == [2, 1]


async def test_the_player_history_bench_runs(tmp_path: Path) -> None:
    """bench/player_history.py's code path at a tiny size, so that it cannot rot."""
    figures = await player_history.measure(tmp_path / "b.db", "sqlite", [3, 5], tables=2)
    assert [(f.backend, f.hands) for f in figures] == [("sqlite", 3), ("sqlite", 5)]
    assert "balance" in player_history.report(figures)
