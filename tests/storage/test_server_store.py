"""The server-control part of the Store (``bot/storage/server.py``) on both backends:
settings, a player's data and its erasure, cancelled hands. The ledger is audited
straight from the database after every change."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from bot.storage.errors import PlayerInHand, UnknownAccount
from bot.storage.rows import GuildSettings
from bot.storage.store import Store
from tests.support.databases import Target, open_reader
from tests.support.storage_helpers import GRANT, FakeClock, audit, seat_players

G = 1000
CHANNEL = 77


@pytest.fixture
async def store(db_path: Target) -> AsyncIterator[Store]:
    s = await Store.open(db_path, clock=FakeClock())
    yield s
    await s.close()


def a_header(players: list[int]) -> dict:
    seats = [{"player": str(p), "stack": GRANT} for p in players]
    return {"variant": "a6-draw", "seats": seats, "dealer": 0, "deck": ["As", "2d"]}


async def played_hand(store: Store, players: list[int], net: dict[int, int]) -> int:
    hand_id = await store.hands.start_hand(
        G, CHANNEL, "a6-draw", a_header(players), {p: 20 for p in players}, players
    )
    for i, p in enumerate(players):
        await store.hands.append_action(hand_id, i, {"player": str(p), "action": "check"})
    await store.hands.finish_hand(hand_id, net)
    return hand_id


async def test_settings_default_then_round_trip(store: Store) -> None:
    assert await store.server.guild_settings(G) == GuildSettings(G)
    changed = GuildSettings(G, (5, 6), 9, 30.0, False, "moderators", "vi")
    await store.server.save_guild_settings(changed)
    assert await store.server.guild_settings(G) == changed
    assert await store.server.guild_settings(G + 1) == GuildSettings(G + 1)  # per server
    await store.server.save_guild_settings(GuildSettings(G, auto_deal=True))
    assert (await store.server.guild_settings(G)).auto_deal is True


async def test_erase_keeps_others_and_the_ledger_whole(store: Store, db_path: Target) -> None:
    await seat_players(store, [1, 2, 3])
    first = await played_hand(store, [1, 2, 3], {1: 10, 2: -5, 3: -5})
    second = await played_hand(store, [1, 2], {1: -7, 2: 7})
    data = await store.server.player_data(G, 2)
    assert data is not None and data.hands == 2 and data.account.balance == GRANT + 2
    assert data.ledger_entries == 3  # grant and two hands
    anon = await store.server.erase_player(G, 2)
    assert anon < 0
    assert await store.server.player_data(G, 2) is None and await store.ledger.balance(G, 2) is None
    audit(db_path)
    reader = open_reader(db_path)
    try:
        (row,) = reader.execute(
            "SELECT display_name, balance FROM accounts WHERE user_id=?", (anon,)
        ).fetchall()
        assert tuple(row) == ("deleted player", GRANT + 2)
        for table in ("people", "accounts"):
            assert (
                reader.execute(f"SELECT COUNT(*) FROM {table} WHERE user_id=2").fetchone()[0] == 0
            )
    finally:
        reader.close()
    # read back, their hands name the anonymous id where they named the player
    for hand_id in (first, second):
        record = await store.history.hand_record(hand_id)
        assert [s["player"] for s in record["seats"]][1] == str(anon)
        assert record["actions"][1]["player"] == str(anon)
    # the others' histories and the leaderboard are as before
    assert [h.net for h in await store.history.recent_hands(G, 1)] == [-7, 10]
    rows, total = await store.ledger.leaderboard(G, 1)
    assert total == 2 and [r.user_id for r in rows] == [1, 3]
    # a second erasure gets another placeholder
    assert await store.server.erase_player(G, 1) == anon - 1
    with pytest.raises(UnknownAccount):
        await store.server.erase_player(G, 1)
    audit(db_path)


async def test_erase_is_refused_during_a_live_hand(store: Store, db_path: Target) -> None:
    await seat_players(store, [1, 2])
    hand_id = await store.hands.start_hand(
        G, CHANNEL, "a6-draw", a_header([1, 2]), {1: 20, 2: 20}, [1, 2]
    )
    with pytest.raises(PlayerInHand):
        await store.server.erase_player(G, 1)
    assert (await store.ledger.balance(G, 1)).held == 20  # type: ignore[union-attr]
    await store.hands.finish_hand(hand_id, {})
    await store.server.erase_player(G, 1)
    audit(db_path)


async def test_cancel_hand_moves_no_chip_and_closes_the_table(
    store: Store, db_path: Target
) -> None:
    from bot.storage.rows import SeatRow, TableRow

    await seat_players(store, [1, 2])
    await store.tables.save_table(TableRow(CHANNEL, G, "a6-draw"))
    await store.tables.save_seats(CHANNEL, [SeatRow(0, 1, "a"), SeatRow(1, 2, "b")])
    hand_id = await store.hands.start_hand(
        G, CHANNEL, "a6-draw", a_header([1, 2]), {1: 20, 2: 20}, [1, 2]
    )
    await store.hands.append_action(hand_id, 0, {"player": "1", "action": "bet"})
    assert await store.hands.cancel_hand(hand_id, close_channel=CHANNEL)
    assert not await store.hands.cancel_hand(hand_id)  # once only
    for user in (1, 2):
        account = await store.ledger.balance(G, user)
        assert account is not None and (account.balance, account.held) == (GRANT, 0)
    assert await store.tables.load_tables() == [] and await store.tables.load_seats(CHANNEL) == []
    (summary,) = await store.history.recent_hands(G, 1)
    assert summary.cancelled and summary.net == 0
    audit(db_path)
