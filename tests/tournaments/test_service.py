"""The Sit & Go lifecycle on both backends: seats drawn, fees and prizes conserved, the
level clock across a restart, and every refusal changing nothing."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.storage.store import Store
from bot.tournaments import structures
from bot.tournaments.service import SngCode, SngRefused, TournamentService
from bot.tournaments.structures import Speed
from tests.support.databases import Databases, Target
from tests.support.storage_helpers import GRANT, G, audit

FAST = {s: 60.0 for s in Speed}  # a level a minute on the test's clock


class Clock:
    def __init__(self) -> None:
        self.now = 1_700_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
async def store(db_path: Target) -> AsyncIterator[Store]:
    s = await Store.open(db_path)
    yield s
    await s.close()


def _service(store: Store, clock: Clock, seed: int = 1) -> TournamentService:
    return TournamentService(
        store, grant=GRANT, rng=random.Random(seed), clock=clock, level_seconds=FAST
    )


async def _refused(code: SngCode, awaitable: Any) -> SngRefused:
    with pytest.raises(SngRefused) as caught:
        await awaitable
    assert caught.value.code == code, caught.value
    return caught.value


async def _balances(store: Store, users: list[int]) -> list[int]:
    out = []
    for user in users:
        account = await store.ledger.balance(G, user)
        out.append(account.balance if account else 0)
    return out


async def test_create_checks_its_settings(store: Store) -> None:
    sng = _service(store, Clock())
    await _refused(SngCode.UNKNOWN_GAME, sng.create(G, 5, 1, "holdem", seats=2))
    bad = await _refused(SngCode.BAD_SEATS, sng.create(G, 5, 1, "a5-draw", seats=6))
    assert bad.params == {"min": 2, "max": 5, "given": 6}
    await _refused(SngCode.BAD_SEATS, sng.create(G, 5, 1, "abyssinia", seats=1))
    await _refused(SngCode.BAD_STACK, sng.create(G, 5, 1, "a5-triple", seats=2, start_stack=1999))
    await _refused(SngCode.BAD_FEE, sng.create(G, 5, 1, "a5-triple", seats=2, fee=-1))
    assert (await store.tournaments.open_tournaments(G)) == []
    for _ in range(5):
        await sng.create(G, 5, 1, "abyssinia", seats=8)
    too_many = await _refused(SngCode.TOO_MANY, sng.create(G, 5, 1, "abyssinia", seats=8))
    assert too_many.params == {"most": 5}


async def test_full_starts_it_with_seats_and_button_drawn(store: Store, db_path: Target) -> None:
    clock = Clock()
    sng = _service(store, clock)
    t = await sng.create(G, 5, 1, "a5-triple", seats=3, speed=Speed.TURBO, fee=20)
    for user in (11, 12):
        t, entries = await sng.register(G, t.tournament_id, user, f"p{user}")
    assert t.status == "registering" and len(entries) == 2
    t, entries = await sng.register(G, t.tournament_id, 13, "p13")
    assert t.status == "running"
    running = await store.tournaments.entries(t.tournament_id)
    assert sorted(e.seat for e in running) == [0, 1, 2]  # type: ignore[type-var]
    assert {e.stack for e in running} == {structures.DEFAULT_STACK}
    assert t.button in (0, 1, 2)
    assert await _balances(store, [11, 12, 13]) == [GRANT - 20] * 3
    # a later click of Register or Unregister, or a second start: refused, nothing moves
    await _refused(SngCode.NOT_REGISTERING, sng.register(G, t.tournament_id, 14, "p14"))
    await _refused(SngCode.NOT_REGISTERING, sng.unregister(G, t.tournament_id, 11))
    await _refused(SngCode.NOT_REGISTERING, sng.start(G, t.tournament_id, 1, moderator=True))
    await _refused(SngCode.UNKNOWN, sng.register(G + 1, t.tournament_id, 14, "p14"))
    assert await _balances(store, [11, 12, 13, 14]) == [GRANT - 20] * 3 + [0]  # no account made
    audit(db_path)


async def test_start_and_cancel_are_the_creators_or_a_moderators(store: Store) -> None:
    sng = _service(store, Clock())
    t = await sng.create(G, 5, 1, "a6-draw", seats=5, fee=30)
    tid = t.tournament_id
    await sng.register(G, tid, 11, "p11")
    await _refused(SngCode.NOT_YOURS, sng.start(G, tid, 11, moderator=False))
    await _refused(SngCode.TOO_FEW, sng.start(G, tid, 1, moderator=False))
    await _refused(SngCode.NOT_YOURS, sng.cancel(G, tid, 11, moderator=False))
    await sng.register(G, tid, 12, "p12")
    await store.ledger.ensure_account(G, 13, "p13", 10)
    short = await _refused(SngCode.SHORT, sng.register(G, tid, 13, "p13"))
    assert short.params == {"available": 10, "fee": 30}
    other = await sng.create(G, 5, 2, "a5-draw", seats=2)
    elsewhere = await _refused(SngCode.ELSEWHERE, sng.register(G, other.tournament_id, 12, "x"))
    assert elsewhere.params == {"tournament_id": tid}
    started = await sng.start(G, tid, 99, moderator=True)
    assert started.status == "running"
    cancelled = await sng.cancel(G, tid, 1, moderator=False)
    assert cancelled.status == "cancelled"
    assert await _balances(store, [11, 12, 13]) == [GRANT, GRANT, 10]
    await _refused(SngCode.NOT_OPEN, sng.cancel(G, tid, 1, moderator=True))


async def test_level_clock_resumes_after_restart(db_path: Target) -> None:
    clock = Clock()
    async with await Store.open(db_path) as store:
        sng = _service(store, clock)
        t = await sng.create(G, 5, 1, "a5-draw", seats=2, speed=Speed.SLOW)
        await sng.register(G, t.tournament_id, 11, "a")
        t, _ = await sng.register(G, t.tournament_id, 12, "b")
        clock.now += 150  # two and a half levels
        level, state = sng.level(t)
        assert (level.number, state.seconds_left) == (3, 30.0)
        assert sng.next_level(t).number == 4
        await sng.save_clock(t.tournament_id)
    clock.now += 3600  # the bot is down an hour: that time does not count
    async with await Store.open(db_path) as store:
        sng = _service(store, clock)
        t2 = await store.tournaments.get(t.tournament_id)
        assert t2 is not None
        level, state = sng.level(t2)
        assert (level.number, state.seconds_left) == (3, 30.0)
        assert level.stakes_json() == {"ante": 10, "small_bet": 40, "big_bet": 80}


async def test_two_out_in_one_hand_and_the_end(store: Store, db_path: Target) -> None:
    clock = Clock()
    sng = _service(store, clock)
    users = [11, 12, 13, 14, 15]
    t = await sng.create(G, 5, 1, "abyssinia", seats=5, fee=100)
    for user in users:
        t, _ = await sng.register(G, t.tournament_id, user, f"p{user}")
    tid, s = t.tournament_id, structures.DEFAULT_STACK
    start = {u: s for u in users}
    # 14 and 15 go out in one hand with equal chips: they share 4th and 5th
    after = {11: 3 * s, 12: s, 13: s, 14: 0, 15: 0}
    counted = await sng.hand_finished(tid, 1, start, after, actions=7, button=0)
    assert counted.out == {14: 4, 15: 4} and counted.final is None
    again = await sng.hand_finished(tid, 1, start, after, actions=7, button=0)
    assert not again.counted
    before = dict(after)
    after = {11: 4 * s, 12: 0, 13: s}
    del before[14], before[15]
    counted = await sng.hand_finished(tid, 2, before, after, actions=12, button=1)
    assert counted.out == {12: 3}
    with pytest.raises(ValueError, match="conserve"):
        await sng.hand_finished(tid, 3, {11: 4 * s, 13: s}, {11: 5 * s, 13: 1}, actions=1, button=0)
    counted = await sng.hand_finished(
        tid, 3, {11: 4 * s, 13: s}, {11: 5 * s, 13: 0}, actions=3, button=0
    )
    assert counted.final is not None
    assert counted.final.places == {11: 1, 13: 2, 12: 3, 14: 4, 15: 4}
    # 500 in fees, 65/35
    assert counted.final.prizes == {11: 325, 13: 175, 12: 0, 14: 0, 15: 0}
    assert await _balances(store, users) == [425, 100, 275, 100, 100]  # 200 - 100 + prize
    assert await store.tournaments.ledger_sums(tid) == {"sng_fee": -500, "sng_prize": 500}
    done = await store.tournaments.get(tid)
    assert done is not None
    assert (done.status, done.hands, done.longest_hand_id) == ("finished", 3, 2)
    await _refused(SngCode.NOT_RUNNING, sng.hand_finished(tid, 4, {}, {}, actions=1, button=0))
    audit(db_path)


async def test_moderator_removes_a_player(store: Store) -> None:
    sng = _service(store, Clock())
    t = await sng.create(G, 5, 1, "a5-draw", seats=3, fee=10)
    for user in (11, 12, 13):
        t, _ = await sng.register(G, t.tournament_id, user, f"p{user}")
    removed = await sng.remove(G, t.tournament_id, 12)
    assert removed.out == {12: 3} and removed.final is None
    await _refused(SngCode.NOT_IN_PLAY, sng.remove(G, t.tournament_id, 12))
    removed = await sng.remove(G, t.tournament_id, 13)
    assert removed.final is not None
    assert removed.final.places == {11: 1, 13: 2, 12: 3}
    assert removed.final.prizes == {11: 30, 13: 0, 12: 0}


async def random_tournament(path: Target, draw: Callable[..., Any]) -> None:
    """A random Sit & Go played to the end with random hands: chips in play and fees
    are conserved at every hand and elimination."""
    clock = Clock()
    async with await Store.open(path) as store:
        sng = _service(store, clock, seed=draw(st.integers(0, 99)))
        variant = draw(st.sampled_from(sorted(structures.STRUCTURES)))
        seats = draw(st.integers(2, {"a5-triple": 6, "abyssinia": 8}.get(variant, 5)))
        fee = draw(st.integers(0, GRANT))
        stack = draw(st.integers(structures.smallest_stack(variant), 5000))
        t = await sng.create(G, 5, 1, variant, seats=seats, fee=fee, start_stack=stack)
        users = list(range(100, 100 + seats))
        for user in users:
            t, _ = await sng.register(G, t.tournament_id, user, f"p{user}")
        assert t.status == "running"
        tid, total = t.tournament_id, seats * stack
        stacks = {u: stack for u in users}
        hand_id = 0
        placed: dict[int, int] = {}
        final = None
        while final is None:
            hand_id += 1
            clock.now += draw(st.integers(0, 200))
            alive = [u for u in users if stacks[u] > 0]
            if len(alive) > 2 and draw(st.integers(0, 9)) == 0:  # a moderator's removal
                victim = draw(st.sampled_from(alive))
                total -= stacks[victim]
                stacks[victim] = 0
                got = await sng.remove(G, tid, victim)
            else:
                players = draw(st.lists(st.sampled_from(alive), min_size=2, unique=True))
                started = {u: stacks[u] for u in players}
                # random transfers: each loser gives some (or all) of its chips to a winner
                after = dict(started)
                for loser in players:
                    winner = draw(st.sampled_from(players))
                    if winner == loser:
                        winner = players[(players.index(loser) + 1) % len(players)]
                    # all of it (an all-in lost) at random, and always after 20 hands
                    broke = hand_id > 20 or draw(st.booleans())
                    amount = after[loser] if broke else draw(st.integers(0, after[loser]))
                    after[loser] -= amount
                    after[winner] += amount
                got = await sng.hand_finished(
                    tid, hand_id, started, after, actions=draw(st.integers(1, 40)), button=0
                )
                stacks.update(after)
            placed.update(got.out)
            final = got.final
            assert sum(stacks.values()) == total  # chips in play conserved
            rows = await store.tournaments.entries(tid)
            assert {e.user_id: e.stack for e in rows} == stacks
            assert await store.tournaments.held(tid) == (fee * seats if final is None else 0)
        assert len([u for u in users if stacks[u] > 0]) <= 1
        assert sorted(final.places) == sorted(users)
        assert set(final.places.values()) <= set(range(1, seats + 1))
        assert sum(final.prizes.values()) == fee * seats
        sums = await store.tournaments.ledger_sums(tid)
        assert -sums.get("sng_fee", 0) == sums.get("sng_prize", 0) == fee * seats
        balances = await _balances(store, users)
        assert sum(balances) == GRANT * seats  # fees in = prizes out
        audit(path)


def test_random_tournaments_conserve_chips_and_fees(databases: Databases) -> None:
    examples = 30 if databases.backend == "sqlite" else 8

    @settings(
        max_examples=examples,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.large_base_example],
    )
    @given(data=st.data())
    def scenario(data: st.DataObject) -> None:
        asyncio.run(random_tournament(databases.new(), data.draw))

    scenario()
