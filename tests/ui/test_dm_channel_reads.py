"""One user's stored DM channel, read on demand (``DmBook``), on both backends."""

from __future__ import annotations

from bot.storage.dm_channels import DmChannel
from bot.storage.store import Store


async def test_one_users_dm_channel_is_read_alone(db_path):
    async with await Store.open(db_path) as store:
        assert await store.dms.get(11) is None
        await store.dms.save(DmChannel(11, 501))
        await store.dms.save(DmChannel(12, 502, closed=True))
        assert await store.dms.get(11) == DmChannel(11, 501)
        assert await store.dms.get(12) == DmChannel(12, 502, closed=True)
