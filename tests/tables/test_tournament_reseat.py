"""``TableManager.reseat_tournament``, the multi-table driver's one way to move players in
and out of a tournament table, on both backends: refused while a hand is in play (and
nothing changes), between hands the seats and stacks the tournament says, written for
this table (a restart finds them), a player who stays keeps being away."""

from __future__ import annotations

import random

from bot.storage.store import Store
from bot.tables.manager import TableManager
from bot.tables.models import Code, SeatState
from bot.tournaments.driver import TournamentDriver
from bot.tournaments.service import TournamentService
from bot.tournaments.structures import Speed
from tests.support.databases import Target
from tests.support.manager_helpers import (
    GRANT,
    GUILD,
    Clock,
    close_manager,
    open_manager,
    play,
    refused,
)

THREAD = 901
USERS = [21, 22, 23]


async def _open(path: Target, clock: Clock) -> tuple[Store, TableManager, TournamentDriver]:
    store, manager = await open_manager(path, clock=clock, start=False)
    service = TournamentService(store, grant=GRANT, rng=random.Random(3), clock=clock,
                                level_seconds={s: 60.0 for s in Speed})  # fmt: skip
    driver = TournamentDriver(manager, service)
    await driver.restore()
    await manager.start()
    return store, manager, driver


def places(manager: TableManager) -> list[tuple[int, int, int | None]]:
    return sorted((s.seat, s.user_id, s.stack) for s in manager.view(THREAD).seats)


async def test_reseat_only_between_hands_and_kept(db_path: Target) -> None:
    clock = Clock()
    store, manager, driver = await _open(db_path, clock)
    t = await driver.service.create(GUILD, 500, USERS[0], "a5-draw", seats=3, start_stack=2000)
    for user in USERS:
        t, _ = await driver.service.register(GUILD, t.tournament_id, user, f"p{user}")
    await driver.begin(t, THREAD)
    before = places(manager)
    moved_in = SeatState(4, 99, "newcomer", stack=1500)
    during = await refused(manager.reseat_tournament(THREAD, [moved_in]))
    assert during.code == Code.HAND_RUNNING and places(manager) == before
    await play(manager, THREAD, "reseat")
    assert manager.view(THREAD).hand is None
    await manager.leave(THREAD, USERS[1])  # a tournament player who leaves is away
    stays = next(s for s in manager.view(THREAD).seats if s.user_id == USERS[1])
    seats = [SeatState(stays.seat, stays.user_id, stays.name, stack=stays.stack), moved_in]
    await manager.reseat_tournament(THREAD, seats)
    after = sorted([(stays.seat, USERS[1], stays.stack), (4, 99, 1500)])
    assert places(manager) == after
    kept = next(s for s in manager.view(THREAD).seats if s.user_id == USERS[1])
    assert kept.sitting_out  # still away
    await close_manager(store, manager)
    store, manager, driver = await _open(db_path, clock)
    assert places(manager) == after  # written for this table: a restart finds it
    await close_manager(store, manager)
