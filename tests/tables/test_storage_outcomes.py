"""What the table service does with what the store reports: a player erased is forgotten in
memory too (the next save does not write their id back), and a guild lost to another process
while the database session was down is served no more (PostgreSQL)."""

from __future__ import annotations

import asyncio
import json

import asyncpg
import pytest

from bot.storage.store import Store
from bot.tables.manager import TableManager
from tests.support.databases import PG_URL, SKIP_REASON, new_schema
from tests.support.manager_helpers import GRANT, GUILD, close_manager, open_manager

CH = 31
LOST_GUILD = 7331  # advisory locks are database-wide: a guild no other test claims


async def _stored_settings(store: Store, channel_id: int) -> dict[str, object]:
    row = await store.tables.load_table(channel_id)
    assert row is not None
    return json.loads(json.dumps(row.settings))


async def test_an_erased_opener_is_not_written_back_by_the_next_save(tmp_path) -> None:
    store, manager = await open_manager(tmp_path / "p.db")
    try:
        await manager.open_table(GUILD, CH, "a5-draw", opener=7)
        await manager.join(CH, 7, "seven")
        await manager.leave(CH, 7)
        await manager.forget_player(GUILD, 7)
        for user in (8, 9):
            await manager.join(CH, user, f"u{user}")
        await manager.deal(CH)
        assert not await manager.kick(CH, 9)  # in the hand: the table row is saved again
        settings = await _stored_settings(store, CH)
        assert settings.get("kicked") == [9]
        assert settings.get("opener") is None  # the old code wrote 7 back from memory
    finally:
        await close_manager(store, manager)


@pytest.mark.skipif(not PG_URL, reason=SKIP_REASON)
async def test_a_guild_lost_while_the_session_was_down_is_served_no_more() -> None:
    url = new_schema()
    lost: list[TableManager] = []  # the manager, once built: told of the lost guilds
    store = await Store.open(url, on_guilds_lost=lambda guilds: lost[0].guilds_lost(guilds))
    manager = TableManager(store, starting_grant=GRANT, turn_timeout=3600)
    lost.append(manager)
    await manager.start()
    other = await Store.open(url)
    try:
        await manager.open_table(LOST_GUILD, CH, "a6-draw")
        for user in (1, 2):
            await manager.join(CH, user, f"u{user}")
        pid = store.db.conn.raw.get_server_pid()  # type: ignore[attr-defined]
        admin = await asyncpg.connect(PG_URL)
        try:
            assert await admin.fetchval("SELECT pg_terminate_backend($1)", pid)
            while await admin.fetchval("SELECT count(*) FROM pg_stat_activity WHERE pid = $1", pid):
                await asyncio.sleep(0.01)
        finally:
            await admin.close()
        assert await other.ownership.claim_guild(
            LOST_GUILD
        )  # the lapsed lock is taken by another process
        with pytest.raises(Exception):  # noqa: B017 - the fenced write fails, whatever its type
            await manager.join(CH, 3, "u3")
        assert not manager.has_table(CH)  # this process stops serving the guild
    finally:
        await manager.close()
        await store.close()
        await other.close()
