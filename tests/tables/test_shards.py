"""Sharded processes: each recovers only its own guilds' tables, and the database keeps
a second process off a guild another process holds until that process dies."""

from __future__ import annotations

import asyncio
import os
import signal
import sys

import pytest

from bot.settings import SettingsError, load_settings
from bot.storage.backend import GUILD_TAKEN
from bot.storage.rows import TableRow
from bot.storage.shards import Shards, shard_of
from bot.storage.store import Store
from bot.tables.models import Refused
from tests.support.databases import PG_URL, SKIP_REASON, Databases, Target, new_schema
from tests.support.manager_helpers import (
    check_ledger,
    close_manager,
    open_manager,
    play,
    seat_players,
)
from tests.support.paths import ROOT

# Guild ids whose shard (of 2) is 0 and 1: Discord's rule, (id >> 22) % shard_count.
G0, G1 = (1 << 22) * 10, (1 << 22) * 11 + 5
CH0, CH1 = 500, 501
REPO = ROOT


def test_a_guild_belongs_to_one_shard() -> None:
    assert (shard_of(G0, 2), shard_of(G1, 2)) == (0, 1)
    assert Shards(2, frozenset({0})).owns(G0) and not Shards(2, frozenset({0})).owns(G1)
    assert Shards(4, frozenset({1, 3})).owns(G1)  # 11 % 4 == 3


async def _two_guilds_mid_hand(path: Target) -> None:
    store, m = await open_manager(path, seed=1)
    for guild, channel in ((G0, CH0), (G1, CH1)):
        await seat_players(m, channel, "a5-draw", [1, 2, 3], guild=guild)
        await m.deal(channel)
        await play(m, channel, "x", limit=2)
    await close_manager(store, m)


async def test_each_process_recovers_only_its_own_shards(databases: Databases) -> None:
    path = databases.target("t.db")
    await _two_guilds_mid_hand(path)
    store0, m0 = await open_manager(path, start=False, shards=Shards(2, frozenset({0})))
    store1, m1 = await open_manager(path, start=False, shards=Shards(2, frozenset({1})))
    try:
        assert (await m0.start(), await m1.start()) == (1, 1)
        assert (m0.channels(), m1.channels()) == ([CH0], [CH1])
        await play(m0, CH0, "x")
        await play(m1, CH1, "x")
        # neither may open a table in the other's guild
        with pytest.raises(Refused):
            await m0.open_table(G1, 600, "a5-draw")
    finally:
        await close_manager(store0, m0)
        await close_manager(store1, m1)
    check_ledger(path)


# ---------------------------------------------------------------- a live owner, then a dead one

CHILD = """
import asyncio, sys
from tests.support.manager_helpers import open_manager, play, seat_players

async def main(url):
    store, m = await open_manager(url, seed=4)
    await seat_players(m, {ch}, "a5-triple", [1, 2, 3], guild={g})
    await m.deal({ch})
    await play(m, {ch}, "child", limit=3)
    print("ready", m.view({ch}).turn, flush=True)
    await asyncio.sleep(3600)

asyncio.run(main(sys.argv[1]))
"""


@pytest.mark.skipif(not PG_URL, reason=SKIP_REASON)
async def test_a_live_table_cannot_be_stolen_but_is_taken_over_when_its_process_dies() -> None:
    url = new_schema()
    child = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        CHILD.format(ch=CH0, g=G0),
        url,
        cwd=REPO,
        stdout=asyncio.subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    try:
        assert child.stdout is not None
        line = (await asyncio.wait_for(child.stdout.readline(), 60)).decode().split()
        assert line[0] == "ready", line
        store, m = await open_manager(url, seed=4, claim_retry=0.05)
        try:
            # The child holds the guild: this process restores nothing and may not act.
            assert not m.has_table(CH0)
            with pytest.raises(Refused):
                m.view(CH0)
            with pytest.raises(Refused):
                await m.open_table(G0, CH1, "a5-draw")
            # Even a write that skips the manager is refused by the database.
            with pytest.raises(GUILD_TAKEN):
                await store.tables.save_table(TableRow(CH1, G0, "a5-draw"))
            await asyncio.sleep(0.3)  # retries keep failing while the child lives
            assert not m.has_table(CH0)

            child.send_signal(signal.SIGKILL)
            await child.wait()
            for _ in range(200):  # its session ends, the lock lapses, this process takes over
                if m.has_table(CH0):
                    break
                await asyncio.sleep(0.05)
            view = m.view(CH0)
            assert view.hand is not None and view.turn == int(line[1])  # the same hand, mid-way
            assert await play(m, CH0, "parent") > 0
            assert m.view(CH0).hand is None or m.view(CH0).hand.complete  # type: ignore[union-attr]
            await m.open_table(G0, CH1, "a5-draw")  # and the guild is this process's now
        finally:
            await close_manager(store, m)
    finally:
        if child.returncode is None:
            child.kill()
            await child.wait()
    check_ledger(url)
    async with await Store.open(url) as store:
        assert await store.history.load_live_hands() == []


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        (
            {"SHARD_COUNT": "4", "SHARD_IDS": "3,1", "DATABASE_URL": "postgresql://h/db"},
            (4, (1, 3)),
        ),
        ({"SHARD_COUNT": "2"}, (2, None)),  # one process, every shard: SQLite is fine
        ({"SHARD_COUNT": "2", "SHARD_IDS": "0,1"}, (2, (0, 1))),
        ({"SHARD_IDS": "1"}, "SHARD_IDS: needs SHARD_COUNT"),
        ({"SHARD_COUNT": "2", "SHARD_IDS": "0"}, "SHARD_IDS: processes that split the shards"),
        ({"SHARD_COUNT": "2", "SHARD_IDS": "0,2", "DATABASE_URL": "postgresql://h/db"}, "0 to 1"),
        ({"SHARD_COUNT": "0"}, "SHARD_COUNT: must be a whole number of shards"),
    ],
)
def test_shard_settings(
    monkeypatch: pytest.MonkeyPatch, env: dict[str, str], expected: object
) -> None:
    for name in ("SHARD_COUNT", "SHARD_IDS", "DATABASE_URL"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    if isinstance(expected, str):
        with pytest.raises(SettingsError, match=expected):
            load_settings(env_file=None)
    else:
        settings = load_settings(env_file=None)
        assert (settings.shard_count, settings.shard_ids) == expected
