"""The multi-table scheduler at the service level, on both backends, with an injected
clock: reminders handed to the notifier once each with the counts when sent (across a
restart too), starts at the scheduled time (one due while the bot was down happens at
the first pass after start-up), "start when N have registered", and a tournament with
fewer than two registered cancelled with every fee back."""

from __future__ import annotations

import random

import pytest

from bot.storage.store import Store
from bot.tables.guild_settings import BadSetting, Defaults, GuildSettingsBook
from bot.tournaments.multi_table import MttCode, MttRefused, MultiTableService
from bot.tournaments.schedule import Notice, NoticeKind, Scheduler
from bot.tournaments.service import TournamentService
from bot.tournaments.structures import Speed
from tests.support.databases import Target
from tests.support.manager_helpers import Clock
from tests.support.storage_helpers import GRANT, G, audit, seat_players

NOW = 1_800_000_000.0
FEE = 10
SETTINGS = {"table_size": 6, "cap": 50, "speed": "turbo", "start_stack": 1000, "fee": FEE}


class Recorder:
    """The injected notifier and start coroutine: what the scheduler handed over."""

    def __init__(self) -> None:
        self.notices: list[Notice] = []
        self.started: list[int] = []

    async def notify(self, notice: Notice) -> None:
        self.notices.append(notice)

    async def start(self, tournament_id: int) -> None:
        self.started.append(tournament_id)

    def seen(self) -> list[tuple[NoticeKind, int, int | None, tuple[int, ...]]]:
        return [(n.kind, n.tournament.tournament_id, n.minutes, n.players) for n in self.notices]


async def opened(
    path: Target, clock: Clock, recorder: Recorder | None, seed: int = 1
) -> tuple[Store, MultiTableService, Scheduler]:
    store = await Store.open(path, clock=clock)
    rng = random.Random(seed)
    sng = TournamentService(store, grant=GRANT, rng=rng, clock=clock,
                            level_seconds={s: 60.0 for s in Speed})  # fmt: skip
    mtt = MultiTableService(store, sng, rng)
    rec = recorder or Recorder()
    start = rec.start if recorder is not None else None  # None: the service's own start
    return store, mtt, Scheduler(store, mtt, rec.notify, start=start, clock=clock)


async def test_reminders_go_out_once_with_the_count_when_sent_across_a_restart(
    db_path: Target,
) -> None:
    clock, rec = Clock(NOW), Recorder()
    store, mtt, scheduler = await opened(db_path, clock, rec)
    await seat_players(store, [1, 2, 3])
    start = NOW + 3600
    t = await mtt.create(G, 77, 1, "a5-triple", starts_at=start, **SETTINGS)
    tid = t.tournament_id
    for user in (1, 2):
        await store.tournaments.register(tid, user, f"u{user}")
    await scheduler.tick()
    assert rec.notices == []  # nothing due yet
    clock.now = start - 30 * 60
    await scheduler.tick()
    await scheduler.tick()  # the same moment again: sent already
    assert rec.seen() == [(NoticeKind.REMINDER, tid, 30, (1, 2))]
    assert rec.notices[0].count == 2
    await store.tournaments.register(tid, 3, "u3")
    await store.close()  # a restart
    store, mtt, scheduler = await opened(db_path, clock, rec)
    await scheduler.tick()
    assert len(rec.notices) == 1  # the 30-minute reminder is not sent again
    clock.now = start - 5 * 60 + 1
    await scheduler.tick()
    assert rec.seen()[1:] == [(NoticeKind.REMINDER, tid, 5, (1, 2, 3))]  # counted now
    assert rec.started == []
    clock.now = start
    await scheduler.tick()
    assert rec.started == [tid]  # through the injected start coroutine
    await store.close()


async def test_a_start_due_while_the_bot_was_down_happens_at_start_up(db_path: Target) -> None:
    clock = Clock(NOW)
    store, mtt, scheduler = await opened(db_path, clock, None)
    await seat_players(store, [1, 2, 3])
    start = NOW + 600
    t = await mtt.create(G, 77, 1, "a5-triple", starts_at=start, **SETTINGS)
    tid = t.tournament_id
    for user in (1, 2, 3):
        await store.tournaments.register(tid, user, f"u{user}")
    await store.close()  # down from before the start until well after it
    clock.now = start + 3 * 3600
    store, mtt, scheduler = await opened(db_path, clock, None)
    await scheduler.tick()  # the first pass after start-up: the service's own start
    started = await store.tournaments.get(tid)
    assert started is not None and started.status == "running"
    assert mtt.field(tid).players_left == 3
    assert await store.multi_tables.due_starts(clock.now) == []
    await scheduler.tick()  # started once
    assert await store.tournaments.held(tid) == 3 * FEE
    await store.close()


async def test_fewer_than_two_at_the_start_cancels_with_the_fee_back(db_path: Target) -> None:
    clock, rec = Clock(NOW), Recorder()
    store, mtt, scheduler = await opened(db_path, clock, rec)
    await seat_players(store, [1, 2])
    t = await mtt.create(G, 77, 1, "abyssinia", starts_at=NOW + 60, reminders=(), **SETTINGS)
    tid = t.tournament_id
    await store.tournaments.register(tid, 2, "u2")
    assert (await store.ledger.balance(G, 2)).balance == GRANT - FEE  # type: ignore[union-attr]
    clock.now = NOW + 60
    await scheduler.tick()
    assert rec.seen() == [(NoticeKind.CANCELLED, tid, None, (2,))]
    assert rec.notices[0].tournament.status == "cancelled"
    assert rec.started == []
    assert (await store.ledger.balance(G, 2)).balance == GRANT  # type: ignore[union-attr]
    assert await store.tournaments.held(tid) == 0
    await scheduler.tick()
    assert len(rec.notices) == 1  # told once
    # the channel is free again for the next one
    again = await mtt.create(G, 77, 1, "abyssinia", starts_at=NOW + 600, **SETTINGS)
    assert again.tournament_id != tid
    audit(db_path)
    await store.close()


async def test_start_when_n_have_registered(db_path: Target) -> None:
    clock, rec = Clock(NOW), Recorder()
    store, mtt, scheduler = await opened(db_path, clock, rec)
    await seat_players(store, [1, 2, 3, 4])
    with pytest.raises(MttRefused) as refused:
        await mtt.create(G, 77, 1, "a5-triple", start_count=51, **SETTINGS)  # above the cap
    assert (refused.value.code, refused.value.params) == (
        MttCode.BAD_START_COUNT, {"min": 2, "max": 50, "given": 51},
    )  # fmt: skip
    with pytest.raises(MttRefused):
        await mtt.create(G, 77, 1, "a5-triple", start_count=1, **SETTINGS)
    assert await store.tournaments.open_tournaments(G) == []  # refused: nothing made
    # scheduled in a day, but it starts as soon as three have registered
    t = await mtt.create(G, 77, 1, "a5-triple", start_count=3, starts_at=NOW + 86400,
                         **SETTINGS)  # fmt: skip
    tid = t.tournament_id
    for user in (1, 2):
        await store.tournaments.register(tid, user, f"u{user}")
    await scheduler.tick()
    assert rec.started == []
    await store.tournaments.register(tid, 3, "u3")
    await scheduler.tick()
    assert rec.started == [tid]
    assert rec.notices == []  # no reminder was due yet
    await store.close()


async def test_bad_scheduling_is_refused_and_changes_nothing(db_path: Target) -> None:
    clock = Clock(NOW)
    store, mtt, _ = await opened(db_path, clock, Recorder())
    try:
        for kwargs, code in (
            ({"starts_at": NOW}, MttCode.PAST_START),  # now is not ahead
            ({"starts_at": NOW - 3600}, MttCode.PAST_START),
        ):
            with pytest.raises(MttRefused) as refused:
                await mtt.create(G, 77, 1, "a5-triple", **{**SETTINGS, **kwargs})
            assert refused.value.code == code
        assert await store.tournaments.open_tournaments(G) == []
        first = await mtt.create(G, 77, 1, "a5-triple", starts_at=NOW + 60, **SETTINGS)
        with pytest.raises(MttRefused) as refused:  # the same time, the same channel
            await mtt.create(G, 77, 2, "abyssinia", starts_at=NOW + 60, **SETTINGS)
        assert (refused.value.code, refused.value.params) == (
            MttCode.CHANNEL_BUSY, {"tournament_id": first.tournament_id},
        )  # fmt: skip
        open_now = await store.tournaments.open_tournaments(G)
        assert [o.tournament_id for o in open_now] == [first.tournament_id]
        assert await store.multi_tables.scheduled(first.tournament_id) == (NOW + 60, None)
    finally:
        await store.close()


async def test_the_reminder_setting_is_post_or_dm_and_a_bad_one_changes_nothing(
    db_path: Target,
) -> None:
    clock = Clock(NOW)
    store = await Store.open(db_path, clock=clock)
    book = GuildSettingsBook(store, Defaults(turn_timeout=60, auto_deal=False))
    assert (await book.get(G)).mtt_remind == "post"  # the default
    assert (await book.set_mtt_remind(G, "dm")).mtt_remind == "dm"
    with pytest.raises(BadSetting) as bad:
        await book.set_mtt_remind(G, "pigeon")
    assert (bad.value.code, bad.value.params) == (
        "mtt_remind", {"given": "pigeon", "allowed": ("post", "dm")},
    )  # fmt: skip
    await store.close()
    store = await Store.open(db_path, clock=clock)  # stored: read back after a restart
    assert (await store.server.guild_settings(G)).mtt_remind == "dm"
    await store.close()
