"""Forgetting a user the server stores nothing of changes nothing at its tables.

Found by the concurrency storm (issue 34 item 8): ``erase_player`` refuses such a user
with ``UnknownAccount`` inside one step at each of the server's tables, and the step
pipeline took that for a failed transaction, so every table was reloaded from the
database, logged a warning and showed itself again. A refusal changes nothing: no
reload, no warning, no event. Real managers on real databases (both backends).
"""

from __future__ import annotations

import logging
import random

import pytest

from bot.storage.errors import UnknownAccount
from bot.storage.store import Store
from bot.tables.manager import TableManager
from tests.support.databases import Databases
from tests.support.manager_helpers import GRANT, GUILD, Clock, close_manager

TABLES = (901, 902)


async def test_forgetting_a_user_with_no_account_reloads_no_table(
    databases: Databases, caplog: pytest.LogCaptureFixture
) -> None:
    store = await Store.open(databases.new())
    m = TableManager(store, starting_grant=GRANT, clock=Clock(), rng=random.Random(7))
    await m.start()
    for channel in TABLES:
        await m.open_table(GUILD, channel, "a5-draw", opener=11)
        await m.join(channel, 11, "ann")
    for channel in TABLES:
        m.outbox.take(channel)  # what the opens and joins showed
    caplog.clear()
    with caplog.at_level(logging.WARNING), pytest.raises(UnknownAccount):
        await m.forget_player(GUILD, 999)
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == []
    for channel in TABLES:
        assert m.outbox.take(channel) == [], channel  # nothing reloaded, nothing shown
        assert [s.user_id for s in m.view(channel).seats] == [11]
    await close_manager(store, m)
