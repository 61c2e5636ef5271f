"""Closing, force-closing and kicking, on the real manager and real databases (both
backends, see conftest): in every phase of every game, chips before and after must
match exactly, and the ledger must add up."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from bot.storage.store import Store
from bot.tables.manager import TableManager
from bot.tables.models import Code
from tests.support.databases import Target
from tests.support.failpoints import InjectedFailure, failing_commits
from tests.support.manager_helpers import (
    GRANT,
    GUILD,
    VARIANT_IDS,
    Recorder,
    check_ledger,
    close_manager,
    open_manager,
    refused,
    step,
)

PLAYERS = [11, 12, 13]
OPENER = PLAYERS[0]


async def balances(store: Store, users: list[int]) -> dict[int, tuple[int, int]]:
    """user -> (balance, held)."""
    out = {}
    for user in users:
        account = await store.ledger.balance(GUILD, user)
        assert account is not None
        out[user] = (account.balance, account.held)
    return out


def phase_key(manager: TableManager, channel: int) -> tuple[str, int] | None:
    hand = manager.view(channel).hand
    return None if hand is None or hand.complete else (hand.phase, hand.round)


async def table_at_new_phase(
    manager: TableManager, channel: int, variant: str, seen: set, seed: str
) -> bool:
    """Open a table, seat the players, deal and play until the hand is in a phase (and
    round) not in ``seen``; False if the hand ends first (every phase was seen)."""
    await manager.open_table(GUILD, channel, variant, opener=OPENER)
    for user in PLAYERS:
        await manager.join(channel, user, f"user{user}")
    await manager.deal(channel)
    while (key := phase_key(manager, channel)) is not None:
        if key not in seen:
            seen.add(key)
            return True
        await step(manager, channel, seed)
    return False


async def every_phase(
    store: Store, manager: TableManager, variant: str, first: int
) -> AsyncIterator[tuple[int, dict[int, tuple[int, int]]]]:
    """For each phase (and round) of the game, a fresh table whose hand is in it, with
    the players' (balance, held) from before that hand was dealt."""
    seen: set = set()
    channel = first
    while True:
        if channel == first:
            before = {u: (GRANT, 0) for u in PLAYERS}  # their accounts are made at the join
        else:
            before = await balances(store, PLAYERS)
        if not await table_at_new_phase(manager, channel, variant, seen, variant):
            break
        yield channel, before
        channel += 1
    assert len(seen) >= 3  # bet, draw/buy and a later betting round, at least


@pytest.mark.parametrize("variant", VARIANT_IDS)
async def test_force_close_in_every_phase_gives_back_exactly_what_was_put_in(
    db_path: Target, variant: str
) -> None:
    store, manager = await open_manager(db_path)
    events = Recorder()
    manager.subscribe(events)
    try:
        async for channel, before in every_phase(store, manager, variant, 1001):
            hand_id = manager.view(channel).hand_id
            assert any(held for _, held in (await balances(store, PLAYERS)).values())
            # only a moderator may force it; the opener alone may not (others are seated)
            assert (await refused(manager.close_table(channel, OPENER, force=True))).code is (
                Code.MODERATORS_ONLY
            )
            assert await manager.close_table(channel, 99, moderator=True, force=True)
            assert await balances(store, PLAYERS) == before  # exactly, nothing held
            assert not manager.has_table(channel)
            closed = events.events[-1]
            assert closed.kind == "closed" and closed.hand_id == hand_id
            assert closed.view.closed and closed.view.seats == ()
            (summary, *_) = await store.history.recent_hands(GUILD, OPENER)
            assert summary.hand_id == hand_id and summary.cancelled and summary.net == 0
            assert await store.tables.load_seats(channel) == []
            check_ledger(db_path)
            await manager.open_table(GUILD, channel, variant)  # the channel can host a new table
    finally:
        await close_manager(store, manager)


@pytest.mark.parametrize("variant", VARIANT_IDS)
async def test_close_in_every_phase_plays_the_hand_out_first(db_path: Target, variant: str) -> None:
    store, manager = await open_manager(db_path)
    events = Recorder()
    manager.subscribe(events)
    try:
        async for channel, before in every_phase(store, manager, variant, 2001):
            assert not await manager.close_table(channel, 99, moderator=True)
            view = manager.view(channel)
            assert view.closing and events.events[-1].kind == "closing"
            # nobody new sits down, no new hand; the hand itself goes on
            assert (await refused(manager.join(channel, 77, "late"))).code is Code.TABLE_CLOSING
            await play_out(manager, channel, variant)
            finished = [e for e in events.events if e.kind == "finished"][-1]
            assert events.events[-1].kind == "closed" and not events.events[-1].hand_id
            assert not manager.has_table(channel)
            after = await balances(store, PLAYERS)
            net = {int(p): n for p, n in finished.result.net.items()}
            assert sum(net.values()) == 0
            assert after == {u: (before[u][0] + net[u], 0) for u in PLAYERS}
            assert await store.tables.load_tables() == []
            check_ledger(db_path)
    finally:
        await close_manager(store, manager)


async def test_who_may_close(db_path: Target) -> None:
    store, manager = await open_manager(db_path)
    try:
        await manager.open_table(GUILD, 1, "a6-draw", opener=OPENER)
        await manager.join(1, OPENER, "opener")
        await manager.join(1, 12, "other")
        assert (await refused(manager.close_table(1, 12))).code is Code.CLOSE_NOT_YOURS
        others = await refused(manager.close_table(1, OPENER))
        assert others.code is Code.CLOSE_OTHERS_SEATED and others.params["count"] == 1
        await manager.leave(1, 12)
        assert await manager.close_table(1, OPENER)  # alone at their own table: closes now
        assert not manager.has_table(1) and await store.tables.load_tables() == []
        assert (await refused(manager.close_table(1, OPENER))).code is Code.NO_TABLE
        # a closing table survives a restart, and closes once its hand is over
        await manager.open_table(GUILD, 2, "a6-draw", opener=OPENER)
        for user in PLAYERS:
            await manager.join(2, user, f"user{user}")
        await manager.deal(2)
        await manager.close_table(2, 99, moderator=True)
        await close_manager(store, manager)
        store, manager = await open_manager(db_path)
        assert manager.view(2).closing
        assert (await refused(manager.deal(2))).code is Code.TABLE_CLOSING
        await play_out(manager, 2, "restart")
        assert not manager.has_table(2)
        check_ledger(db_path)
    finally:
        await close_manager(store, manager)


async def play_out(manager: TableManager, channel: int, seed: str) -> None:
    """Play the hand to its end (the table may close with it)."""
    while manager.has_table(channel) and manager.view(channel).hand is not None:
        await step(manager, channel, seed)


async def kick_setup(manager: TableManager, channel: int) -> tuple[int, int]:
    """A dealt a6-draw table; (the player to act, a player not to act)."""
    await manager.open_table(GUILD, channel, "a6-draw", opener=OPENER)
    for user in PLAYERS:
        await manager.join(channel, user, f"user{user}")
    await manager.deal(channel)
    view = manager.view(channel)
    to_act = view.to_act_user
    assert to_act is not None
    return to_act, next(u for u in PLAYERS if u != to_act)


async def test_kicking_the_player_to_act_moves_for_them_at_once(db_path: Target) -> None:
    store, manager = await open_manager(db_path)
    try:
        to_act, _ = await kick_setup(manager, 1)
        turn = manager.view(1).turn
        assert not await manager.kick(1, to_act)  # in the hand: unseated when it ends
        view = manager.view(1)
        assert view.turn == turn + 1 and view.to_act_user != to_act  # acted for them now
        seat = next(s for s in view.seats if s.user_id == to_act)
        assert seat.leaving
        assert (await refused(manager.join(1, to_act, "again"))).code is Code.KICKED_WAIT
        # they never act again in this hand: whenever their turn comes, it is played for them
        while manager.view(1).hand is not None:
            assert manager.view(1).to_act_user != to_act
            await step(manager, 1, "kick")
        assert to_act not in [s.user_id for s in manager.view(1).seats]
        check_ledger(db_path)
        # they may rejoin
        await manager.join(1, to_act, "again")
        assert to_act in [s.user_id for s in manager.view(1).seats]
    finally:
        await close_manager(store, manager)


async def test_kicking_a_player_not_to_act_folds_them_at_their_turn(db_path: Target) -> None:
    store, manager = await open_manager(db_path)
    events = Recorder()
    manager.subscribe(events)
    try:
        to_act, _ = await kick_setup(manager, 1)
        hand = manager.view(1).hand
        assert hand is not None
        order = [s.player for s in hand.seats]
        following = int(order[(order.index(str(to_act)) + 1) % len(order)])  # acts next
        turn = manager.view(1).turn
        assert not await manager.kick(1, following)
        assert manager.view(1).turn == turn  # nothing happens before their turn
        assert events.events[-1].kind == "kicked"
        assert events.events[-1].params["user_id"] == following
        await manager.act(1, to_act, "bet")  # now they owe the bet: at once, they fold
        hand = manager.view(1).hand
        assert hand is not None
        assert next(s for s in hand.seats if s.player == str(following)).folded
        assert manager.view(1).to_act_user not in (to_act, following)
        await play_out(manager, 1, "kick")
        # they made no choice after the kick: only the fold made for them
        moves = [e.move for e in events.events if e.move and e.move.player == str(following)]
        assert [m.action for m in moves] == ["fold"]
        assert following not in [s.user_id for s in manager.view(1).seats]
        check_ledger(db_path)
        # a player between hands leaves at once; a stranger cannot be kicked
        assert await manager.kick(1, to_act)
        assert to_act not in [s.user_id for s in manager.view(1).seats]
        assert (await refused(manager.kick(1, 4242))).code is Code.KICK_NOT_SEATED
    finally:
        await close_manager(store, manager)


async def test_a_kick_in_a_hand_is_stored_whole_or_not_at_all(db_path: Target) -> None:
    """The kicked player's seat (leaving) and the table's kicked list are one transaction:
    when it fails, neither is stored (the old code had stored the seat already)."""
    store, manager = await open_manager(db_path)
    try:
        to_act, other = await kick_setup(manager, 1)
        with failing_commits("save_table", 1) as failed, pytest.raises(InjectedFailure):
            await manager.kick(1, other)
        assert failed
        stored = {s.user_id: s for s in await store.tables.load_seats(1)}
        assert not stored[other].leaving
        assert not next(s for s in manager.view(1).seats if s.user_id == other).leaving
        assert await manager.kick(1, other) is False  # tried again: now it holds
        assert {s.user_id: s for s in await store.tables.load_seats(1)}[other].leaving
    finally:
        await close_manager(store, manager)
