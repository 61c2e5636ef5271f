"""Statistics on real databases (SQLite and PostgreSQL): kept by the settlement itself,
cancelled hands left out, practice hands apart, erased with the player; figures for
someone not dealt in refused."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator

import pytest

from bot.engine.simulate import new_random_hand, random_action
from bot.history.hand_stats import hand_stats
from bot.storage.errors import BadSettlement
from bot.storage.store import Store
from bot.storage.totals import HandStats, StatsKind
from tests.support.databases import Target, store_reshuffle_alone
from tests.support.storage_helpers import GRANT, FakeClock, G


@pytest.fixture
async def store(db_path: Target) -> AsyncIterator[Store]:
    s = await Store.open(db_path, clock=FakeClock())
    yield s
    await s.close()


async def play(store: Store, users: list[int], seed: int, finish: bool = True) -> dict[int, int]:
    """Store a random hand of triple draw between ``users`` as a table does (its /stats
    computed from the hand played, as the table service does); their nets."""
    rng = random.Random(seed)
    hand = new_random_hand("a5-triple", len(users), rng)
    keys = {p: str(u) for p, u in zip(hand.players, users, strict=True)}
    while not hand.complete:
        hand.apply(random_action(hand, rng))
    record = hand.record().to_json()
    header = {k: record[k] for k in ("variant", "dealer", "deck")}
    header["seats"] = [{"player": keys[s["player"]], "stack": s["stack"]} for s in record["seats"]]
    holds = {u: 100 for u in users}
    hand_id = await store.hands.start_hand(G, 10, "a5-triple", header, holds, users)
    for i, stub in enumerate(record["reshuffles"]):
        await store_reshuffle_alone(store, hand_id, i, stub)
    for i, action in enumerate(record["actions"]):
        await store.hands.append_action(hand_id, i, {**action, "player": keys[action["player"]]})
    net = {int(keys[p]): n for p, n in hand.net().items()}
    if finish:
        stats = {int(keys[p]): figures for p, figures in hand_stats(hand).items()}
        assert await store.hands.finish_hand(hand_id, net, stats=stats)
    else:
        assert await store.hands.cancel_hand(hand_id)
    return net


async def test_settled_hands_are_counted_cancelled_ones_are_not(store: Store) -> None:
    for user in (1, 2, 3):
        await store.ledger.ensure_account(G, user, f"u{user}", GRANT)
    repo = store.stats
    total = 0
    for seed in range(6):
        total += (await play(store, [1, 2, 3], seed))[1]
    await play(store, [1, 2, 3], 99, finish=False)  # cancelled: no figure moves
    mine = await repo.totals(G, 1, "a5-triple", StatsKind.CASH)
    assert (mine.hands, mine.net) == (6, total)
    assert await repo.totals(G, 1, None, StatsKind.CASH) == mine
    assert (await repo.totals(G, 1, None, StatsKind.PRACTICE)).hands == 0
    assert mine.draw_times[0] <= 6 and mine.showdowns_won <= mine.showdowns <= 6
    account = await store.ledger.balance(G, 1)
    assert account is not None and account.net_won == total and account.hands_played == 6
    await store.server.erase_player(G, 2)
    assert (await repo.totals(G, 2, None, StatsKind.CASH)).hands == 0
    assert (await repo.totals(G, 1, None, StatsKind.CASH)).hands == 6


async def test_statistics_for_a_stranger_are_refused_and_change_nothing(store: Store) -> None:
    """finish_hand adds the figures its caller computed; figures naming someone who was
    not dealt in are refused with the settlement, which then writes nothing."""
    for user in (1, 2, 3):
        await store.ledger.ensure_account(G, user, f"u{user}", GRANT)
    header = {"variant": "a5-triple", "dealer": 0, "deck": [], "seats": []}
    header["seats"] = [{"player": "1", "stack": 100}, {"player": "2", "stack": 100}]
    hand_id = await store.hands.start_hand(G, 10, "a5-triple", header, {1: 100, 2: 100}, [1, 2])
    figures = HandStats(5, 1, 0, 0, (1,), (0, 0, 0), 0, 0)
    with pytest.raises(BadSettlement):
        await store.hands.finish_hand(hand_id, {1: 5, 2: -5}, stats={1: figures, 3: figures})
    assert (await store.stats.totals(G, 1, None, StatsKind.CASH)).hands == 0
    account = await store.ledger.balance(G, 1)
    assert account is not None and (account.balance, account.hands_played) == (GRANT, 0)
    assert await store.hands.finish_hand(hand_id, {1: 5, 2: -5}, stats={1: figures})
    mine = await store.stats.totals(G, 1, "a5-triple", StatsKind.CASH)
    assert (mine.hands, mine.net, mine.vpip) == (1, 5, 1)
    assert (await store.stats.totals(G, 2, None, StatsKind.CASH)).hands == 0  # none given
