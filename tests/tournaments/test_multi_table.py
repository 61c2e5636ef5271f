"""A 20-player multi-table tournament at the service level, on both backends: seats drawn
across five tables of four, hands counted table by table (several in play at once), balancing
moves, breaks, hand-for-hand on the bubble, a restart in the middle of it all, and the
end: every place, the prizes paid once, the chips conserved after every step (checked in
the database), the ledger and the season's standings."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable, Mapping

import pytest

from bot.storage.multi_table import ChipsNotConserved, SeatMove
from bot.storage.store import Store
from bot.tournaments.balancing import Field
from bot.tournaments.multi_table import MttCode, MttRefused, MultiTableService
from bot.tournaments.service import SngCode, SngRefused, TournamentService
from bot.tournaments.structures import Speed
from tests.support.databases import Target, open_reader
from tests.support.manager_helpers import Clock
from tests.support.storage_helpers import GRANT, FakeClock, G, audit, seat_players

FEE = 10
PLAYERS = list(range(1, 21))


def services(
    store: Store, seed: int, clock: Callable[[], float] | None = None
) -> tuple[TournamentService, MultiTableService]:
    rng = random.Random(seed)
    sng = TournamentService(store, grant=GRANT, rng=rng, clock=clock or FakeClock(),
                            level_seconds={s: 60.0 for s in Speed})  # fmt: skip
    return sng, MultiTableService(store, sng, rng)


def chips_in_db(path: Target, tid: int) -> tuple[int, int, int]:
    """Chips in play, players with chips, and seats taken twice, read straight from the
    database."""
    db = open_reader(path)
    try:
        chips, players = db.execute(
            "SELECT SUM(stack), SUM(CASE WHEN stack > 0 THEN 1 ELSE 0 END) "
            "FROM tournament_entries WHERE tournament_id = ?",
            (tid,),
        ).fetchone()
        twice = db.execute(
            "SELECT COUNT(*) FROM (SELECT table_no, seat FROM tournament_entries "
            "WHERE tournament_id = ? AND table_no IS NOT NULL "
            "GROUP BY table_no, seat HAVING COUNT(*) > 1) x",
            (tid,),
        ).fetchone()[0]
        return int(chips), int(players), int(twice)
    finally:
        db.close()


def play(stacks: Mapping[int, int], rng: random.Random) -> dict[int, int]:
    """A hand's result: one winner; often one player loses everything, the others a bit."""
    players = sorted(stacks)
    winner = rng.choice(players)
    after = dict(stacks)
    losers = [p for p in players if p != winner]
    busted = rng.choice(losers) if rng.random() < 0.3 else None
    for p in losers:
        lost = after[p] if p == busted else min(after[p], rng.randint(0, 200))
        after[p] -= lost
        after[winner] += lost
    return after


def within_one(field: Field) -> bool:
    counts = [t.count for t in field.tables]
    return max(counts) - min(counts) <= 1


@pytest.mark.parametrize("seed", [3])
async def test_twenty_players_on_five_tables_to_a_winner_across_a_restart(
    db_path: Target, seed: int
) -> None:
    store = await Store.open(db_path, clock=FakeClock())
    sng, mtt = services(store, seed)
    await seat_players(store, PLAYERS)
    t = await mtt.create(G, 77, 1, "a5-triple", table_size=4, cap=20, speed="turbo",
                         start_stack=1000, fee=FEE)  # fmt: skip
    tid = t.tournament_id
    for user in PLAYERS:
        await store.tournaments.register(tid, user, f"u{user}")
    field = await mtt.start(tid)
    assert sorted(t.count for t in field.tables) == [4, 4, 4, 4, 4]
    assert chips_in_db(db_path, tid) == (20_000, 20, 0)

    rng = random.Random(seed)
    hand_id, in_play, restarted, restored_same = 0, {}, False, False
    seen = {"moves": 0, "broken": 0, "hold": 0, "hand_for_hand": 0, "shared": 0, "idle": 0}
    final = None
    while final is None:
        field = mtt.field(tid)
        for table in field.tables:  # every table that may deal does (the held ones wait)
            if table.number not in in_play and mtt.may_deal(tid, table.number):
                mtt.hand_started(tid, table.number)
                hand_id += 1
                in_play[table.number] = (hand_id, {s.player: s.stack for s in table.seats})
        assert in_play, "no table deals and none is in a hand: the tournament is stuck"
        number = rng.choice(sorted(in_play))
        hid, started = in_play.pop(number)
        if not restarted and hand_id > 12 and in_play:  # a restart with hands in play
            await store.close()
            store = await Store.open(db_path, clock=FakeClock())
            sng, mtt = services(store, seed + 1)
            await mtt.restore(tid)
            for other in in_play:
                mtt.hand_started(tid, other, resumed=True)
            restored_same = mtt.field(tid) == field  # asserted after the loop
            restarted = True
        result = await mtt.hand_finished(tid, number, hid, started, play(started, rng),
                                         button=min(started))  # fmt: skip
        assert result.counted
        final = result.final
        seen["moves"] += len(result.moves)
        seen["broken"] += len(result.broken)
        seen["hold"] += bool(result.hold)
        seen["hand_for_hand"] += result.hand_for_hand
        seen["shared"] += len(result.places) > len(set(result.places.values()))
        chips, players, twice = chips_in_db(db_path, tid)
        assert chips == 20_000 and twice == 0
        if final is None:
            field = mtt.field(tid)
            assert players == field.players_left
            assert in_play or within_one(field)  # balanced whenever no hand is in play
            seen["idle"] += not in_play
        else:  # the winner holds every chip
            assert players == 1
    assert restarted and restored_same  # the restored field is the one before the restart
    assert seen["idle"]
    assert seen["moves"] and seen["broken"] >= 3 and seen["hand_for_hand"]
    assert seen["hold"]
    places = final.places
    assert sorted(places) == PLAYERS and sorted(places.values())[0] == 1
    assert sum(final.prizes.values()) == FEE * 20
    ended = await store.tournaments.get(tid)
    assert ended is not None and ended.status == "finished"
    assert await store.tournaments.held(tid) == 0
    assert await store.tournaments.ledger_sums(tid) == {"sng_fee": -200, "sng_prize": 200}
    winner = next(u for u, p in places.items() if p == 1)
    _, rows, total = await store.seasons.standings(G)
    assert total == 20 and rows[0].user_id == winner and rows[0].wins == 1
    audit(db_path)
    await store.close()


async def test_bad_settings_and_bad_moves_change_nothing(db_path: Target) -> None:
    store = await Store.open(db_path, clock=FakeClock())
    try:
        sng, mtt = services(store, 1)
        for kwargs, code in (
            ({"table_size": 7}, SngCode.BAD_SEATS),  # a5-triple seats at most 6
            ({"cap": 1001}, SngCode.BAD_SEATS),  # beyond the cap (1,000)
            ({"cap": 1}, SngCode.BAD_SEATS),
            ({"fee": -1}, SngCode.BAD_FEE),
        ):
            settings = {"table_size": 6, "cap": 20, "fee": 0, **kwargs}
            with pytest.raises(SngRefused) as refused:
                await mtt.create(G, 77, 1, "a5-triple", speed="turbo", start_stack=1000,
                                 **settings)  # fmt: skip
            assert refused.value.code == code
        assert await store.tournaments.open_tournaments(G) == []
        await seat_players(store, [1, 2, 3, 4])
        t = await mtt.create(G, 77, 1, "a5-draw", table_size=2, cap=4, speed="turbo",
                             start_stack=1000)  # fmt: skip
        for user in (1, 2, 3, 4):
            await store.tournaments.register(t.tournament_id, user, f"u{user}")
        field = await mtt.start(t.tournament_id)
        a = field.tables[0].seats[0]
        # a move from a seat the player is not in, or into a taken seat, is refused whole
        wrong = SeatMove(a.player, field.tables[0].number, a.seat + 1, 2, 0)
        with pytest.raises(ChipsNotConserved):
            await store.multi_tables.move(t.tournament_id, [wrong])
        b = field.tables[1].seats[0]
        with pytest.raises(Exception):  # noqa: B017 - the one-per-seat index (either backend's error)
            await store.multi_tables.move(
                t.tournament_id,
                [
                    SeatMove(
                        a.player, field.tables[0].number, a.seat, field.tables[1].number, b.seat
                    )
                ],
            )
        assert (await mtt.restore(t.tournament_id)) == field
        with pytest.raises(SngRefused) as refused:
            await mtt.start(t.tournament_id)
        assert refused.value.code == SngCode.NOT_REGISTERING
    finally:
        await store.close()


async def test_a_scheduled_start_reminds_once_each_across_a_restart(db_path: Target) -> None:
    now = 1_800_000_000.0
    clock = Clock(now)
    store = await Store.open(db_path, clock=clock)
    sng, mtt = services(store, 1, clock)
    await seat_players(store, [1, 2, 3])
    start = now + 3600
    settings = {"table_size": 6, "cap": 20, "speed": "turbo", "start_stack": 1000}
    with pytest.raises(MttRefused) as refused:
        await mtt.create(G, 77, 1, "a5-triple", starts_at=now - 1, **settings)
    assert refused.value.code == MttCode.PAST_START
    t = await mtt.create(G, 77, 1, "a5-triple", starts_at=start, **settings)
    tid = t.tournament_id
    with pytest.raises(MttRefused) as refused:  # two tournaments in one channel
        await mtt.create(G, 77, 2, "a5-draw", table_size=5, cap=10, speed="turbo",
                         start_stack=1000, starts_at=start + 7200)  # fmt: skip
    assert (refused.value.code, refused.value.params) == (
        MttCode.CHANNEL_BUSY, {"tournament_id": tid},
    )  # fmt: skip
    assert [o.tournament_id for o in await store.tournaments.open_tournaments(G)] == [tid]
    assert await store.multi_tables.scheduled(tid) == (start, None)
    await store.multi_tables.set_event(tid, 555)
    assert await store.multi_tables.scheduled(tid) == (start, 555)
    for user in (1, 2):
        await store.tournaments.register(tid, user, f"u{user}")
    assert await store.multi_tables.claim_reminders(clock.now) == []
    clock.now = start - 30 * 60
    assert await store.multi_tables.claim_reminders(clock.now) == [(tid, 30, [1, 2])]
    assert await store.multi_tables.claim_reminders(clock.now) == []  # once
    await store.tournaments.register(tid, 3, "u3")
    await store.close()  # a restart: what was sent stays sent
    store = await Store.open(db_path, clock=clock)
    sng, mtt = services(store, 1, clock)
    clock.now = start - 5 * 60
    # the counts are the ones when it is sent: three players now
    assert await store.multi_tables.claim_reminders(clock.now) == [(tid, 5, [1, 2, 3])]
    assert await store.multi_tables.claim_reminders(clock.now + 60) == []
    await store.multi_tables.reschedule(tid, start + 3600)  # an hour later: both again
    clock.now = start + 1800
    assert await store.multi_tables.claim_reminders(clock.now) == [(tid, 30, [1, 2, 3])]
    await sng.cancel(G, tid, 1, moderator=True)
    assert await store.multi_tables.claim_reminders(start + 3600) == []  # cancelled
    await store.close()


async def test_late_registration_seats_at_the_shortest_table_until_it_closes(
    db_path: Target,
) -> None:
    clock = Clock(1_800_000_000.0)
    store = await Store.open(db_path, clock=clock)
    try:
        sng, mtt = services(store, 2, clock)
        await seat_players(store, list(range(1, 11)))
        t = await mtt.create(G, 77, 1, "a5-draw", table_size=3, cap=9, speed="turbo",
                             start_stack=1000, fee=FEE, late_levels=2)  # fmt: skip
        tid = t.tournament_id
        for user in range(1, 8):
            await store.tournaments.register(tid, user, f"u{user}")
        field = await mtt.start(tid)
        assert [t.count for t in field.tables] == [3, 2, 2] and field.break_order == (3, 2, 1)
        move = await mtt.register_late(tid, 8, "u8")
        assert move.to_table == 2  # the fewest players, the lowest number
        move = await mtt.register_late(tid, 9, "u9")
        assert move.to_table == 3
        assert chips_in_db(db_path, tid) == (9000, 9, 0)
        with pytest.raises(SngRefused) as refused:  # the cap
            await mtt.register_late(tid, 10, "u10")
        assert refused.value.code == SngCode.FULL
        assert await store.tournaments.held(tid) == 9 * FEE
        clock.now += 2 * 60 + 1  # level 3: late registration has closed
        before = (await store.ledger.balance(G, 10)).balance  # type: ignore[union-attr]
        with pytest.raises(MttRefused) as closed:
            await mtt.register_late(tid, 10, "u10")
        assert (closed.value.code, closed.value.params) == (MttCode.LATE_CLOSED, {"levels": 2})
        assert (await store.ledger.balance(G, 10)).balance == before  # type: ignore[union-attr]
        assert chips_in_db(db_path, tid) == (9000, 9, 0)
        assert (await mtt.restore(tid)) == mtt.field(tid)
    finally:
        await store.close()


async def test_a_late_player_opens_a_new_table_that_breaks_first(db_path: Target) -> None:
    clock = Clock(1_800_000_000.0)
    store = await Store.open(db_path, clock=clock)
    try:
        sng, mtt = services(store, 2, clock)
        await seat_players(store, [1, 2, 3, 4, 5])
        t = await mtt.create(G, 77, 1, "a5-draw", table_size=2, cap=5, speed="turbo",
                             start_stack=1000, late_levels=1)  # fmt: skip
        for user in (1, 2, 3, 4):
            await store.tournaments.register(t.tournament_id, user, f"u{user}")
        await mtt.start(t.tournament_id)
        move = await mtt.register_late(t.tournament_id, 5, "u5")
        assert move.to_table == 3
        assert mtt.field(t.tournament_id).break_order == (3, 2, 1)
        restored = await mtt.restore(t.tournament_id)
        assert restored.break_order == (3, 2, 1) and restored.players_left == 5
    finally:
        await store.close()


async def test_a_moderator_cancelling_mid_play_gives_every_fee_back(db_path: Target) -> None:
    store = await Store.open(db_path, clock=FakeClock())
    try:
        sng, mtt = services(store, 4)
        await seat_players(store, PLAYERS[:8])
        t = await mtt.create(G, 77, 1, "abyssinia", table_size=4, cap=8, speed="turbo",
                             start_stack=1000, fee=FEE)  # fmt: skip
        tid = t.tournament_id
        for user in PLAYERS[:8]:
            await store.tournaments.register(tid, user, f"u{user}")
        await store.tournaments.unregister(tid, 8)  # before the start: the fee comes back
        field = await mtt.start(tid)
        table = field.tables[0]
        mtt.hand_started(tid, table.number)
        started = {s.player: s.stack for s in table.seats}
        loser, winner = sorted(started)[:2]
        after = {**started, loser: 0, winner: started[winner] + started[loser]}
        result = await mtt.hand_finished(tid, table.number, 1, started, after, button=None)
        assert result.places == {loser: 7}
        with pytest.raises(SngRefused) as refused:  # not its creator, not a moderator
            await mtt.cancel(G, tid, 5, moderator=False)
        assert refused.value.code == SngCode.NOT_YOURS
        cancelled = await mtt.cancel(G, tid, 5, moderator=True)
        assert cancelled.status == "cancelled"
        assert [(await store.ledger.balance(G, u)).balance for u in PLAYERS[:8]] == [GRANT] * 8  # type: ignore[union-attr]
        assert await store.tournaments.held(tid) == 0
        assert not mtt.may_deal(tid, field.tables[1].number)
        _, rows, total = await store.seasons.standings(G)
        assert (rows, total) == ([], 0)  # no places awarded
        audit(db_path)
    finally:
        await store.close()


async def test_ninety_players_on_fifteen_six_max_tables_to_a_winner(db_path: Target) -> None:
    # the 1,000-player benchmark's run (bench/mtt.py) at a size the suite affords: the
    # planner and the storage at 15 tables, a payout row past BARGE's 24 (10 places paid)
    entrants = list(range(1, 91))
    store = await Store.open(db_path, clock=FakeClock())
    try:
        sng, mtt = services(store, 5)
        await seat_players(store, entrants)
        t = await mtt.create(G, 77, 1, "a5-triple", table_size=6, cap=90, speed="turbo",
                             start_stack=1000, fee=FEE)  # fmt: skip
        tid = t.tournament_id
        for user in entrants:
            await store.tournaments.register(tid, user, f"u{user}")
        field = await mtt.start(tid)
        assert [t.count for t in field.tables] == [6] * 15
        rng = random.Random(5)
        hand_id, in_play, hands, broken, out_order = 0, {}, 0, 0, []
        final = None
        while final is None:
            for table in mtt.field(tid).tables:
                if table.number not in in_play and mtt.may_deal(tid, table.number):
                    mtt.hand_started(tid, table.number)
                    hand_id += 1
                    in_play[table.number] = (hand_id, {s.player: s.stack for s in table.seats})
            assert in_play, "no table deals and none is in a hand: the tournament is stuck"
            number = rng.choice(sorted(in_play))
            hid, started = in_play.pop(number)
            after = play(started, rng)
            result = await mtt.hand_finished(tid, number, hid, started, after,
                                             button=min(started))  # fmt: skip
            hands += 1
            broken += len(result.broken)
            out_order += sorted(result.places, key=lambda u: result.places[u], reverse=True)
            final = result.final
            chips, players, twice = chips_in_db(db_path, tid)
            assert (chips, twice) == (90_000, 0), f"after hand #{hid}"
            if final is None:
                assert players == mtt.field(tid).players_left
            else:  # the winner holds every chip
                assert players == 1
        assert broken == 14  # every table but the last broke
        places = final.places
        assert sorted(places) == entrants
        winner = next(u for u, p in places.items() if p == 1)
        assert chips_in_db(db_path, tid)[:2] == (90_000, 1)
        assert sorted(places.values())[0] == 1 and max(places.values()) == 90
        # a player out earlier never places better than one out later
        assert [places[u] for u in out_order] == sorted(
            (places[u] for u in out_order), reverse=True
        )
        paid = {u: p for u, p in final.prizes.items() if p}
        assert len(paid) == 10 and sum(final.prizes.values()) == 90 * FEE
        assert final.prizes[winner] == max(final.prizes.values()) == 90 * FEE * 26 // 100
        assert await store.tournaments.ledger_sums(tid) == {"sng_fee": -900, "sng_prize": 900}
        assert await store.tournaments.held(tid) == 0
        ended = await store.tournaments.get(tid)
        assert ended is not None and ended.status == "finished" and ended.hands == hands
        audit(db_path)
    finally:
        await store.close()


async def test_no_table_deals_while_a_hands_moves_are_being_written(db_path: Target) -> None:
    """A hand's count plans its moves, then writes them: until the write is done the
    service still shows the old seats, so a table whose player the plan moves must not
    deal in between (the bench through the fake Discord once saw such a table deal with
    the old seats: its hand then held players of two tables and could never be counted)."""
    store = await Store.open(db_path, clock=FakeClock())
    try:
        sng, mtt = services(store, 4)
        await seat_players(store, PLAYERS[:8])
        t = await mtt.create(G, 77, 1, "abyssinia", table_size=4, cap=8, speed="turbo",
                             start_stack=1000, fee=FEE)  # fmt: skip
        tid = t.tournament_id
        for user in PLAYERS[:8]:
            await store.tournaments.register(tid, user, f"u{user}")
        field = await mtt.start(tid)
        first, second = field.tables[0], field.tables[1]
        mtt.hand_started(tid, first.number)
        started = {s.player: s.stack for s in first.seats}
        a, b, winner = sorted(started)[:3]  # two of four out: a player moves over
        after = {**started, a: 0, b: 0, winner: started[winner] + started[a] + started[b]}
        counting = asyncio.create_task(
            mtt.hand_finished(tid, first.number, 1, started, after, button=None)
        )
        seen = []  # may the other table deal, while the count is written?
        while not counting.done():
            seen.append(mtt.may_deal(tid, second.number))
            await asyncio.sleep(0)
        result = await counting
        assert len(seen) > 1 and not any(seen[1:])  # (the first look: before it planned)
        assert [m.from_table for m in result.moves] == [second.number]
        assert mtt.may_deal(tid, second.number)  # written: it deals with its new seats
    finally:
        await store.close()
