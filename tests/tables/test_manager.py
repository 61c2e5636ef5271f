"""The table manager against real SQLite files: whole hands, restarts in every
phase, racing clicks, many tables at once, timeouts, seating and the ledger."""

from __future__ import annotations

import asyncio
import random

import pytest

from bot.engine import Hand, format_card, parse_header
from bot.engine.cards import FULL_DECK
from bot.engine.record import parse_actions
from bot.storage.store import Store
from bot.tables.manager import TableManager
from bot.tables.models import Code, Done, Refused, Skip
from tests.support.databases import Databases, Target
from tests.support.manager_helpers import (
    GRANT,
    GUILD,
    VARIANT_IDS,
    Clock,
    Recorder,
    check_ledger,
    close_manager,
    ledger_snapshot,
    open_manager,
    play,
    random_agent,
    refused,
    scripted_agent,
    seat_players,
    step,
    wait_for,
)

CH = 500  # channel id
A, B, C, D = 11, 12, 13, 14


def replay(record: dict) -> Hand:
    header = parse_header(record)
    header.actions = list(parse_actions(record["actions"]))  # type: ignore[arg-type]
    return Hand.replay(header)


# ----------------------------------------------------------------- whole hands


@pytest.mark.parametrize("players", [2, 3])
@pytest.mark.parametrize("variant", VARIANT_IDS)
async def test_whole_hand_settles_the_ledger(
    databases: Databases, variant: str, players: int
) -> None:
    path = databases.target("t.db")
    store, m = await open_manager(path, seed=players)
    events = Recorder()
    m.subscribe(events)
    users = [A, B, C][:players]
    await seat_players(m, CH, variant, users)
    view = await m.deal(CH, A)
    assert view.hand is not None and view.hand_id is not None
    for user in users:
        account = await store.ledger.balance(GUILD, user)
        assert account is not None
        assert account.held == m.table(CH).variant.table_minimum
    played = await play(m, CH, seed=f"whole-{variant}")
    assert m.view(CH).hand is None  # settled and cleared
    (finished,) = events.finished()
    result = finished.result
    assert result is not None and result.complete and result.phase == "complete"
    assert sum(result.net.values()) == 0
    for user in users:
        account = await store.ledger.balance(GUILD, user)
        assert account is not None
        assert account.held == 0 and account.available == account.balance
        assert account.balance == GRANT + result.net[str(user)]
        assert account.hands_played == 1
    record = await store.history.hand_record(view.hand_id)
    assert len(record["actions"]) == played
    assert replay(record).net() == result.net
    await close_manager(store, m)
    check_ledger(path)


# ----------------------------------------------------------------- restarts


async def _run(path: Target, variant: str, seed: str, cut: int | None) -> tuple[dict, dict]:
    """Deal one 3-player hand and play it out; with ``cut``, restart after ``cut`` actions."""
    store, m = await open_manager(path, seed=7)
    await seat_players(m, CH, variant, [A, B, C])
    view = await m.deal(CH, A)
    hand_id = view.hand_id
    assert hand_id is not None
    if cut is not None:
        assert await play(m, CH, seed, limit=cut) == cut
        await close_manager(store, m)
        store, m = await open_manager(path, seed=99)  # a different rng: only the DB carries over
        view = m.view(CH)
        assert view.hand_id == hand_id and view.turn == cut
    phases: list[str] = []
    while True:
        view = m.view(CH)
        if view.hand is None:
            break
        phases.append(f"{view.hand.phase} {view.hand.round}")
        await step(m, CH, seed)
    record = await store.history.hand_record(hand_id)
    await close_manager(store, m)
    return record, {"ledger": ledger_snapshot(path), "phases": phases}


@pytest.mark.parametrize("variant", VARIANT_IDS)
async def test_restart_in_every_phase_gives_the_same_hand(
    databases: Databases, variant: str
) -> None:
    seed = f"restart-{variant}"
    base_record, base = await _run(databases.target("base.db"), variant, seed, None)
    phases = base["phases"]
    n = len(phases)
    # the hand passes through every street of the variant (the agent never folds)
    streets = set(phases)
    v = {"a6-draw": (2, 1, 0), "a5-draw": (2, 1, 0), "a5-triple": (4, 3, 0)}
    bets, draws, buys = v.get(variant, (5, 0, 5))
    assert sum(s.startswith("bet ") for s in streets) == bets
    assert sum(s.startswith("draw ") for s in streets) == draws
    assert sum(s.startswith("buy ") for s in streets) == buys
    base_hand = replay(base_record)
    assert base_hand.complete and base_hand.showdown
    for cut in range(n):  # every action index: includes the first of every round
        record, run = await _run(databases.target(f"cut{cut}.db"), variant, seed, cut)
        assert record == base_record, f"cut after {cut} actions ({phases[cut]})"
        assert run["ledger"] == base["ledger"], f"cut after {cut} actions ({phases[cut]})"
        assert replay(record).payouts == base_hand.payouts
    check_ledger(databases.target("base.db"))


# ----------------------------------------------------------------- racing clicks


async def test_simultaneous_clicks_apply_exactly_once_per_turn(databases: Databases) -> None:
    store, m = await open_manager(databases.target("t.db"), seed=3)
    users = [A, B, C]
    await seat_players(m, CH, "a5-triple", users)
    view = await m.deal(CH, A)
    hand_id = view.hand_id
    applied: list[dict] = []
    while (view := m.view(CH)).hand is not None:
        turn, actor = view.turn, view.to_act_user
        assert actor is not None
        mine = m.my_hand(CH, actor)
        assert mine is not None and mine.decision is not None
        move = scripted_agent(mine.decision, random.Random(turn))
        clicks = [m.act(CH, actor, turn=turn, hand_id=hand_id, **move) for _ in range(20)]
        others = [u for u in users if u != actor]
        clicks += [m.act(CH, u, "call", turn=turn) for u in others for _ in range(3)]
        if turn:
            clicks.append(m.act(CH, actor, turn=turn - 1, **move))  # an older button
        results = await asyncio.gather(*clicks, return_exceptions=True)
        ok = [r for r in results if not isinstance(r, BaseException)]
        bad = [r for r in results if isinstance(r, BaseException)]
        assert len(ok) == 1, results
        assert all(isinstance(r, Refused) for r in bad), bad
        codes = (Code.STALE_BUTTON, Code.NOT_YOUR_TURN)
        for r in bad:
            assert r.code in codes, r
        assert ok[0] is results[0]  # the first click in line wins
        applied.append({"player": str(actor), **move})
    record = await store.history.hand_record(hand_id)
    stored = [
        {
            "player": a["player"],
            "action": a["action"],
            **({"cards": a["cards"]} if "cards" in a else {}),
        }
        for a in record["actions"]
    ]
    expected = [{k: v for k, v in a.items() if k != "source"} for a in applied]
    assert stored == expected
    assert replay(record).complete
    await close_manager(store, m)
    check_ledger(databases.target("t.db"))


# ----------------------------------------------------------------- many tables


async def test_two_hundred_tables_at_once(databases: Databases) -> None:
    path = databases.target("many.db")
    store, m = await open_manager(path, seed=200)
    tables = 200
    seats: dict[int, list[int]] = {}
    for t in range(tables):
        n = 2 + t % 2
        # every table has its own players, and each fifth table shares one with the next
        users = [10_000 + 10 * t + i for i in range(n)]
        if t % 5 == 0 and t + 1 < tables:
            users[-1] = 10_000 + 10 * (t + 1)
        seats[1000 + t] = users
    await asyncio.gather(
        *(
            seat_players(m, ch, VARIANT_IDS[i % 4], users)
            for i, (ch, users) in enumerate(seats.items())
        )
    )

    async def table_life(ch: int) -> int:
        hands = 0
        for round_ in range(2):
            try:
                await m.deal(ch, seats[ch][0])
            except Refused:
                continue  # a shared player may be short of available chips
            hands += 1
            await play(m, ch, f"many-{ch}-{round_}", agent=random_agent)
        return hands

    counts = await asyncio.gather(*(table_life(ch) for ch in seats))
    assert sum(counts) >= tables  # nearly every table deals twice
    assert all(m.view(ch).hand is None for ch in seats)
    await close_manager(store, m)
    snap = check_ledger(path)
    assert len(snap["hands"]) == sum(counts)
    assert all(status == "complete" for _, status in snap["hands"])
    # every stored record replays to the settled nets
    store, m = await open_manager(path)
    nets: dict[int, dict[int, int]] = {}
    for hand_id, user, _hold, net in snap["players"]:
        nets.setdefault(hand_id, {})[user] = net
    for hand_id, by_user in list(nets.items())[:: max(1, len(nets) // 50)]:
        hand = replay(await store.history.hand_record(hand_id))
        assert {int(p): c for p, c in hand.net().items()} == by_user
    await close_manager(store, m)


# ----------------------------------------------------------------- timeouts


async def _to_phase(m: TableManager, phase: str, seed: str = "to") -> None:
    while m.view(CH).hand is not None and m.view(CH).hand.phase != phase:  # type: ignore[union-attr]
        await step(m, CH, seed)


async def test_timeout_checks_when_nothing_is_owed_and_folds_facing_a_bet(
    databases: Databases,
) -> None:
    store, m = await open_manager(databases.target("t.db"))
    await seat_players(m, CH, "a5-draw", [A, B, C])
    view = await m.deal(CH, A)
    first = view.to_act_user
    assert view.hand is not None and view.hand.to_call == 0
    assert await m.expire(CH)
    second = m.view(CH).to_act_user
    await m.act(CH, second, "bet")
    third = m.view(CH).to_act_user
    assert await m.expire(CH)
    record = await store.history.hand_record(view.hand_id)
    assert [a["action"] for a in record["actions"]] == ["check", "bet", "fold"]
    assert [a["player"] for a in record["actions"]] == [str(first), str(second), str(third)]
    hand = m.view(CH).hand
    assert hand is not None
    assert [s.folded for s in hand.seats if s.player == str(third)] == [True]
    assert not await m.expire(CH, turn=0)  # a stale timer does nothing
    await close_manager(store, m)


async def test_timeout_in_a_draw_stands_pat(databases: Databases) -> None:
    store, m = await open_manager(databases.target("t.db"))
    await seat_players(m, CH, "a5-triple", [A, B])
    view = await m.deal(CH, A)
    await _to_phase(m, "draw")
    actor = m.view(CH).to_act_user
    before = m.my_hand(CH, actor)
    assert await m.expire(CH)
    after = m.my_hand(CH, actor)
    assert before is not None and after is not None and before.cards == after.cards
    record = await store.history.hand_record(view.hand_id)
    assert record["actions"][-1] == {"player": str(actor), "action": "discard", "cards": []}
    await close_manager(store, m)


async def test_timeout_in_abyssinia_buys_the_cheaper_market_card(databases: Databases) -> None:
    store, m = await open_manager(databases.target("t.db"), seed=5)
    seen: set[str] = set()
    for t in range(60):
        ch = 2000 + t
        await seat_players(m, ch, "abyssinia", [100 + 2 * t, 101 + 2 * t])
        view = await m.deal(ch)
        assert view.hand is not None
        left, right, blind = view.hand.market
        assert blind.source == "blind" and left.price and right.price
        if left.price < right.price:
            case, expected = "left cheaper", "left"
        elif right.price < left.price:
            case, expected = "right cheaper", "right"
        else:
            case, expected = "equal", "left"
        assert await m.expire(ch)
        record = await store.history.hand_record(view.hand_id)
        assert record["actions"] == [
            {"player": str(view.to_act_user), "action": "buy", "from": expected}
        ]
        seen.add(case)
        if len(seen) == 3:
            break
    assert seen == {"left cheaper", "right cheaper", "equal"}
    await close_manager(store, m)


async def test_two_timeouts_in_a_row_sit_the_player_out(databases: Databases) -> None:
    store, m = await open_manager(databases.target("t.db"))
    events = Recorder()
    m.subscribe(events)
    await seat_players(m, CH, "a5-draw", [A, B, C])
    await m.deal(CH, A)
    sleeper = m.view(CH).to_act_user
    assert sleeper is not None
    await m.expire(CH)  # one timeout
    sat_out: list[bool] = []  # after each further timeout: is the sleeper sitting out?
    while m.view(CH).hand is not None:
        if m.view(CH).to_act_user != sleeper:
            await step(m, CH, "sleep")
            continue
        await m.expire(CH)
        seat = m.table(CH).seat_of(sleeper)
        sat_out.append(seat is not None and seat.sitting_out)
    assert sat_out[:1] == [True]  # the second timeout in a row sat them out
    assert "timeout" in events.kinds()
    view = await m.deal(CH, A)
    assert view.hand is not None
    assert str(sleeper) not in {s.player for s in view.hand.seats}
    assert Skip(sleeper, f"user{sleeper}", "sitting_out") in events.events[-1].params["skipped"]
    await play(m, CH, "after")
    assert (await m.sit_out(CH, sleeper)).code is Done.BACK
    view = await m.deal(CH, A)
    assert view.hand is not None and str(sleeper) in {s.player for s in view.hand.seats}
    await close_manager(store, m)


async def test_an_action_between_timeouts_resets_the_count(databases: Databases) -> None:
    """Timeout, own action, timeout: never two in a row, so the player stays in."""
    path = databases.target("t.db")
    store, m = await open_manager(path)
    await seat_players(m, CH, "a5-draw", [A, B])
    await m.deal(CH, A)
    first = m.view(CH).to_act_user
    assert first is not None
    second = B if first == A else A
    assert await m.expire(CH)  # first times out: checks
    await m.act(CH, second, "check")  # the draw comes; nobody bet, so nobody can fold out
    while m.view(CH).to_act_user != first:
        await m.act(CH, second, "discard", cards=[])
    await m.act(CH, first, "discard", cards=[])  # first acts himself: the count goes
    seat = m.table(CH).seat_of(first)
    assert seat is not None and seat.timeouts == 0
    assert {s.user_id: s.timeouts_in_row for s in await store.tables.load_seats(CH)}[first] == 0
    if m.view(CH).to_act_user == second:
        await m.act(CH, second, "discard", cards=[])
    while m.view(CH).to_act_user != first:  # the last round: first's turn comes
        await m.act(CH, second, "check")
    assert m.view(CH).hand is not None
    assert await m.expire(CH)  # a timeout again, but not two in a row
    seat = m.table(CH).seat_of(first)
    assert seat is not None and seat.timeouts == 1 and not seat.sitting_out
    await close_manager(store, m)


async def test_timeout_count_survives_a_restart(databases: Databases) -> None:
    path = databases.target("t.db")
    store, m = await open_manager(path)
    await seat_players(m, CH, "a5-draw", [A, B, C])
    await m.deal(CH, A)
    sleeper = m.view(CH).to_act_user
    await m.expire(CH)
    await close_manager(store, m)
    store, m = await open_manager(path)
    while m.view(CH).to_act_user != sleeper:
        await step(m, CH, "r")
    await m.expire(CH)
    seat = m.table(CH).seat_of(sleeper)
    assert seat is not None and seat.timeouts == 2 and seat.sitting_out
    await close_manager(store, m)


async def test_deadline_is_stored_and_fires_at_once_after_a_restart(databases: Databases) -> None:
    path = databases.target("t.db")
    clock = Clock()
    store, m = await open_manager(path, clock=clock, turn_timeout=600)
    await seat_players(m, CH, "a6-draw", [A, B])
    view = await m.deal(CH, A)
    assert view.deadline == clock.now + 600
    (row,) = await store.tables.load_tables()
    assert row.turn_deadline == clock.now + 600
    clock.now += 10
    await step(m, CH, "d")
    (row,) = await store.tables.load_tables()
    assert row.turn_deadline == clock.now + 600 == m.view(CH).deadline
    await close_manager(store, m)

    clock.now += 601  # the bot was down past the deadline
    store, m = await open_manager(path, clock=clock, turn_timeout=600)
    events = Recorder()
    m.subscribe(events)
    await wait_for(lambda: "timeout" in events.kinds())
    record = await store.history.hand_record(view.hand_id)
    assert len(record["actions"]) == 2
    # the next deadline is a full turn from now, not in the past
    assert m.view(CH).deadline == clock.now + 600
    await asyncio.sleep(0.05)
    assert len((await store.history.hand_record(view.hand_id))["actions"]) == 2
    await close_manager(store, m)


async def test_the_real_timer_task_plays_timeouts(databases: Databases) -> None:
    store, m = await open_manager(databases.target("t.db"), turn_timeout=0.05)
    events = Recorder()
    m.subscribe(events)
    await seat_players(m, CH, "a5-draw", [A, B])
    view = await m.deal(CH, A)
    await wait_for(lambda: bool(events.finished()), timeout=5)
    record = await store.history.hand_record(view.hand_id)
    kinds = [a["action"] for a in record["actions"]]
    assert kinds == ["check", "check", "discard", "discard", "check", "check"]
    assert events.kinds().count("timeout") == 6
    for user in (A, B):
        seat = m.table(CH).seat_of(user)
        assert seat is not None and seat.sitting_out  # timed out twice in a row
    await close_manager(store, m)


# ----------------------------------------------------------------- seats


async def test_sitting_out_skips_the_next_deal_until_back(databases: Databases) -> None:
    store, m = await open_manager(databases.target("t.db"))
    events = Recorder()
    m.subscribe(events)
    await seat_players(m, CH, "a6-draw", [A, B, C])
    assert (await m.sit_out(CH, B)).code is Done.SITTING_OUT
    view = await m.deal(CH, A)
    assert view.hand is not None
    assert {s.player for s in view.hand.seats} == {str(A), str(C)}
    assert events.events[-1].params["skipped"] == (Skip(B, f"user{B}", "sitting_out"),)
    assert (await refused(m.act(CH, B, "check"))).code is Code.NOT_DEALT_IN
    await play(m, CH, "s")
    assert (await m.sit_out(CH, B)).code is Done.BACK
    view = await m.deal(CH, A)
    assert view.hand is not None and len(view.hand.seats) == 3
    await close_manager(store, m)


async def test_leaving_mid_hand_keeps_the_seat_until_the_hand_ends(databases: Databases) -> None:
    path = databases.target("t.db")
    store, m = await open_manager(path)
    await seat_players(m, CH, "a5-draw", [A, B, C])
    await m.deal(CH, A)
    assert (await m.leave(CH, B)).code is Done.LEAVING
    seat = m.table(CH).seat_of(B)
    assert seat is not None and seat.leaving
    assert any(s.user_id == B and s.leaving for s in await store.tables.load_seats(CH))
    await play(m, CH, "leave")  # B still acts until the end
    assert m.table(CH).seat_of(B) is None
    assert [s.user_id for s in await store.tables.load_seats(CH)] == [A, C]
    assert (await refused(m.deal(CH, B))).code is Code.NOT_SEATED
    assert (await m.leave(CH, C)).code is Done.LEFT  # between hands: at once
    await close_manager(store, m)


async def test_refusals(databases: Databases) -> None:
    store, m = await open_manager(databases.target("t.db"))
    await m.open_table(GUILD, CH, "a5-draw", seat_limit=3)
    assert (await refused(m.join(CH + 1, A, "a"))).code is Code.NO_TABLE
    exists = await refused(m.open_table(GUILD, CH, "a6-draw"))
    assert (exists.code, exists.params) == (Code.TABLE_EXISTS, {"variant": "a5-draw"})
    unknown = await refused(m.open_table(GUILD, CH + 1, "holdem"))
    assert unknown.code is Code.UNKNOWN_GAME and unknown.params["game"] == "holdem"
    await m.join(CH, A, "a")
    assert (await refused(m.join(CH, A, "a"))).code is Code.ALREADY_SEATED
    assert (await refused(m.deal(CH, A))).code is Code.TOO_FEW_PLAYERS
    await m.join(CH, B, "b")
    await m.join(CH, C, "c")
    full = await refused(m.join(CH, D, "d"))
    assert (full.code, full.params) == (Code.TABLE_FULL, {"seats": 3})
    assert (await refused(m.deal(CH, D))).code is Code.NOT_SEATED
    no_hand = await refused(m.act(CH, A, "check"))
    assert (no_hand.code, no_hand.params) == (Code.NO_HAND, {"variant": "a5-draw"})
    await m.leave(CH, C)
    view = await m.deal(CH, A)
    assert (await refused(m.deal(CH, A))).code is Code.HAND_RUNNING
    await m.join(CH, D, "d")  # seated after the deal
    assert (await refused(m.act(CH, D, "check"))).code is Code.NOT_DEALT_IN
    assert (await refused(m.act(CH, D + 1, "check"))).code is Code.NOT_SEATED  # an outsider
    actor = view.to_act_user
    other = A if actor == B else B
    waiting = await refused(m.act(CH, other, "check"))
    assert waiting.code is Code.NOT_YOUR_TURN
    assert waiting.params == {"waiting_for": actor, "name": "a" if actor == A else "b"}
    stale = await refused(m.act(CH, actor, "check", turn=view.turn + 1))
    assert stale.code is Code.STALE_BUTTON
    stale = await refused(m.act(CH, actor, "check", hand_id=view.hand_id + 1))
    assert stale.code is Code.STALE_BUTTON

    async def unchanged(coro, code: Code, **params: object) -> None:
        before, record = m.view(CH), await store.history.hand_record(view.hand_id)
        mine = m.my_hand(CH, actor)
        refusal = await refused(coro)
        assert refusal.code is code, refusal
        for name, value in params.items():
            assert refusal.params[name] == value, refusal
        assert m.view(CH) == before
        assert m.my_hand(CH, actor) == mine
        assert await store.history.hand_record(view.hand_id) == record

    illegal = Code.ILLEGAL_ACTION
    await unchanged(
        m.act(CH, actor, "fold"), illegal, reason="nothing_owed", legal=("check", "bet")
    )
    await unchanged(m.act(CH, actor, "call"), illegal, reason="no_bet", action="call")
    await unchanged(m.act(CH, actor, "discard", cards=["8c"]), illegal, reason="wrong_phase")
    await unchanged(m.act(CH, actor, "buy", source="left"), illegal, reason="wrong_phase")
    await unchanged(m.act(CH, actor, "dance"), illegal, action="dance")
    # the draw: bad card text and cards not held
    await _to_phase(m, "draw", "ref")
    actor = m.view(CH).to_act_user
    mine = m.my_hand(CH, actor)
    assert mine is not None
    await unchanged(m.act(CH, actor, "discard", cards=["Zz"]), Code.BAD_CARDS, token="Zz")
    await unchanged(m.act(CH, actor, "discard", cards="1"), Code.BAD_CARDS, token="1")
    foreign = next(c for c in FULL_DECK if c not in mine.cards)
    await unchanged(
        m.act(CH, actor, "discard", cards=[format_card(foreign)]),
        illegal,
        reason="not_held",
        card=foreign,
    )
    twice = format_card(mine.cards[0])
    await unchanged(
        m.act(CH, actor, "discard", cards=[twice, twice]), illegal, reason="named_twice"
    )
    await unchanged(m.act(CH, actor, "check"), illegal, reason="wrong_phase", legal=("discard",))
    await close_manager(store, m)


# ----------------------------------------------------------------- ledger


async def test_ledger_invariants_after_random_play(databases: Databases) -> None:
    path = databases.target("t.db")
    store, m = await open_manager(path, seed=11)
    rng = random.Random(11)
    guilds = {GUILD: [A, B, C, D], GUILD + 1: [A, B, 21, 22]}  # the same users in two guilds
    channels = []
    for g, users in guilds.items():
        for i, variant in enumerate(VARIANT_IDS):
            ch = 100 * g + i
            channels.append(ch)
            await m.open_table(g, ch, variant)
            for u in rng.sample(users, 3):
                await m.join(ch, u, f"user{u}")
    for round_ in range(6):
        for ch in channels:
            if m.view(ch).hand is not None:
                await play(m, ch, f"l{round_}{ch}", agent=random_agent)  # left unfinished before
                continue
            try:
                await m.deal(ch)
            except Refused as exc:
                assert exc.code is Code.TOO_FEW_PLAYERS
                continue
            # a few hands stop mid-way; the ledger must hold with live hands too
            limit = None if round_ % 3 else rng.randrange(1, 6)
            await play(m, ch, f"l{round_}{ch}", agent=random_agent, limit=limit)
        check_ledger(path, allow_live=True)
        accounts = [await store.ledger.balance(g, u) for g, users in guilds.items() for u in users]
        held = [(a.held, a.balance) for a in accounts if a is not None]
        assert held  # the players who joined have accounts
        assert all(0 <= h <= balance for h, balance in held), held
    for ch in channels:
        await play(m, ch, "end", agent=random_agent)
    snap = check_ledger(path)
    board, total = await store.ledger.leaderboard(GUILD, 1)
    assert total == len(board) == 4
    assert sum(r.net_won for r in board) == 0
    recent = await store.history.recent_hands(GUILD, A, limit=100)
    assert sum(h.net for h in recent) == (await store.ledger.balance(GUILD, A)).net_won
    # settling a hand twice writes it once
    hand_id, user, _hold, net = snap["players"][0]
    nets = {u: n for h, u, _, n in snap["players"] if h == hand_id}
    assert await store.hands.finish_hand(hand_id, nets) is False
    assert ledger_snapshot(path) == snap
    await close_manager(store, m)


async def test_holds_keep_a_player_at_many_tables_within_their_chips(databases: Databases) -> None:
    path = databases.target("t.db")
    store, m = await open_manager(path)
    tables = [3000 + i for i in range(6)]
    for i, ch in enumerate(tables):
        await seat_players(m, ch, "abyssinia", [A, 40 + i])  # A plays everywhere
    # deals race for A's chips: 200 covers four holds of 41, not five
    results = await asyncio.gather(*(m.deal(ch, A) for ch in tables), return_exceptions=True)
    dealt = [r for r in results if not isinstance(r, BaseException)]
    refusals = [r for r in results if isinstance(r, BaseException)]
    assert len(dealt) == 4 and len(refusals) == 2
    for r in refusals:
        assert isinstance(r, Refused) and r.code is Code.CANNOT_COVER_MINIMUM
    account = await store.ledger.balance(GUILD, A)
    assert account is not None and account.held == 4 * 41 and account.available == 36
    for ch in tables:
        if m.view(ch).hand is not None:
            await play(m, ch, "holds", agent=random_agent)
    check_ledger(path)
    await close_manager(store, m)


def _aggressive(decision, rng):
    if decision.phase == "draw":
        return {"action": "discard", "cards": []}
    for action in ("raise", "bet", "call"):
        if action in decision.legal:
            return {"action": action}
    raise AssertionError(decision)


async def test_refill_only_below_thirteen_and_out_of_hands(databases: Databases) -> None:
    path = databases.target("t.db")
    store = await Store.open(path)
    m = TableManager(store, starting_grant=20, turn_timeout=3600, rng=random.Random(1))
    await m.start()
    await seat_players(m, CH, "a5-draw", [A, B])
    not_low = await refused(m.refill(GUILD, A, "a"))
    assert (not_low.code, not_low.params) == (Code.REFILL_NOT_LOW, {"balance": 20, "minimum": 13})
    loser = None
    for n in range(20):
        await m.deal(CH, A)
        assert (await refused(m.refill(GUILD, A, "a"))).code is Code.REFILL_IN_HAND
        await play(m, CH, f"agg{n}", agent=_aggressive)  # capped: the loser loses 13
        low = [u for u in (A, B) if (await store.ledger.balance(GUILD, u)).balance < 13]
        if low:
            (loser,) = low
            break
    assert loser is not None
    before = (await store.ledger.balance(GUILD, loser)).balance
    assert (await refused(m.deal(CH, A))).code is Code.TOO_FEW_PLAYERS
    assert await m.refill(GUILD, loser, "l") == 20 - before
    account = await store.ledger.balance(GUILD, loser)
    assert account.balance == 20 and account.refilled == 20 - before
    assert (await refused(m.refill(GUILD, loser, "l"))).code is Code.REFILL_NOT_LOW
    check_ledger(path)
    await close_manager(store, m)


async def test_a_refill_refused_to_someone_without_an_account_writes_nothing(
    databases: Databases,
) -> None:
    """Someone new here (or forgotten) asks for a refill: refused as not low (their first
    game gives them the grant), and no account is made (the storm of requests once saw a
    refused refill create the account of a player forgotten a moment before)."""
    path = databases.target("t.db")
    store = await Store.open(path)
    m = TableManager(store, starting_grant=20, turn_timeout=3600, rng=random.Random(1))
    await m.start()
    not_low = await refused(m.refill(GUILD, A, "a"))
    assert (not_low.code, not_low.params) == (Code.REFILL_NOT_LOW, {"balance": 20, "minimum": 13})
    assert await store.ledger.balance(GUILD, A) is None
    check_ledger(path)
    await close_manager(store, m)


async def test_a_hand_stored_complete_but_unsettled_is_settled_at_start_up(
    databases: Databases,
) -> None:
    """A stop between a hand's last stored action and its settlement loses nothing."""
    path = databases.target("t.db")
    store, m = await open_manager(path)
    await seat_players(m, CH, "a5-draw", [A, B])
    view = await m.deal(CH, A)
    first = view.to_act_user
    second = B if first == A else A
    await m.act(CH, first, "bet")
    # the final action reaches the database, then the process stops before settling
    await store.hands.append_action(view.hand_id, 1, {"player": str(second), "action": "fold"})
    await close_manager(store, m)
    store, m = await open_manager(path)
    assert m.view(CH).hand is None
    assert await store.history.load_live_hands() == []
    winner, loser = (
        await store.ledger.balance(GUILD, first),
        await store.ledger.balance(GUILD, second),
    )
    assert (winner.balance, loser.balance) == (GRANT + 1, GRANT - 1)
    assert winner.held == loser.held == 0
    check_ledger(path)
    await close_manager(store, m)


async def test_the_next_hand_is_dealt_by_itself_while_enough_players_remain(
    databases: Databases,
) -> None:
    store = await Store.open(databases.target("t.db"))
    m = TableManager(store, turn_timeout=3600, next_hand_delay=0.05, rng=random.Random(3))
    await m.start()
    await seat_players(m, CH, "a6-draw", [A, B])
    first = await m.deal(CH, A)
    await play(m, CH, seed="auto-1")
    for _ in range(100):  # the pause, then the automatic deal
        if m.view(CH).hand is not None:
            break
        await asyncio.sleep(0.01)
    second = m.view(CH)
    assert second.hand is not None and second.hand_id == first.hand_id + 1
    assert second.button != first.button  # the button moved one seat clockwise
    # with one player leaving, no further hand is dealt
    await m.leave(CH, B)
    await play(m, CH, seed="auto-2")
    await asyncio.sleep(0.2)
    assert m.view(CH).hand is None
    await close_manager(store, m)


async def test_a_zero_next_hand_delay_turns_automatic_deals_off(databases: Databases) -> None:
    """NEXT_HAND_DELAY=0 means no automatic deal, also at a table saved with it on."""
    path = databases.target("t.db")
    for restart in (False, True):
        store = await Store.open(path)
        m = TableManager(store, turn_timeout=3600, next_hand_delay=0, rng=random.Random(3))
        await m.start()
        if not restart:
            await m.open_table(GUILD, CH, "a6-draw", auto_deal=True)
            await m.join(CH, A, "a")
            await m.join(CH, B, "b")
        assert m.view(CH).settings.auto_deal
        view = await m.deal(CH, A)
        await play(m, CH, seed=f"zero-{restart}")
        await asyncio.sleep(0.05)
        assert m.view(CH).hand is None, "a hand was dealt by itself"
        assert len(ledger_snapshot(path)["hands"]) == view.hand_id
        await close_manager(store, m)


async def test_two_opens_at_once_in_one_channel_make_one_table(databases: Databases) -> None:
    path = databases.target("t.db")
    store, m = await open_manager(path)
    events = Recorder()
    m.subscribe(events)
    results = await asyncio.gather(
        m.open_table(GUILD, CH, "a5-draw"),
        m.open_table(GUILD, CH, "a6-draw"),
        return_exceptions=True,
    )
    opened = [r for r in results if not isinstance(r, BaseException)]
    refusals = [r for r in results if isinstance(r, BaseException)]
    assert len(opened) == 1 and len(refusals) == 1, results
    assert isinstance(refusals[0], Refused) and refusals[0].code is Code.TABLE_EXISTS
    assert events.kinds() == ["opened"]
    (row,) = await store.tables.load_tables()
    assert row.variant == opened[0].variant == m.view(CH).variant
    await close_manager(store, m)
