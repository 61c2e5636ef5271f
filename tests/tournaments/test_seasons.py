"""Seasons on both backends: monthly by default, moderators' seasons, standings per
season (points, wins, cashes, entries, best finish) from finished tournaments, past
seasons kept as they were, paged."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime

import pytest

from bot.storage.seasons import SeasonKind, SeasonRefused, month_start, next_month
from bot.storage.store import Store
from bot.storage.tournaments import Final
from tests.support.databases import Target
from tests.support.storage_helpers import FakeClock, G, audit, seat_players

FEE = 50


def at(year: int, month: int, day: int, hour: int = 12) -> float:
    return datetime(year, month, day, hour, tzinfo=UTC).timestamp()


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(at(2026, 11, 14))


@pytest.fixture
async def store(db_path: Target, clock: FakeClock) -> AsyncIterator[Store]:
    s = await Store.open(db_path, clock=clock)
    yield s
    await s.close()


async def play(store: Store, order: list[int]) -> int:
    """A five-player tournament that ends with ``order`` as places 1 to 5."""
    await seat_players(store, order)
    t = await store.tournaments.create(
        G, 77, 1, "a5-draw", seats=5, speed="turbo", start_stack=3000, fee=FEE
    )
    tid = t.tournament_id
    for user in order:
        await store.tournaments.register(tid, user, f"u{user}")
    await store.tournaments.start(tid, {u: i for i, u in enumerate(order)}, 0)
    first, second = order[0], order[1]
    final = Final(
        places={u: i + 1 for i, u in enumerate(order)},
        prizes={u: {first: 163, second: 87}.get(u, 0) for u in order},
        points={first: 65, second: 35},
    )
    stacks = {u: 15000 if u == first else 0 for u in order}
    finished = await store.tournaments.record_hand(
        tid, 1, stacks, places={u: i + 1 for i, u in enumerate(order[1:], 1)},
        actions=5, clock_elapsed=60.0, button=0, final=final,
    )  # fmt: skip
    assert finished
    return tid


def table(rows: list) -> list[tuple[int, int, int, int, int, int]]:
    return [(r.user_id, r.points, r.wins, r.cashes, r.entries, r.best) for r in rows]


def test_months_are_calendar_months_in_utc() -> None:
    assert month_start(at(2026, 11, 14)) == at(2026, 11, 1, 0)
    assert next_month(at(2026, 11, 14)) == at(2026, 12, 1, 0)
    assert next_month(at(2026, 12, 31, 23)) == at(2027, 1, 1, 0)


async def test_monthly_seasons_roll_over_and_keep_their_standings(
    store: Store, clock: FakeClock, db_path: Target
) -> None:
    november = await store.seasons.current(G)
    assert november is not None
    assert (november.number, november.kind, november.started_at, november.ended_at) == (
        1, "monthly", at(2026, 11, 1, 0), None,
    )  # fmt: skip
    await play(store, [1, 2, 3, 4, 5])
    await play(store, [2, 1, 3, 4, 5])
    season, rows, total = await store.seasons.standings(G)
    assert season == november and total == 5
    assert table(rows) == [
        (1, 100, 1, 2, 2, 1),  # 65 + 35 points, one win, two cashes, two entries, best 1st
        (2, 100, 1, 2, 2, 1),
        (3, 0, 0, 0, 2, 3),
        (4, 0, 0, 0, 2, 4),
        (5, 0, 0, 0, 2, 5),
    ]
    clock.now = at(2026, 12, 3)  # a new month: November ends at its boundary
    december = await store.seasons.current(G)
    assert december is not None
    assert (december.number, december.started_at) == (2, at(2026, 12, 1, 0))
    await play(store, [5, 4, 3, 2, 1])
    _, rows, total = await store.seasons.standings(G)
    assert total == 5 and table(rows)[:2] == [(5, 65, 1, 1, 1, 1), (4, 35, 0, 1, 1, 2)]
    past, rows, total = await store.seasons.standings(G, 1)  # November as it was
    assert past is not None and past.ended_at == at(2026, 12, 1, 0)
    assert total == 5 and table(rows)[0] == (1, 100, 1, 2, 2, 1)
    _, page, total = await store.seasons.standings(G, 1, page=2, per_page=2)
    assert total == 5 and [(r.rank, r.user_id) for r in page] == [(3, 3), (4, 4)]
    _, beyond, total = await store.seasons.standings(G, 1, page=9)
    assert beyond == [] and total == 5
    clock.now = at(2027, 3, 2)  # months with no look have no season
    march = await store.seasons.current(G)
    assert march is not None and (march.number, march.started_at) == (3, at(2027, 3, 1, 0))
    audit(db_path)


async def test_moderators_start_and_end_seasons(store: Store, clock: FakeClock) -> None:
    await play(store, [1, 2, 3, 4, 5])  # in November's monthly season
    cup = await store.seasons.start(G, "Winter cup")
    assert (cup.number, cup.kind, cup.name, cup.ended_at) == (2, "manual", "Winter cup", None)
    _, rows, total = await store.seasons.standings(G)
    assert (rows, total) == ([], 0)  # November's tournament stays in November
    await play(store, [3, 1, 2, 4, 5])
    _, rows, _ = await store.seasons.standings(G)
    assert table(rows)[0] == (3, 65, 1, 1, 1, 1)
    ended = await store.seasons.end(G)
    assert ended.number == 2 and ended.ended_at is not None
    clock.now = at(2027, 1, 5)  # a moderator's season ended: none opens by itself
    assert await store.seasons.current(G) is None
    assert await store.seasons.standings(G) == (None, [], 0)
    with pytest.raises(SeasonRefused) as refused:
        await store.seasons.end(G)
    assert refused.value.code == "none_running"
    with pytest.raises(SeasonRefused) as refused:
        await store.seasons.standings(G, 7)
    assert (refused.value.code, refused.value.params) == ("unknown", {"number": 7})
    _, rows, _ = await store.seasons.standings(G, 2)  # the cup, kept
    assert table(rows)[0] == (3, 65, 1, 1, 1, 1)
    monthly = await store.seasons.start(G, kind=SeasonKind.MONTHLY)  # back to months
    assert (monthly.number, monthly.kind) == (3, "monthly")
    clock.now = at(2027, 2, 2)
    february = await store.seasons.current(G)
    assert february is not None and february.number == 4
    seasons, total = await store.seasons.seasons(G, page=1, per_page=3)
    assert total == 4 and [s.number for s in seasons] == [4, 3, 2]
    seasons, _ = await store.seasons.seasons(G, page=2, per_page=3)
    assert [s.number for s in seasons] == [1]


async def test_an_early_end_of_a_monthly_season_waits_for_next_month(
    store: Store, clock: FakeClock
) -> None:
    await store.seasons.current(G)
    ended = await store.seasons.end(G)
    assert ended.kind == "monthly" and ended.ended_at is not None
    assert await store.seasons.current(G) is None
    await play(store, [1, 2, 3, 4, 5])  # between seasons: in no season's standings
    clock.now = at(2026, 12, 1, 1)
    december = await store.seasons.current(G)
    assert december is not None and december.number == 2
    assert await store.seasons.standings(G) == (december, [], 0)
    _, rows, _ = await store.seasons.standings(G, 1)
    assert rows == []
