"""Statistics on real databases (SQLite and PostgreSQL): kept by the settlement itself,
cancelled hands left out, practice hands apart, erased with the player."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator

import pytest

from bot.engine.simulate import new_random_hand, random_action
from bot.history.stats import StatsKind
from bot.storage import Store
from tests.support.databases import Target, store_reshuffle_alone
from tests.support.storage_helpers import GRANT, FakeClock, G


@pytest.fixture
async def store(db_path: Target) -> AsyncIterator[Store]:
    s = await Store.open(db_path, clock=FakeClock())
    yield s
    await s.close()


async def play(store: Store, users: list[int], seed: int, finish: bool = True) -> dict[int, int]:
    """Store a random hand of triple draw between ``users`` as a table does; their nets."""
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
        assert await store.hands.finish_hand(hand_id, net)
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
