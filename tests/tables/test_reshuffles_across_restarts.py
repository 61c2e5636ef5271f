"""Triple draw's reshuffles across restarts and failed writes (issue 7 items 2 and 16).

A reshuffle is stored with the discard that needed it, in one transaction. These
tests force reshuffles (four players throwing four or five cards at every draw),
restart right after one, fail the append after one, and open a file written the
old way (a reshuffle stored without its discard): the hand always plays on.
"""

from __future__ import annotations

import random

import pytest

from bot.engine.cards import format_cards
from bot.tables.manager import TableManager
from tests.support.crash_child import ROSTER, heavy_draw
from tests.support.databases import Databases, store_reshuffle_alone
from tests.support.failpoints import InjectedFailure, failing_commits
from tests.support.manager_helpers import (
    check_ledger,
    close_manager,
    open_manager,
    play,
    seat_players,
    step,
)

CH = 900


def stub_left(m: TableManager) -> int:
    hand = m.table(CH).hand
    assert hand is not None
    return len(hand.stub) - hand.stub_pos


async def to_next_reshuffle(m: TableManager, seed: str, least: int = 0) -> None:
    """Play heavy draws until the player to act must draw more than the stub holds
    (and it holds at least ``least`` cards)."""
    while True:
        view = m.view(CH)
        assert view.hand is not None, "the hand ended before a reshuffle"
        mine = m.my_hand(CH, view.to_act_user or 0)
        assert mine is not None and mine.decision is not None
        if mine.decision.phase == "draw" and least <= stub_left(m) < 4:
            return
        await step(m, CH, seed, heavy_draw)


async def test_a_failed_reshuffling_draw_stores_nothing_and_a_smaller_draw_follows(
    databases: Databases,
) -> None:
    """The append of a draw that reshuffles fails: neither the reshuffle nor the discard
    is stored, memory is what the database holds, and the player may then throw fewer
    cards (the old code kept the reshuffle and wedged the hand here)."""
    path = databases.target("t.db")
    store, m = await open_manager(path, seed=3)
    await seat_players(m, CH, "a5-triple", list(ROSTER))
    view = await m.deal(CH)
    hand_id = view.hand_id
    assert hand_id is not None
    await to_next_reshuffle(m, "r")
    before, turn = await store.history.hand_record(hand_id), m.view(CH).turn
    failing = failing_commits("append_action", times=2)  # the batch, then alone
    with failing as failed, pytest.raises(InjectedFailure):
        await step(m, CH, "r", heavy_draw)
    assert len(failed) == 2
    assert await store.history.hand_record(hand_id) == before  # nothing of that step was stored
    hand = m.table(CH).hand
    assert hand is not None and m.view(CH).turn == turn and not hand.reshuffles
    user = m.view(CH).to_act_user
    assert user is not None
    await m.act(CH, user, "discard", cards=[])
    await play(m, CH, "r2", agent=heavy_draw)
    assert m.view(CH).hand is None
    await close_manager(store, m)
    check_ledger(path)


async def test_a_restart_and_a_failed_append_after_a_stored_reshuffle(
    databases: Databases,
) -> None:
    path = databases.target("t.db")
    store, m = await open_manager(path, seed=3)
    await seat_players(m, CH, "a5-triple", list(ROSTER))
    view = await m.deal(CH)
    hand_id = view.hand_id
    assert hand_id is not None
    await to_next_reshuffle(m, "s")
    await step(m, CH, "s", heavy_draw)  # this draw reshuffles
    assert len((await store.history.hand_record(hand_id))["reshuffles"]) == 1
    await close_manager(store, m)

    store, m = await open_manager(path, seed=4)  # restarted right after the reshuffle
    hand = m.table(CH).hand
    assert hand is not None and hand.reshuffles_used == 1
    before, turn = await store.history.hand_record(hand_id), m.view(CH).turn
    with failing_commits("append_action", times=2), pytest.raises(InjectedFailure):
        await step(m, CH, "s", heavy_draw)
    assert await store.history.hand_record(hand_id) == before
    assert m.view(CH).turn == turn
    await step(m, CH, "s", heavy_draw)  # the same move goes through now: not wedged
    assert m.view(CH).turn == turn + 1
    await play(m, CH, "s", agent=heavy_draw)
    assert m.view(CH).hand is None
    record = await store.history.hand_record(hand_id)
    assert len(record["reshuffles"]) >= 1 and len(record["actions"]) > turn
    await close_manager(store, m)
    check_ledger(path)


async def test_a_reshuffle_stored_without_its_discard_does_not_wedge_the_hand(
    databases: Databases,
) -> None:
    """A file written before the fix: the reshuffle was committed, then the process
    stopped before its discard. After the restart the player throws fewer cards, and
    later draws need a reshuffle of other dead cards: the hand must still play on."""
    path = databases.target("t.db")
    store, m = await open_manager(path, seed=5)
    await seat_players(m, CH, "a5-triple", list(ROSTER))
    view = await m.deal(CH)
    hand_id = view.hand_id
    assert hand_id is not None
    await to_next_reshuffle(m, "u", least=1)
    hand = m.table(CH).hand
    assert hand is not None
    dead = random.Random(1).sample(hand.dead, len(hand.dead))  # what the old code stored
    await store_reshuffle_alone(store, hand_id, len(hand.reshuffles), format_cards(dead))
    await close_manager(store, m)

    store, m = await open_manager(path, seed=6)
    user = m.view(CH).to_act_user
    assert user is not None
    mine = m.my_hand(CH, user)
    assert mine is not None
    fewer = format_cards(mine.cards[: stub_left(m)])  # all the stub holds: no reshuffle now
    await m.act(CH, user, "discard", cards=fewer)  # and more dead cards than before
    await play(m, CH, "v", agent=heavy_draw)  # later draws reshuffle other dead cards
    assert m.view(CH).hand is None
    record = await store.history.hand_record(hand_id)
    assert record["reshuffles"] and dead not in record["reshuffles"]
    await close_manager(store, m)
    check_ledger(path)
