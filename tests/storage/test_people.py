"""People (issue 17 defect 6) on both backends: hands and the ledger name a surrogate
person, so an erase leaves the Discord id nowhere in the database while every read above
the storage still sees Discord ids; and migration PEOPLE moves what the layout before it
stored."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest

from bot.storage import postgres, sqlite
from bot.storage.migrations import MIGRATIONS, PEOPLE
from bot.storage.rows import TableRow
from bot.storage.store import Store
from tests.support.databases import PG_URL, SKIP_REASON, Target, new_schema, open_reader
from tests.support.storage_helpers import GRANT, FakeClock, audit

G = 424242
CHANNEL = 77
# Discord-sized ids, so a scan for their digits finds nothing else by chance
needs_pg = pytest.mark.skipif(not PG_URL, reason=SKIP_REASON)
ANN, BEN, CAT = 734982113450221184, 611200987654321098, 502938475610293847


@pytest.fixture
async def store(db_path: Target) -> AsyncIterator[Store]:
    s = await Store.open(db_path, clock=FakeClock())
    yield s
    await s.close()


def header(players: list[int]) -> dict[str, Any]:
    seats = [{"player": str(p), "stack": GRANT} for p in players]
    deck = [rank + suit for rank in "A23456789TJQK" for suit in "cdhs"]
    return {"variant": "a6-draw", "seats": seats, "dealer": 0, "deck": deck}


async def played_hand(store: Store, players: list[int], net: dict[int, int]) -> int:
    names = {p: f"name{p % 1000}" for p in players}
    hand_id = await store.hands.start_hand(
        G, CHANNEL, "a6-draw", header(players), {p: 20 for p in players}, players, names
    )
    for i, p in enumerate(players):
        await store.hands.append_action(hand_id, i, {"player": str(p), "action": "check"})
    await store.hands.finish_hand(hand_id, net)
    return hand_id


def rows_naming(target: Target, user_id: int) -> dict[str, int]:
    """How many rows of each table hold this id anywhere: as a number, or in a text."""
    reader = open_reader(target)
    try:
        if isinstance(target, str):
            names = [
                r[0]
                for r in reader.execute(
                    "SELECT table_name FROM information_schema.tables "
                    "WHERE table_schema = current_schema()"
                ).fetchall()
            ]
        else:
            names = [
                r[0]
                for r in reader.execute(
                    "SELECT name FROM sqlite_master WHERE type = 'table'"
                ).fetchall()
            ]
        found: dict[str, int] = {}
        for name in names:
            hits = [
                row
                for row in reader.execute(f"SELECT * FROM {name}").fetchall()
                if any(v == user_id or str(user_id) in str(v) for v in tuple(row))
            ]
            if hits:
                found[name] = len(hits)
        return found
    finally:
        if not isinstance(target, str):
            reader.close()


async def test_an_erase_leaves_the_id_in_no_row(store: Store, db_path: Target) -> None:
    """Every table scanned, every column: the erased player's id is gone, the others'
    histories still name them, and the erased player's hands read back as the anonymous
    id with their numbers intact (the /privacy show figures move to it)."""
    for user in (ANN, BEN, CAT):
        await store.ledger.ensure_account(G, user, f"name{user % 1000}", GRANT)
    await store.tables.save_table(TableRow(CHANNEL, G, "a6-draw", {"opener": ANN, "kicked": [ANN]}))
    first = await played_hand(store, [ANN, BEN, CAT], {ANN: 10, BEN: -5, CAT: -5})
    second = await played_hand(store, [BEN, ANN], {ANN: -7, BEN: 7})
    await store.ledger.refill(G, CAT, GRANT, 10**6)
    before = await store.server.player_data(G, ANN)
    assert before is not None and (before.hands, before.ledger_entries) == (2, 3)
    assert set(rows_naming(db_path, ANN)) >= {"people", "accounts", "tables"}

    anon = await store.server.erase_player(G, ANN)

    assert rows_naming(db_path, ANN) == {}
    assert await store.server.player_data(G, ANN) is None
    after = await store.server.player_data(G, anon)
    assert after is not None
    assert (after.hands, after.ledger_entries) == (before.hands, before.ledger_entries)
    assert after.account.balance == before.account.balance == GRANT + 3
    assert after.account.display_name == "deleted player"
    first_record = await store.history.hand_record(first)
    assert [s["player"] for s in first_record["seats"]] == [str(anon), str(BEN), str(CAT)]
    assert [a["player"] for a in first_record["actions"]] == [str(anon), str(BEN), str(CAT)]
    (stored,) = await store.exports.hand_rows([second])
    assert stored.users == {str(BEN): BEN, str(anon): anon}
    assert stored.names == {str(BEN): f"name{BEN % 1000}", str(anon): "deleted player"}
    assert [h.net for h in await store.history.recent_hands(G, BEN)] == [7, -5]
    assert [h.net for h in await store.history.recent_hands(G, anon)] == [-7, 10]
    assert [e.kind for e in await store.exports.ledger(G, anon, 10)] == ["grant", "hand", "hand"]
    audit(db_path)


async def test_records_at_rest_name_people_and_read_back_as_ids(
    store: Store, db_path: Target
) -> None:
    """A live hand is recovered with its players' ids, names and holds; its stored
    header and actions hold person tokens, not the ids."""
    for user in (ANN, BEN):
        await store.ledger.ensure_account(G, user, "x", GRANT)
    hand_id = await store.hands.start_hand(
        G, CHANNEL, "a6-draw", header([ANN, BEN]), {ANN: 20, BEN: 30}, [ANN, BEN],
        {ANN: "Ann", BEN: "Ben"},
    )  # fmt: skip
    await store.hands.append_action(hand_id, 0, {"player": str(ANN), "action": "bet"})
    (live,) = await store.history.load_live_hands()
    assert live.seat_users == [ANN, BEN] and live.holds == {ANN: 20, BEN: 30}
    assert live.names == {ANN: "Ann", BEN: "Ben"}
    assert [s["player"] for s in live.header["seats"]] == [str(ANN), str(BEN)]
    assert live.actions == [{"player": str(ANN), "action": "bet"}]
    reader = open_reader(db_path)
    try:
        (text,) = reader.execute("SELECT header_json FROM hands").fetchone()
        (action,) = reader.execute("SELECT action_json FROM hand_actions").fetchone()
    finally:
        if not isinstance(db_path, str):
            reader.close()
    assert str(ANN) not in text and str(ANN) not in action
    assert json.loads(action)["player"].startswith("#")


# ---------------------------------------------------------------- the migration

_OLD_ROWS = [
    f"INSERT INTO accounts (guild_id, user_id, display_name, balance, granted, net_won, "
    f"hands_played, held, created_at) VALUES ({G}, {ANN}, 'Ann', 104, 100, 4, 1, 20, 0), "
    f"({G}, {BEN}, 'Ben', 96, 100, -4, 1, 20, 0)",
    f"INSERT INTO hands (guild_id, channel_id, variant, header_json, status, started_at, "
    f"completed_at) VALUES ({G}, 9, 'a6-draw', "
    f'\'{{"variant":"a6-draw","seats":[{{"player":"{ANN}","stack":100}},'
    f'{{"player":"{BEN}","stack":100}}],"dealer":0}}\', \'complete\', 1, 2)',
    f"INSERT INTO hands (guild_id, channel_id, variant, header_json, started_at) "
    f"VALUES ({G}, 9, 'a6-draw', "
    f'\'{{"seats":[{{"player":"{BEN}","stack":96}},'
    f'{{"player":"{ANN}","stack":104}}]}}\', 3)',
    f"INSERT INTO hand_actions (hand_id, idx, action_json, created_at) VALUES "
    f'(2, 0, \'{{"player":"{BEN}","action":"bet"}}\', 3)',
    f"INSERT INTO hand_players (hand_id, seat, guild_id, user_id, hold, net, display_name, "
    f"completed_at) VALUES (1, 0, {G}, {ANN}, 20, 4, 'Ann', 2), "
    f"(1, 1, {G}, {BEN}, 20, -4, 'Ben', 2), (2, 0, {G}, {BEN}, 20, NULL, 'Ben', NULL), "
    f"(2, 1, {G}, {ANN}, 20, NULL, 'Ann', NULL)",
    f"INSERT INTO ledger (guild_id, user_id, kind, amount, hand_id, balance_after, created_at) "
    f"VALUES ({G}, {ANN}, 'grant', 100, NULL, 100, 0), ({G}, {BEN}, 'grant', 100, NULL, 100, 0), "
    f"({G}, {ANN}, 'hand', 4, 1, 104, 2), ({G}, {BEN}, 'hand', -4, 1, 96, 2)",
    "UPDATE accounts SET held = 20",  # the live hand's (the rows above went in raw)
]


async def _old_database(target: Target) -> None:
    """A database at the version before PEOPLE, with a finished and a live hand."""
    before = MIGRATIONS[: MIGRATIONS.index(PEOPLE)]
    if isinstance(target, str):
        pg = await postgres.connect(target)
        try:
            await postgres.migrate(pg, before)
            for sql in _OLD_ROWS:
                await pg.execute(sql)
            await pg.execute("SELECT setval(pg_get_serial_sequence('hands', 'hand_id'), 2)")
        finally:
            await pg.close()
    else:
        conn = await sqlite.connect(target)
        try:
            await sqlite.migrate(conn, before)
            for sql in _OLD_ROWS:
                await conn.execute(sql)
        finally:
            await conn.close()


async def _migrated(target: Target) -> None:
    await _old_database(target)
    async with await Store.open(target, clock=FakeClock()) as store:
        account = await store.ledger.balance(G, ANN)
        assert account is not None and (account.balance, account.held) == (104, 20)
        record = await store.history.hand_record(1)
        assert [s["player"] for s in record["seats"]] == [str(ANN), str(BEN)]
        (live,) = await store.history.load_live_hands()
        assert live.seat_users == [BEN, ANN] and live.holds == {BEN: 20, ANN: 20}
        assert live.names == {BEN: "Ben", ANN: "Ann"}
        assert live.actions == [{"player": str(BEN), "action": "bet"}]
        assert [h.net for h in await store.history.recent_hands(G, ANN)] == [4]
        data = await store.server.player_data(G, ANN)
        assert data is not None and (data.hands, data.ledger_entries) == (2, 2)
        # play goes on where it stood: the live hand settles, and the holds come back
        assert await store.hands.finish_hand(2, {BEN: 5, ANN: -5})
        assert (await store.ledger.balance(G, ANN)).held == 0  # type: ignore[union-attr]
        audit(target)
        anon = await store.server.erase_player(G, ANN)
        assert [s["player"] for s in (await store.history.hand_record(2))["seats"]] == [
            str(BEN),
            str(anon),
        ]
    assert rows_naming(target, ANN) == {}
    audit(target)


async def test_migration_moves_sqlite_data_to_people(tmp_path: Any) -> None:
    await _migrated(tmp_path / "old.db")


@needs_pg
async def test_migration_moves_postgres_data_to_people() -> None:
    await _migrated(new_schema())


@needs_pg
async def test_the_guild_owner_fence_covers_people() -> None:
    """A process that lost the guild cannot make or rename its people either."""
    url = new_schema()
    async with await Store.open(url) as owner, await Store.open(url) as other:
        assert await owner.ownership.claim_guild(G)
        with pytest.raises(Exception, match="run by another process"):
            await other.ledger.ensure_account(G, ANN, "Ann", GRANT)
        pg = await postgres.connect(url)
        try:
            with pytest.raises(Exception, match="run by another process"):
                await pg.execute(f"INSERT INTO people (guild_id, user_id) VALUES ({G}, {BEN})")
        finally:
            await pg.close()
