"""A close racing every other step: what queued behind the close is refused "no table".

Every entry point finds the table, then waits for its lock. Here a close holds the
lock while other steps (a join, a deal, an action, a timeout, a computer player's
move, the automatic deal, a kick, forgetting a player, another close, …) queue behind
it; when their turn comes the table is closed, so each is refused ``NO_TABLE`` and
writes nothing: the database keeps the table closed, with no seat, no live hand and
no chips held, and the channel can be opened, dealt and closed again. Real managers
on real databases (both backends, see conftest); the order is made certain by
holding the table's lock while the steps queue, and nothing of ours is replaced.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from bot.practice.driver import PracticeDriver
from bot.storage.store import Store
from bot.tables.manager import TableManager
from bot.tables.models import Code, Refused
from tests.support.databases import Databases, Target, open_reader
from tests.support.manager_helpers import GRANT, GUILD, Clock, check_ledger, close_manager, step

CH = 900
A, B, C, D = 11, 12, 13, 14
IDLE = 600.0

Call = Callable[[TableManager], Awaitable[Any]]


async def _idle_after(guild_id: int) -> float | None:
    return IDLE


async def manager_at(
    target: Target, *, clock: Clock, next_hand_delay: float = 0.0
) -> tuple[Store, TableManager]:
    store = await Store.open(target)
    m = TableManager(
        store,
        starting_grant=GRANT,
        turn_timeout=30,
        next_hand_delay=next_hand_delay,
        clock=clock,
        rng=random.Random(7),
        idle_after=_idle_after,
        retry_delays=(0.05,),
    )
    await m.start()
    return store, m


def waiting(lock: asyncio.Lock) -> int:
    """How many wait for the lock (asyncio's own queue of waiters)."""
    waiters = lock._waiters
    return 0 if waiters is None else sum(1 for w in waiters if not w.done())


async def until(predicate: Callable[[], bool], timeout: float = 5.0) -> None:
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not predicate():
        assert loop.time() < end, "condition not reached in time"
        await asyncio.sleep(0.005)


async def race(
    m: TableManager,
    close: Call,
    queued: list[Call],
    *,
    background: int = 0,
    then: Callable[[], None] = lambda: None,
) -> list[Any]:
    """Hold the table's lock; queue ``close`` first, then each of ``queued`` in order,
    then call ``then`` and wait for ``background`` steps started by the bot itself to
    queue; let them go. Return each one's result or exception, the close's first."""
    lock = m.table(CH).lock
    await lock.acquire()
    tasks: list[asyncio.Task[Any]] = []
    try:
        for call in [close, *queued]:
            tasks.append(asyncio.ensure_future(call(m)))
            count = len(tasks)
            await until(lambda count=count: waiting(lock) == count)  # type: ignore[misc]
        then()
        total = len(tasks) + background
        await until(lambda: waiting(lock) == total)
    finally:
        lock.release()
    return list(await asyncio.gather(*tasks, return_exceptions=True))


def assert_no_table(results: list[Any]) -> None:
    for result in results:
        assert isinstance(result, Refused), result
        assert result.code is Code.NO_TABLE, result


def audit(target: Target, users: list[int]) -> None:
    """What the database holds for the channel: closed, nobody seated, no live hand, no
    chips held, and a ledger that adds up."""
    reader = open_reader(target)
    try:
        row = reader.execute("SELECT open FROM tables WHERE channel_id = ?", (CH,)).fetchone()
        seats = reader.execute("SELECT user_id FROM seats WHERE channel_id = ?", (CH,)).fetchall()
        live = reader.execute(
            "SELECT hand_id FROM hands WHERE channel_id = ? AND status = 'live'", (CH,)
        ).fetchall()
        held = reader.execute(
            "SELECT user_id, held FROM accounts WHERE held <> 0 ORDER BY user_id"
        ).fetchall()
    finally:
        if not isinstance(target, str):
            reader.close()
    assert row is not None and row[0] == 0, "the table is open in the database"
    assert seats == [], f"seats at a closed table: {seats}"
    assert live == [], f"live hands at a closed table: {live}"
    assert held == [], f"chips held after the close: {held}"
    check_ledger(target)


async def closed_and_reusable(store: Store, m: TableManager, target: Target) -> None:
    """Closed everywhere, and the channel can be opened, dealt and force-closed again."""
    assert not m.has_table(CH)
    assert m.steps.deadlines.armed(CH) is None
    audit(target, [A, B, C, D])
    assert [r.channel_id for r in await store.tables.load_tables()] == []
    await m.open_table(GUILD, CH, "a5-draw", opener=A)
    await m.join(CH, A, "ann")
    await m.join(CH, B, "bob")
    await m.deal(CH)
    assert len(await store.history.load_live_hands(channel_id=CH)) == 1
    assert await m.close_table(CH, 0, moderator=True, force=True)
    audit(target, [A, B, C, D])


# ----- the closes ---------------------------------------------------------------


def _plain(m: TableManager) -> Awaitable[Any]:
    return m.close_table(CH, A)  # the opener, with nobody else seated


def _moderator(m: TableManager) -> Awaitable[Any]:
    return m.close_table(CH, 0, moderator=True)


def _forced(m: TableManager) -> Awaitable[Any]:
    return m.close_table(CH, 0, moderator=True, force=True)


def _gone(m: TableManager) -> Awaitable[Any]:
    return m.close_gone([CH])  # the thread or channel was deleted


def _idle(m: TableManager) -> Awaitable[Any]:
    return m.close_idle()


BETWEEN_HANDS = {"plain": _plain, "moderator": _moderator, "forced": _forced, "gone": _gone}
WITH_A_HAND = {"forced": _forced, "gone": _gone}

# ----- what queues behind them ----------------------------------------------------


def _join(user: int) -> Call:
    return lambda m: m.join(CH, user, f"user{user}")


def _deal(m: TableManager) -> Awaitable[Any]:
    return m.deal(CH)


def _leave(m: TableManager) -> Awaitable[Any]:
    return m.leave(CH, A)


def _sit_out(m: TableManager) -> Awaitable[Any]:
    return m.sit_out(CH, A)


def _add_bot(m: TableManager) -> Awaitable[Any]:
    return m.add_bot(CH, A, "easy", "robot")


def _kick(m: TableManager) -> Awaitable[Any]:
    return m.kick(CH, B)


def _close_again(m: TableManager) -> Awaitable[Any]:
    return m.close_table(CH, 0, moderator=True, force=True)


async def _forget(m: TableManager) -> Any:
    return await m.forget_player(GUILD, B)


def _act(m: TableManager) -> Awaitable[Any]:
    view = m.view(CH)
    assert view.to_act_user is not None
    return m.act(CH, view.to_act_user, "fold", turn=view.turn, hand_id=view.hand_id)


def _timeout(m: TableManager) -> Awaitable[Any]:
    view = m.view(CH)
    assert view.hand_id is not None
    return m.expire(CH, view.hand_id, view.turn)


NO_HAND_PATHS: dict[str, list[Call]] = {
    "join": [_join(C)],
    "join, join and deal": [_join(C), _join(D), _deal],
    "leave": [_leave],
    "sit out": [_sit_out],
    "settings: seat a computer player": [_add_bot],
    "kick": [_kick],
    "another close": [_close_again],
}
HAND_PATHS: dict[str, list[Call]] = {
    "act": [_act],
    "timeout": [_timeout],
    "kick": [_kick],
    "leave": [_leave],
    "sit out": [_sit_out],
    "another close": [_close_again],
    "join, join and deal": [_join(C), _join(D), _deal],
}


@pytest.mark.parametrize("close", BETWEEN_HANDS)
@pytest.mark.parametrize("path", NO_HAND_PATHS)
async def test_a_step_queued_behind_a_close_between_hands_is_refused(
    databases: Databases, close: str, path: str
) -> None:
    target = databases.new()
    store, m = await manager_at(target, clock=Clock())
    await m.open_table(GUILD, CH, "a5-draw", opener=A)
    await m.join(CH, A, "ann")
    if close != "plain":  # the opener closes only while nobody else is seated
        await m.join(CH, B, "bob")
    results = await race(m, BETWEEN_HANDS[close], NO_HAND_PATHS[path])
    assert results[0] in (True, 1), results[0]
    assert_no_table(results[1:])
    await closed_and_reusable(store, m, target)
    await close_manager(store, m)


@pytest.mark.parametrize("path", NO_HAND_PATHS)
async def test_a_step_queued_behind_an_idle_close_is_refused(
    databases: Databases, path: str
) -> None:
    target = databases.new()
    clock = Clock()
    store, m = await manager_at(target, clock=clock)
    await m.open_table(GUILD, CH, "a5-draw", opener=A)
    await m.join(CH, A, "ann")
    await m.join(CH, B, "bob")
    clock.now += IDLE + 1
    results = await race(m, _idle, NO_HAND_PATHS[path])
    assert results[0] == 1
    assert_no_table(results[1:])
    await closed_and_reusable(store, m, target)
    await close_manager(store, m)


@pytest.mark.parametrize("close", WITH_A_HAND)
@pytest.mark.parametrize("path", HAND_PATHS)
async def test_a_step_queued_behind_a_close_during_a_hand_is_refused(
    databases: Databases, close: str, path: str
) -> None:
    target = databases.new()
    store, m = await manager_at(target, clock=Clock())
    await m.open_table(GUILD, CH, "a5-draw", opener=A)
    for user in (A, B, C):
        await m.join(CH, user, f"user{user}")
    await m.deal(CH)
    results = await race(m, WITH_A_HAND[close], HAND_PATHS[path])
    assert results[0] in (True, 1), results[0]
    assert_no_table(results[1:])
    await closed_and_reusable(store, m, target)
    await close_manager(store, m)


async def test_forgetting_a_player_behind_a_close_skips_the_closed_table(
    databases: Databases,
) -> None:
    target = databases.new()
    store, m = await manager_at(target, clock=Clock())
    await m.open_table(GUILD, CH, "a5-draw", opener=A)
    await m.join(CH, A, "ann")
    await m.join(CH, B, "bob")
    await m.deal(CH)
    close, forget = await race(m, _forced, [_forget])
    assert close is True
    assert isinstance(forget, int), forget  # erased: their anonymous id
    assert await m.store.server.player_data(GUILD, B) is None
    await closed_and_reusable(store, m, target)
    await close_manager(store, m)


async def test_a_timeout_fired_behind_a_close_is_dropped_quietly(
    databases: Databases, caplog: pytest.LogCaptureFixture
) -> None:
    """The dispatcher's own firing: the deadline comes due while the close holds the
    lock; it is dropped without an alert and never tried again."""
    target = databases.new()
    clock = Clock()
    store, m = await manager_at(target, clock=clock)
    await m.open_table(GUILD, CH, "a5-draw", opener=A)
    for user in (A, B):
        await m.join(CH, user, f"user{user}")
    await m.deal(CH)

    def due() -> None:  # the dispatcher fires within its longest sleep (1 s)
        clock.now += 31

    with caplog.at_level(logging.ERROR):
        (close,) = await race(m, _forced, [], background=1, then=due)
        await asyncio.sleep(0.2)  # a retry, were there one, is 0.05 s away
    assert close is True
    assert [r.message for r in caplog.records if r.levelno >= logging.ERROR] == []
    await closed_and_reusable(store, m, target)
    await close_manager(store, m)


async def test_the_automatic_deal_behind_a_close_deals_nothing(databases: Databases) -> None:
    """The hand ended, the automatic deal waited its pause and queued; a close and two
    joins were ahead of it."""
    target = databases.new()
    store, m = await manager_at(target, clock=Clock(), next_hand_delay=0.3)
    await m.open_table(GUILD, CH, "a5-draw", opener=A)
    for user in (A, B):
        await m.join(CH, user, f"user{user}")
    await m.deal(CH)
    lock = m.table(CH).lock
    while m.view(CH).hand is not None:  # to its end: the automatic deal's pause starts
        await step(m, CH, "auto")
    await lock.acquire()
    try:
        tasks = [asyncio.ensure_future(call(m)) for call in (_forced, _join(C), _join(D))]
        await until(lambda: waiting(lock) == 4)  # the automatic deal queued too
    finally:
        lock.release()
    results = await asyncio.gather(*tasks, return_exceptions=True)
    assert results[0] is True
    assert_no_table(results[1:])
    await closed_and_reusable(store, m, target)
    await close_manager(store, m)


async def test_a_computer_players_move_behind_a_close_is_dropped(databases: Databases) -> None:
    target = databases.new()
    store, m = await manager_at(target, clock=Clock())
    driver = PracticeDriver(m, pause=0.3, rng=random.Random(3))
    await m.open_table(GUILD, CH, "a5-draw", opener=A)
    await m.join(CH, A, "ann")
    await m.add_bot(CH, A, "easy", "robot")
    await m.deal(CH)
    for _ in range(10):  # until the computer player is to act
        view = m.view(CH)
        assert view.hand is not None, "the hand ended before the computer player's turn"
        if view.to_act_user != A:
            break
        await step(m, CH, "bot")
    assert m.view(CH).to_act_user != A
    (close,) = await race(m, _forced, [], background=1)  # the driver's move queued
    assert close is True
    await driver.settle()
    await closed_and_reusable(store, m, target)
    await driver.close()
    await close_manager(store, m)


async def test_a_close_behind_a_close_spares_the_table_opened_meanwhile(
    databases: Databases,
) -> None:
    """Two closes queue on the old table; between them the channel gets a new table,
    which the second close must leave open."""
    target = databases.new()
    store, m = await manager_at(target, clock=Clock())
    await m.open_table(GUILD, CH, "a5-draw", opener=A)
    await m.join(CH, A, "ann")
    lock = m.table(CH).lock
    await lock.acquire()
    first = asyncio.ensure_future(_moderator(m))
    await until(lambda: waiting(lock) == 1)
    between = asyncio.ensure_future(lock.acquire())  # the test's turn between the two
    await until(lambda: waiting(lock) == 2)
    second = asyncio.ensure_future(_moderator(m))
    await until(lambda: waiting(lock) == 3)
    lock.release()
    assert await first is True
    await between
    try:  # the second close waits on the old table while the channel gets a new one
        await m.open_table(GUILD, CH, "a5-draw", opener=C)
        await m.join(CH, C, "cy")
        await m.join(CH, D, "di")
    finally:
        lock.release()
    (outcome,) = await asyncio.gather(second, return_exceptions=True)
    assert isinstance(outcome, Refused) and outcome.code is Code.NO_TABLE, outcome
    assert m.has_table(CH)
    row = await store.tables.load_table(CH)
    assert row is not None and row.open
    assert [s.user_id for s in await store.tables.load_seats(CH)] == [C, D]
    await m.deal(CH)
    assert await m.close_table(CH, 0, moderator=True, force=True)
    audit(target, [A, B, C, D])
    await close_manager(store, m)
