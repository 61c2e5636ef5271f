"""The deadline dispatcher on its own: order, replacement, and surviving failures."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import time
from pathlib import Path

import pytest

from bot.tables.deadlines import Deadlines
from tests.support.manager_helpers import close_manager, open_manager, seat_players, wait_for

CH, A, B = 600, 11, 12


async def test_deadlines_fire_in_time_order_and_arming_replaces() -> None:
    fired: list[tuple[int, int, int]] = []

    async def fire(channel: int, hand: int, turn: int) -> None:
        fired.append((channel, hand, turn))

    d = Deadlines(fire, time.time)
    now = time.time()
    d.arm(1, 10, 0, now + 0.06)
    d.arm(2, 20, 0, now + 0.02)
    d.arm(3, 30, 0, now + 0.04)
    d.arm(3, 30, 1, now + 0.08)  # the same table's next turn replaces its deadline
    d.arm(4, 40, 0, now + 0.01)
    d.disarm(4)
    await wait_for(lambda: len(fired) == 3)
    assert fired == [(2, 20, 0), (1, 10, 0), (3, 30, 1)]
    await asyncio.sleep(0.05)
    assert len(fired) == 3  # replaced and disarmed deadlines never fire
    await d.close()


async def test_many_turns_with_long_timeouts_keep_only_live_deadlines() -> None:
    """Every action re-arms its table: with hour-long turns, 5,000 actions at 3 tables
    must not leave 5,000 entries waiting an hour each; the live ones still fire."""
    fired: list[tuple[int, int, int]] = []

    async def fire(channel: int, hand: int, turn: int) -> None:
        fired.append((channel, hand, turn))

    d = Deadlines(fire, time.time)
    now = time.time()
    for turn in range(5000):
        d.arm(turn % 3, 1, turn, now + 3600)
    assert len(d._heap) <= 2 * 3 + 64
    d.arm(0, 1, 5000, now + 0.01)  # the latest turn of each table, due soon
    d.arm(1, 1, 5001, now + 0.02)
    await wait_for(lambda: len(fired) == 2)
    assert fired == [(0, 1, 5000), (1, 1, 5001)]
    assert d.armed(2) is not None and d.armed(2).turn == 4997  # still waiting its hour
    await d.close()


async def test_a_failing_deadline_is_retried_with_backoff_and_alerts(
    caplog: pytest.LogCaptureFixture,
) -> None:
    attempts: list[float] = []

    async def fire(channel: int, hand: int, turn: int) -> None:
        attempts.append(time.monotonic())
        if len(attempts) <= 2:
            raise OSError("disk I/O error")

    d = Deadlines(fire, time.time, retry_delays=(0.05, 0.1))
    with caplog.at_level(logging.ERROR, logger="bot.tables.deadlines"):
        d.arm(7, 1, 3, time.time())
        await wait_for(lambda: len(attempts) == 3)
    gaps = [b - a for a, b in zip(attempts, attempts[1:], strict=False)]
    assert gaps[0] >= 0.05 and gaps[1] >= 0.1  # the backoff grows
    alerts = [r for r in caplog.records if r.levelno == logging.ERROR]
    assert len(alerts) == 2 and "ALERT" in alerts[0].getMessage()
    assert "table 7" in alerts[0].getMessage() and alerts[0].exc_info is not None
    await asyncio.sleep(0.15)
    assert len(attempts) == 3  # done once it succeeded
    await d.close()


async def test_arming_the_failing_turn_again_cannot_skip_its_backoff() -> None:
    attempts: list[float] = []
    d: Deadlines

    async def fire(channel: int, hand: int, turn: int) -> None:
        attempts.append(time.monotonic())
        if len(attempts) == 1:
            d.arm(channel, hand, turn, 0.0)  # e.g. a reload re-arms the stored, past deadline
            raise OSError("disk I/O error")

    d = Deadlines(fire, time.time, retry_delays=(0.1,))
    d.arm(1, 1, 0, time.time())
    await wait_for(lambda: len(attempts) == 2)
    assert attempts[1] - attempts[0] >= 0.1
    await d.close()


async def test_a_new_turn_armed_during_a_failed_attempt_stands() -> None:
    fired: list[tuple[int, int, int]] = []

    async def fire(channel: int, hand: int, turn: int) -> None:
        fired.append((channel, hand, turn))
        if turn == 0:
            d.arm(channel, hand, 1, time.time() + 0.05)  # the turn moved on meanwhile
            raise OSError("the answer was lost, but the step was stored")

    d = Deadlines(fire, time.time, retry_delays=(0.01,))
    d.arm(1, 1, 0, time.time())
    await wait_for(lambda: len(fired) == 2)
    await asyncio.sleep(0.05)
    assert fired == [(1, 1, 0), (1, 1, 1)]
    await d.close()


async def test_close_waits_for_a_firing_deadline() -> None:
    started, finished = asyncio.Event(), asyncio.Event()

    async def fire(channel: int, hand: int, turn: int) -> None:
        started.set()
        await asyncio.sleep(0.05)
        finished.set()

    d = Deadlines(fire, time.time)
    d.arm(1, 1, 0, time.time())
    await asyncio.wait_for(started.wait(), 3)
    await d.close()
    assert finished.is_set()
    d.arm(1, 1, 1, time.time())  # closed: ignored
    await asyncio.sleep(0.02)
    assert d.armed(1) is None


async def test_a_timeout_that_fails_is_tried_again_until_it_times_the_player_out(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Another process holds the database's write lock: the player's own action fails,
    then the timeout fails (an ERROR alert); once the lock is gone the timeout goes
    through. The old per-table timer died after its first failure."""
    path = tmp_path / "t.db"
    store, m = await open_manager(path, turn_timeout=0.3)
    await seat_players(m, CH, "a5-draw", [A, B])
    view = await m.deal(CH, A)
    first = view.to_act_user
    assert first is not None and view.hand_id is not None
    await store.db.conn.execute("PRAGMA busy_timeout = 20")  # fail fast while locked
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # e.g. a backup holding the write lock
    try:
        with caplog.at_level(logging.ERROR, logger="bot.tables.deadlines"):
            with pytest.raises(sqlite3.OperationalError):
                await m.act(CH, first, "check")  # act() fails: its deadline stays armed
            await wait_for(lambda: any("ALERT" in r.getMessage() for r in caplog.records), 5)
        assert m.view(CH).turn == 0  # nothing applied while the database refused
    finally:
        other.execute("ROLLBACK")
        other.close()
    await wait_for(lambda: m.view(CH).turn == 1, 5)  # retried after the backoff
    record = await store.history.hand_record(view.hand_id)
    assert record["actions"] == [{"player": str(first), "action": "check"}]  # the timeout
    seat = m.table(CH).seat_of(first)
    assert seat is not None and seat.timeouts == 1
    await close_manager(store, m)
