"""Background work never dies at its first error: it logs it with its context and goes on.

Each test breaks one long-lived task through a real seam (a row the store cannot read,
a failing COMMIT through the failpoint) and checks that the failure is logged at ERROR
with what was being done, and that the work is done once the fault is gone: taking
over a guild, closing idle tables, the automatic deal's failure, a timeout, and a
computer player's move.
"""

from __future__ import annotations

import asyncio
import logging
import random
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from bot.practice.driver import PracticeDriver
from bot.storage.store import Store
from bot.tables.guild_settings import Defaults, GuildSettingsBook
from bot.tables.manager import TableManager
from bot.tables.models import Code
from tests.support.databases import Databases
from tests.support.failpoints import failing_commits
from tests.support.manager_helpers import GRANT, GUILD, Clock, close_manager, refused, step

CH = 950
A, B = 11, 12


async def until(predicate: Callable[[], bool], timeout: float = 10.0) -> None:
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not predicate():
        assert loop.time() < end, "condition not reached in time"
        await asyncio.sleep(0.01)


def errors(caplog: pytest.LogCaptureFixture, *words: str) -> list[str]:
    """The ERROR records whose text has every one of ``words``."""
    return [
        r.getMessage()
        for r in caplog.records
        if r.levelno >= logging.ERROR and all(w in r.getMessage() for w in words)
    ]


def raw(path: Path, sql: str, *args: object) -> None:
    """A write past the store (another process, an operator), committed at once."""
    lite = sqlite3.connect(path, isolation_level=None)
    try:
        lite.execute(sql, args)
    finally:
        lite.close()


async def test_a_failed_take_over_is_logged_and_tried_again(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The guild's tables cannot be read at the first tries: each failure is logged,
    opens there stay refused while it waits, and the take-over succeeds once they can."""
    path = tmp_path / "t.db"
    store = await Store.open(path)
    m = TableManager(store, starting_grant=GRANT, rng=random.Random(1), claim_retry=0.02)
    await m.start()
    await m.open_table(GUILD, CH, "a5-draw", opener=A)
    await m.join(CH, A, "ann")
    raw(path, "UPDATE tables SET variant = 'no-such-game' WHERE channel_id = ?", CH)
    with caplog.at_level(logging.ERROR):
        m.recovery.lost(frozenset({GUILD}))  # as the store reports a guild lost
        assert not m.has_table(CH)
        await until(lambda: len(errors(caplog, "taking over guilds", str(GUILD))) >= 2)
    no = await refused(m.open_table(GUILD, CH + 1, "a5-draw"))
    assert no.code is Code.GUILD_ELSEWHERE  # still waiting for it
    raw(path, "UPDATE tables SET variant = 'a5-draw' WHERE channel_id = ?", CH)
    await until(lambda: m.has_table(CH))
    assert [s.user_id for s in m.view(CH).seats] == [A]
    await m.open_table(GUILD, CH + 1, "a5-draw")  # served again
    await close_manager(store, m)


async def test_the_idle_sweep_goes_on_after_a_failure(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A server's settings cannot be read: its idle table is logged as not closed and
    tried again at the next passes; the other server's idle table closes meanwhile, and
    the first closes once its settings can be read."""
    path = tmp_path / "t.db"
    clock = Clock()
    store = await Store.open(path)
    book = GuildSettingsBook(store, Defaults(60.0, False, idle_close_hours=1.0))
    m = TableManager(store, clock=clock, rng=random.Random(1), idle_after=book.idle_after)
    await m.start(idle_sweep=0.02)
    await m.open_table(GUILD, CH, "a5-draw")
    await m.open_table(GUILD + 1, CH + 1, "a5-draw")
    raw(
        path,
        "INSERT INTO guild_settings (guild_id, allowed_channels, updated_at) VALUES (?, ?, 0)",
        GUILD,
        "not a list",
    )
    with caplog.at_level(logging.ERROR):
        clock.now += 3601  # both idle for longer than an hour
        await until(lambda: not m.has_table(CH + 1))
        await until(lambda: len(errors(caplog, "idle table", str(CH))) >= 2)
    assert m.has_table(CH)
    raw(path, "UPDATE guild_settings SET allowed_channels = '[]' WHERE guild_id = ?", GUILD)
    await until(lambda: not m.has_table(CH))
    assert await store.tables.load_tables() == []
    await close_manager(store, m)


async def test_a_failed_automatic_deal_is_logged_with_its_table(
    databases: Databases, caplog: pytest.LogCaptureFixture
) -> None:
    store = await Store.open(databases.new())
    m = TableManager(store, starting_grant=GRANT, next_hand_delay=0.01, rng=random.Random(2))
    await m.start()
    await m.open_table(GUILD, CH, "a5-draw")
    await m.join(CH, A, "ann")
    await m.join(CH, B, "bob")
    await m.deal(CH)
    with caplog.at_level(logging.ERROR), failing_commits("start_hand", 1) as failed:
        while m.view(CH).hand is not None:
            await step(m, CH, "auto")
        await until(lambda: len(errors(caplog, "automatic deal at", str(CH))) == 1)
    assert failed == ["start_hand"]
    assert m.view(CH).hand is None  # the table as stored: no hand
    await m.deal(CH)  # and the table goes on
    await close_manager(store, m)


async def test_a_failed_timeout_is_logged_and_tried_again(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """(SQLite: the failpoint fails its COMMITs as a full disk would.)"""
    clock = Clock()
    store = await Store.open(tmp_path / "t.db")
    m = TableManager(
        store, turn_timeout=30, clock=clock, rng=random.Random(3), retry_delays=(0.02,)
    )
    await m.start()
    await m.open_table(GUILD, CH, "a5-draw")
    await m.join(CH, A, "ann")
    await m.join(CH, B, "bob")
    view = await m.deal(CH)
    # each try fails at least once (in its batch, then maybe on its own: the group commit)
    with caplog.at_level(logging.ERROR), failing_commits("append_action", 4) as failed:
        clock.now += 31

        def moved() -> bool:  # the retry waits its back-off on the manager's clock
            clock.now += 0.05
            return m.view(CH).turn == 1

        await until(moved)
    assert 1 <= len(failed) <= 4
    alerts = errors(caplog, "ALERT: timeout at table", str(CH), f"hand {view.hand_id}")
    assert 1 <= len(alerts) <= len(failed), [r.getMessage() for r in caplog.records]
    await close_manager(store, m)


async def test_a_computer_players_failed_move_is_logged_and_made_again(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    store = await Store.open(tmp_path / "t.db")
    m = TableManager(store, starting_grant=GRANT, rng=random.Random(4))
    await m.start()
    driver = PracticeDriver(m, pause=0, rng=random.Random(5))
    await m.open_table(GUILD, CH, "a5-draw")
    await m.join(CH, A, "ann")
    await m.add_bot(CH, A, "easy", "robot")
    with caplog.at_level(logging.ERROR), failing_commits("append_action", 4) as failed:
        await m.deal(CH, A)
        for _ in range(10):  # until the computer player's move was tried and made
            await driver.settle()
            if errors(caplog, "ALERT computer player at") or m.view(CH).hand is None:
                break
            await step(m, CH, "bot")
    await driver.settle()
    assert 1 <= len(failed) <= 4
    alerts = errors(caplog, "ALERT computer player at", str(CH))
    assert 1 <= len(alerts) <= len(failed), [r.getMessage() for r in caplog.records]
    view = m.view(CH)
    assert view.hand is None or view.turn >= 1  # the game went on past the failures
    await driver.close()
    await close_manager(store, m)
