"""The step pipeline: after every kind of step the table is shown as stored and whoever is
to act next, person or computer, is woken; nothing waits for a restart.

Real databases (SQLite and PostgreSQL), a real Store and TableManager and the real
practice driver. Failures are injected only at the database's COMMIT (the crash
tests' failpoint), as a full disk or a dropped connection would cause them.
"""

from __future__ import annotations

import asyncio
import os
import random
import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

import bot.storage.database as store_module
from bot.practice.driver import PracticeDriver
from bot.storage.errors import StorageError
from bot.storage.store import Store
from bot.tables.manager import TableManager
from bot.tables.models import Code
from bot.tables.outbox import Outgoing
from tests.support.databases import PG_URL, SKIP_REASON, Databases, new_schema
from tests.support.manager_helpers import (
    GUILD,
    Clock,
    Recorder,
    close_manager,
    open_manager,
    refused,
    seat_players,
    step,
    wait_for,
)
from tests.support.paths import ROOT

CH = 800
A, B, C = 31, 32, 33


class InjectedFailure(OSError):
    """What the failpoint raises (as a dropped connection would)."""


@contextmanager
def failing(step_name: str, moment: str, times: int = 1) -> Iterator[list[str]]:
    """The next ``times`` COMMITs of ``step_name`` fail ``moment`` they run ("before":
    rolled back; "after": stored, but its caller hears of a failure)."""
    seen: list[str] = []

    def hook(name: str, when: str) -> None:
        if name == step_name and when == moment:
            seen.append(name)
            if len(seen) <= times:
                raise InjectedFailure(f"injected failure of {name} {moment} COMMIT")

    store_module.commit_hook = hook
    try:
        yield seen
    finally:
        store_module.commit_hook = None


def shown(m: TableManager) -> list[Outgoing]:
    """What waits in the table's outbox for the presenter (taken)."""
    return m.outbox.take(CH)


async def practice(m: TableManager, pause: float = 0) -> PracticeDriver:
    driver = PracticeDriver(m, pause=pause, rng=random.Random(7))
    await m.open_table(GUILD, CH, "a5-draw")
    await m.join(CH, A, "anna")
    await m.add_bot(CH, A, "easy", "bot")
    return driver


async def person_to_act(m: TableManager, driver: PracticeDriver) -> None:
    """Deal if no hand is in play; let the computer player move until the person is to act."""
    if m.view(CH).hand is None:
        await m.deal(CH, A)
    await driver.settle()
    assert m.view(CH).to_act_user == A


async def test_a_computer_players_turn_after_a_reloaded_failed_step_is_played_and_shown(
    databases: Databases,
) -> None:
    """The person's action is stored but its caller hears of a failure: the table is
    reloaded, shown as stored, and the computer player who is now to act moves. (The
    old code's reload emitted nothing and woke nobody: the hand hung for ever.)"""
    store, m = await open_manager(databases.target("s.db"), seed=1)
    driver = await practice(m)
    await person_to_act(m, driver)
    view = m.view(CH)
    shown(m)
    # the group commit's fallback then hears "out of sequence" (it was stored): an error
    with failing("append_action", "after"), pytest.raises(StorageError):
        await step(m, CH, "x")
    stored = m.view(CH)
    assert stored.turn == view.turn + 1  # the database had it
    refresh = [o.event for o in shown(m)]
    assert [e.kind for e in refresh] == ["refreshed"]
    assert refresh[0].view.turn == stored.turn
    # the seeds give a computer player the turn here: what this test is about
    assert stored.hand is not None and stored.to_act_user is not None, stored
    assert stored.to_act_user < 0, "a person is to act: the seeds no longer test this"
    await driver.settle()
    assert m.view(CH).turn > stored.turn or m.view(CH).hand is None  # the bot moved
    assert [o.event.kind for o in shown(m)][:1] == ["action"]
    await driver.close()
    await close_manager(store, m)


async def test_the_next_persons_turn_after_a_reload_is_shown_and_armed(
    databases: Databases,
) -> None:
    """After a reload the next player sees their own turn's buttons (the outbox has the
    stored state) and their deadline runs: the old code showed the previous turn."""
    store, m = await open_manager(databases.target("s.db"), seed=2)
    await seat_players(m, CH, "a5-draw", [A, B, C])
    await m.deal(CH)
    view = m.view(CH)
    shown(m)
    # the group commit's fallback then hears "out of sequence" (it was stored): an error
    with failing("append_action", "after"), pytest.raises(StorageError):
        await step(m, CH, "y")
    after = m.view(CH)
    assert after.turn == view.turn + 1 and after.to_act_user != view.to_act_user
    (entry,) = shown(m)
    assert entry.event.kind == "refreshed" and entry.event.view.to_act_user == after.to_act_user
    armed = m.steps.deadlines.armed(CH)
    assert armed is not None and armed.turn == after.turn
    await step(m, CH, "y")  # and the next player can act at once
    assert m.view(CH).turn == after.turn + 1
    await close_manager(store, m)


async def test_a_practice_table_deals_no_hand_without_a_person(databases: Databases) -> None:
    """The only person times out twice (sitting out): when the hand ends the computer
    players stand up and the automatic deal deals nothing. The old code dealt
    computer-only hands for ever."""
    clock = Clock()
    store = await Store.open(databases.target("s.db"))
    m = TableManager(
        store, turn_timeout=30, next_hand_delay=0.01, clock=clock, rng=random.Random(3)
    )
    await m.start()
    driver = PracticeDriver(m, pause=0, rng=random.Random(4))
    await m.open_table(GUILD, CH, "a5-draw", auto_deal=True)
    await m.join(CH, A, "anna")
    await m.add_bot(CH, A, "easy", "bot1")
    await m.add_bot(CH, A, "easy", "bot2")
    first = await m.deal(CH, A)
    while m.view(CH).hand is not None and m.view(CH).hand_id == first.hand_id:
        await driver.settle()
        view = m.view(CH)
        if view.hand is not None and view.to_act_user == A:
            await m.expire(CH)  # the person is away: timed out
    await asyncio.sleep(0.2)  # several automatic-deal delays
    await driver.settle()
    view = m.view(CH)
    seat = next(s for s in view.seats if s.user_id == A)
    # the seeds give the person two turns in the first hand: what this test is about
    assert seat.sitting_out, "the hand ended before a second timeout: nothing tested"
    assert view.hand is None, "a hand was dealt with no person in it"
    assert [s.user_id for s in view.seats] == [A]  # the computer players stood up
    await driver.close()
    await close_manager(store, m)


async def test_sitting_out_between_hands_stands_the_computer_players_up(
    databases: Databases,
) -> None:
    store, m = await open_manager(databases.target("s.db"), seed=5)
    driver = await practice(m)
    await m.sit_out(CH, A)
    assert [s.user_id for s in m.view(CH).seats] == [A]
    assert (await refused(m.deal(CH, A))).code is Code.TOO_FEW_PLAYERS
    await driver.close()
    await close_manager(store, m)
    store, m = await open_manager(databases.target("s.db"), seed=5)  # and so it was stored
    assert [s.user_id for s in m.view(CH).seats] == [A]
    await close_manager(store, m)


async def unsettled(m: TableManager, seed: str) -> None:
    """Play the hand to its end while every settlement fails: complete, not settled, and
    the dispatcher's first retry failed too (the next one waits a second)."""
    while not m.table(CH).hand.complete:  # type: ignore[union-attr]
        await step(m, CH, seed)
    await asyncio.sleep(0.05)
    assert m.table(CH).hand is not None


async def test_closing_while_a_settlement_is_retried_settles_or_cancels_the_hand(
    databases: Databases,
) -> None:
    """The last action is stored but its settlement keeps failing (retried by the
    dispatcher); a moderator closes the table meanwhile: the hand, which cannot be
    settled, is cancelled with the close. The old code closed the table and left the
    hand live: both players' chips held for ever."""
    store, m = await open_manager(databases.target("s.db"), seed=6)
    await seat_players(m, CH, "a5-draw", [A, B])
    await m.deal(CH)
    with failing("finish_hand", "before", times=100):
        await unsettled(m, "z")
        assert await m.close_table(CH, A, moderator=True)
    assert not m.has_table(CH)
    assert await store.history.load_live_hands() == []
    for user in (A, B):
        account = await store.ledger.balance(GUILD, user)
        assert account is not None and account.held == 0
    (summary, *_) = await store.history.recent_hands(GUILD, A)
    assert summary.cancelled
    await close_manager(store, m)


async def test_a_thread_gone_while_a_settlement_is_retried_settles_the_hand(
    databases: Databases,
) -> None:
    """The same through the thread-archive path: the hand is settled (the ledger takes
    it now), not voided, and the table closes."""
    store, m = await open_manager(databases.target("s.db"), seed=7)
    await seat_players(m, CH, "a5-draw", [A, B])
    await m.deal(CH)
    with failing("finish_hand", "before", times=100):
        await unsettled(m, "w")
    assert await m.close_gone([CH]) == 1
    assert await store.history.load_live_hands() == []
    (summary, *_) = await store.history.recent_hands(GUILD, A)
    assert not summary.cancelled  # settled: it was played to its end
    for user in (A, B):
        account = await store.ledger.balance(GUILD, user)
        assert account is not None and account.held == 0
    await close_manager(store, m)


async def test_a_table_closed_and_reopened_within_the_delay_is_not_dealt(
    databases: Databases,
) -> None:
    store = await Store.open(databases.target("s.db"))
    m = TableManager(store, turn_timeout=3600, next_hand_delay=0.2, rng=random.Random(8))
    await m.start()
    await m.open_table(GUILD, CH, "a6-draw", auto_deal=True)
    for user in (A, B):
        await m.join(CH, user, f"u{user}")
    await m.deal(CH, A)
    while m.view(CH).hand is not None:
        await step(m, CH, "d")
    await m.close_table(CH, A, moderator=True)  # within the delay
    await m.open_table(GUILD, CH, "a6-draw", auto_deal=False)
    for user in (A, B):
        await m.join(CH, user, f"u{user}")
    await asyncio.sleep(0.4)
    assert m.view(CH).hand is None, "the new table was dealt by the old one's timer"
    await close_manager(store, m)


async def test_a_kicked_player_to_act_at_a_restart_is_acted_for_at_once(
    databases: Databases,
) -> None:
    """The kicked player's forced move was not stored when the process stopped: at the
    restart it is made at once (the old code waited out their stored deadline and then
    counted it as their timeout)."""
    path = databases.target("s.db")
    store, m = await open_manager(path, seed=9)
    await seat_players(m, CH, "a5-draw", [A, B, C])
    view = await m.deal(CH)
    nxt = view.to_act_user
    assert nxt is not None
    # the kick is stored; the forced move made for them at once fails (its batch, and
    # the group commit's retry of it alone)
    with failing("append_action", "before", times=2), pytest.raises(InjectedFailure):
        await m.kick(CH, nxt)
    stopped = m.view(CH)
    assert stopped.to_act_user == nxt
    await close_manager(store, m)
    store, m = await open_manager(path, seed=9)
    after = m.view(CH)
    assert after.turn > stopped.turn and after.to_act_user != nxt
    seat = next(s for s in after.seats if s.user_id == nxt)
    assert seat.timeouts == 0  # a forced move, not a timeout
    await close_manager(store, m)


async def test_opens_are_capped_per_server(databases: Databases) -> None:
    store = await Store.open(databases.target("s.db"))
    m = TableManager(store, max_tables=2, rng=random.Random(1))
    await m.start()
    await m.open_table(GUILD, 1, "a5-draw")
    await m.open_table(GUILD, 2, "a5-draw")
    no = await refused(m.open_table(GUILD, 3, "a5-draw"))
    assert no.code is Code.TOO_MANY_TABLES and no.params["most"] == 2
    assert not m.has_table(3)
    await m.open_table(GUILD + 1, 3, "a5-draw")  # another server has its own cap
    await m.close_table(1, 0, moderator=True)
    await m.open_table(GUILD, 4, "a5-draw")  # room again
    assert (
        await m.store.tables.count_tables(GUILD, "a5-draw") == 3
    )  # closed ones count for numbering
    await close_manager(store, m)


async def test_idle_tables_close_after_their_servers_idle_time(databases: Databases) -> None:
    clock = Clock()
    store = await Store.open(databases.target("s.db"))

    async def idle_after(guild_id: int) -> float | None:
        return 600.0 if guild_id == GUILD else None

    m = TableManager(store, clock=clock, idle_after=idle_after, rng=random.Random(1))
    await m.start()
    events = Recorder()
    m.subscribe(events)
    await seat_players(m, CH, "a5-draw", [A, B])
    await m.open_table(GUILD + 1, CH + 1, "a5-draw")  # a server that never expires tables
    clock.now += 599
    assert await m.close_idle() == 0
    await m.join(CH, C, "c")  # a step: idle from now
    clock.now += 599
    assert await m.close_idle() == 0
    await m.deal(CH, A)
    clock.now += 3600  # a hand in play is never closed for idleness (timeouts end it)
    assert await m.close_idle() == 0
    while m.view(CH).hand is not None:
        await step(m, CH, "i")
    clock.now += 601
    assert await m.close_idle() == 1
    assert not m.has_table(CH) and m.has_table(CH + 1)
    closed = events.events[-1]
    assert closed.kind == "closed" and closed.params.get("idle")
    assert [r.channel_id for r in await store.tables.load_tables()] == [CH + 1]
    await close_manager(store, m)


TAKE_OVER_CHILD = """
import asyncio, sys
from tests.support.manager_helpers import open_manager, step

async def main(url):
    store, m = await open_manager(url, seed=4)
    await m.open_table({g}, {ch}, "a5-draw")
    await m.join({ch}, {a}, "anna")
    await m.add_bot({ch}, {a}, "easy", "bot")
    view = await m.deal({ch}, {a})
    while m.view({ch}).to_act_user == {a}:
        await step(m, {ch}, "child")
    print("ready", m.view({ch}).turn, m.view({ch}).to_act_user, flush=True)
    await asyncio.sleep(3600)  # no driver here: the computer player waits for ever

asyncio.run(main(sys.argv[1]))
"""


@pytest.mark.skipif(not PG_URL, reason=SKIP_REASON)
async def test_a_computer_player_to_act_in_a_taken_over_guild_moves() -> None:
    """Another process held the guild with a computer player to act and died: this
    process takes the guild over, and its driver makes the move (the old code woke the
    driver only at start-up, so the hand hung)."""
    url = new_schema()
    guild = 77
    child = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        TAKE_OVER_CHILD.format(g=guild, ch=CH, a=A),
        url,
        cwd=ROOT,
        stdout=asyncio.subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    try:
        assert child.stdout is not None
        line = (await asyncio.wait_for(child.stdout.readline(), 60)).decode().split()
        assert line[0] == "ready" and int(line[2]) < 0, line  # a computer player to act
        store, m = await open_manager(url, seed=4, claim_retry=0.05)
        driver = PracticeDriver(m, pause=0, rng=random.Random(1))
        try:
            assert not m.has_table(CH)  # the child holds the guild
            child.send_signal(signal.SIGKILL)
            await child.wait()
            await wait_for(lambda: m.has_table(CH), timeout=15)
            await wait_for(
                lambda: m.view(CH).hand is None or m.view(CH).turn > int(line[1]), timeout=15
            )
        finally:
            await driver.close()
            await close_manager(store, m)
    finally:
        if child.returncode is None:
            child.kill()
            await child.wait()
