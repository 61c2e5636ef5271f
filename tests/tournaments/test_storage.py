"""The tournaments repository on both backends: fees, refunds and prizes in the ledger,
exactly once, and every refusal changing nothing."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from bot.storage.errors import PlayerInHand
from bot.storage.store import Store
from bot.storage.tournaments import Final, TournamentRefused
from tests.support.databases import Target, open_reader
from tests.support.failpoints import InjectedFailure, failing_commits
from tests.support.storage_helpers import GRANT, FakeClock, G, audit, seat_players

FEE = 50


@pytest.fixture
async def store(db_path: Target) -> AsyncIterator[Store]:
    s = await Store.open(db_path, clock=FakeClock())
    yield s
    await s.close()


async def _new(store: Store, seats: int = 3, fee: int = FEE) -> int:
    t = await store.tournaments.create(
        G, 77, 1, "a5-draw", seats=seats, speed="turbo", start_stack=3000, fee=fee
    )
    assert t.status == "registering"
    return t.tournament_id


async def _balance(store: Store, user: int) -> int:
    account = await store.ledger.balance(G, user)
    assert account is not None
    return account.balance


async def _refused(code: str, awaitable: object) -> TournamentRefused:
    with pytest.raises(TournamentRefused) as caught:
        await awaitable  # type: ignore[misc]
    assert caught.value.code == code
    return caught.value


async def test_fee_held_at_register_back_at_unregister(store: Store, db_path: Target) -> None:
    await seat_players(store, [1, 2])
    tid = await _new(store)
    entries = await store.tournaments.register(tid, 1, "Ann")
    assert [(e.user_id, e.display_name) for e in entries] == [(1, "Ann")]
    assert await _balance(store, 1) == GRANT - FEE
    assert await store.tournaments.held(tid) == FEE
    await _refused("already_registered", store.tournaments.register(tid, 1, "Ann"))
    assert await _balance(store, 1) == GRANT - FEE
    assert await store.tournaments.unregister(tid, 1) == []
    assert await _balance(store, 1) == GRANT
    await _refused("not_registered", store.tournaments.unregister(tid, 1))
    await _refused("not_registered", store.tournaments.unregister(tid, 2))
    assert await store.tournaments.ledger_sums(tid) == {"sng_fee": -FEE, "sng_refund": FEE}
    audit(db_path)


async def test_refusals_change_nothing(store: Store, db_path: Target) -> None:
    await seat_players(store, [1, 2, 3])
    await store.ledger.ensure_account(G, 4, "poor", 10)
    tid = await _new(store, seats=2)
    await _refused("short", store.tournaments.register(tid, 4, "poor"))
    assert await _balance(store, 4) == 10
    await _refused("too_few", store.tournaments.start(tid, {}, 0))
    await store.tournaments.register(tid, 1, "Ann")
    await _refused("too_few", store.tournaments.start(tid, {1: 0}, 0))
    await store.tournaments.register(tid, 2, "Ben")
    full = await _refused("full", store.tournaments.register(tid, 3, "Cara"))
    assert full.params == {"seats": 2}
    other = await _new(store)
    elsewhere = await _refused("elsewhere", store.tournaments.register(other, 1, "Ann"))
    assert elsewhere.params == {"tournament_id": tid}
    await _refused("changed", store.tournaments.start(tid, {1: 0, 3: 1}, 0))
    started = await store.tournaments.start(tid, {1: 1, 2: 0}, 0)
    assert started.status == "running"
    await _refused("not_registering", store.tournaments.unregister(tid, 1))
    await _refused("not_registering", store.tournaments.register(tid, 3, "Cara"))
    await _refused("unknown", store.tournaments.register(9999, 3, "Cara"))
    assert [await _balance(store, u) for u in (1, 2, 3)] == [GRANT - FEE, GRANT - FEE, GRANT]
    entries = await store.tournaments.entries(tid)
    assert [(e.user_id, e.seat, e.stack) for e in entries] == [(1, 1, 3000), (2, 0, 3000)]
    audit(db_path)


async def test_cancel_mid_play_returns_every_fee(store: Store, db_path: Target) -> None:
    await seat_players(store, [1, 2, 3])
    tid = await _new(store)
    for user in (1, 2, 3):
        await store.tournaments.register(tid, user, f"u{user}")
    await store.tournaments.start(tid, {1: 0, 2: 1, 3: 2}, 0)
    await store.tournaments.record_hand(
        tid, 5, {1: 9000, 2: 0, 3: 0}, places={2: 2, 3: 3}, actions=4, clock_elapsed=10.0, button=0
    )
    cancelled = await store.tournaments.cancel(tid)
    assert cancelled.status == "cancelled"
    assert [await _balance(store, u) for u in (1, 2, 3)] == [GRANT] * 3
    assert await store.tournaments.held(tid) == 0
    await _refused("not_open", store.tournaments.cancel(tid))
    await _refused("not_registering", store.tournaments.register(tid, 1, "Ann"))
    audit(db_path)


async def test_prizes_paid_once_with_the_last_hand(store: Store, db_path: Target) -> None:
    await seat_players(store, [1, 2, 3, 4, 5])
    tid = await _new(store, seats=5)
    for user in (1, 2, 3, 4, 5):
        await store.tournaments.register(tid, user, f"u{user}")
    await store.tournaments.start(tid, {u: u - 1 for u in (1, 2, 3, 4, 5)}, 2)
    assert await store.tournaments.record_hand(
        tid, 10, {4: 0, 5: 0, 1: 7500}, places={4: 4, 5: 5}, actions=9, clock_elapsed=30.0, button=3
    )
    assert not await store.tournaments.record_hand(  # the same hand again: counted once
        tid, 10, {4: 0, 5: 0, 1: 7500}, places={4: 4, 5: 5}, actions=9, clock_elapsed=30.0, button=3
    )
    final = Final(
        places={1: 1, 2: 2, 3: 3, 4: 4, 5: 5},
        prizes={1: 163, 2: 87, 3: 0, 4: 0, 5: 0},
        points={1: 65, 2: 35},
    )
    bad = Final(final.places, {**final.prizes, 1: 164}, final.points)
    with pytest.raises(Exception, match="prizes 251 but it holds 250"):
        await store.tournaments.record_hand(
            tid, 11, {1: 15000, 2: 0, 3: 0}, places={2: 2, 3: 3}, actions=3,
            clock_elapsed=40.0, button=4, final=bad,
        )  # fmt: skip
    with failing_commits("record_tournament_hand", 1), pytest.raises(InjectedFailure):
        await store.tournaments.record_hand(
            tid, 11, {1: 15000, 2: 0, 3: 0}, places={2: 2, 3: 3}, actions=3,
            clock_elapsed=40.0, button=4, final=final,
        )  # fmt: skip
    assert await _balance(store, 1) == GRANT - FEE  # rolled back: nothing paid
    assert await store.tournaments.record_hand(
        tid, 11, {1: 15000, 2: 0, 3: 0}, places={2: 2, 3: 3}, actions=3,
        clock_elapsed=40.0, button=4, final=final,
    )  # fmt: skip
    await _refused(
        "not_running",
        store.tournaments.record_hand(
            tid, 12, {1: 15000}, places={}, actions=3, clock_elapsed=40.0, button=4, final=final
        ),
    )
    t = await store.tournaments.get(tid)
    assert t is not None
    assert (t.status, t.hands, t.longest_hand_id, t.longest_actions) == ("finished", 2, 10, 9)
    assert await _balance(store, 1) == GRANT - FEE + 163
    assert await _balance(store, 2) == GRANT - FEE + 87
    assert await store.tournaments.ledger_sums(tid) == {"sng_fee": -250, "sng_prize": 250}
    assert await store.tournaments.held(tid) == 0
    rows, total = await store.tournaments.standings(G)
    assert total == 5
    assert [(r.user_id, r.points, r.wins, r.cashes, r.entries, r.won) for r in rows[:2]] == [
        (1, 65, 1, 1, 1, 113),
        (2, 35, 0, 1, 1, 37),
    ]
    audit(db_path)


async def test_database_refuses_paying_more_than_held(store: Store, db_path: Target) -> None:
    await seat_players(store, [1, 2])
    tid = await _new(store)
    await store.tournaments.register(tid, 1, "Ann")
    db = open_reader(db_path)
    try:
        person = db.execute("SELECT person_id FROM people WHERE user_id = 1").fetchone()[0]
    finally:
        db.close()
    for kind in ("sng_prize", "sng_refund"):
        with pytest.raises(Exception, match="pays out more than it holds"):
            async with store.db.write("raw") as conn:  # past the repository, straight in
                await conn.execute(
                    "INSERT INTO ledger (guild_id, person_id, kind, amount, balance_after, "
                    "created_at, tournament_id) VALUES (?, ?, ?, ?, 0, 0, ?)",
                    (G, person, kind, FEE + 1, tid),
                )
    assert await store.tournaments.held(tid) == FEE


async def test_register_killed_after_commit_charges_once(store: Store, db_path: Target) -> None:
    await seat_players(store, [1])
    tid = await _new(store)

    from bot.storage import database as store_module

    def after(step: str, moment: str) -> None:
        if step == "register" and moment == "after":
            raise InjectedFailure("killed after the COMMIT")

    store_module.commit_hook = after
    try:
        with pytest.raises(InjectedFailure):
            await store.tournaments.register(tid, 1, "Ann")
    finally:
        store_module.commit_hook = None
    await _refused("already_registered", store.tournaments.register(tid, 1, "Ann"))
    assert await _balance(store, 1) == GRANT - FEE
    audit(db_path)


async def test_erasing_a_player_forgets_their_name_in_tournaments(
    store: Store, db_path: Target
) -> None:
    await seat_players(store, [1, 2])
    tid = await _new(store)
    await store.tournaments.register(tid, 1, "Secret Name")
    await store.tournaments.register(tid, 2, "Ben")
    await store.tournaments.unregister(tid, 2)
    with pytest.raises(PlayerInHand):  # registered: the fee is still held
        await store.server.erase_player(G, 1)
    await store.tournaments.cancel(tid)
    await store.server.erase_player(G, 1)
    entries = await store.tournaments.entries(tid)
    assert [e.display_name for e in entries] == ["deleted player"]
    assert entries[0].user_id < 0
    t = await store.tournaments.get(tid)
    assert t is not None and t.creator_id < 0  # user 1 created it
    db = open_reader(db_path)
    try:
        dump = repr(db.execute("SELECT * FROM tournament_entries").fetchall())
        dump += repr(db.execute("SELECT * FROM tournaments").fetchall())
    finally:
        db.close()
    assert "Secret Name" not in dump


@pytest.mark.parametrize("moment", ["before", "after"])
@pytest.mark.parametrize(
    "step", ["register", "unregister", "start_tournament", "record_tournament_hand", "cancel"]
)
async def test_a_kill_at_any_write_moves_fees_once(
    store: Store, db_path: Target, step: str, moment: str
) -> None:
    """Each write of a tournament killed before or after its COMMIT, then retried as a
    restarted bot would (a refusal on the retry means it was done): fees and prizes once."""
    from bot.storage import database as store_module

    await seat_players(store, [1, 2])
    tid = await _new(store, seats=2)
    final = Final(places={1: 1, 2: 2}, prizes={1: 2 * FEE, 2: 0}, points={1: 100})
    calls = {
        "register": lambda: store.tournaments.register(tid, 2, "Ben"),
        "unregister": lambda: store.tournaments.unregister(tid, 2),
        "start_tournament": lambda: store.tournaments.start(tid, {1: 0, 2: 1}, 0),
        "record_tournament_hand": lambda: store.tournaments.record_hand(
            tid,
            7,
            {1: 6000, 2: 0},
            places={2: 2},
            actions=5,
            clock_elapsed=9.0,
            button=0,
            final=final,
        ),  # fmt: skip
        "cancel": lambda: store.tournaments.cancel(tid),
    }
    # the steps before the one killed
    await store.tournaments.register(tid, 1, "Ann")
    if step != "register":
        await store.tournaments.register(tid, 2, "Ben")
    if step == "record_tournament_hand":
        await store.tournaments.start(tid, {1: 0, 2: 1}, 0)
    name = "cancel_tournament" if step == "cancel" else step

    def kill(s: str, m: str) -> None:
        if s == name and m == moment:
            raise InjectedFailure(f"killed {moment} the COMMIT of {s}")

    store_module.commit_hook = kill
    try:
        with pytest.raises(InjectedFailure):
            await calls[step]()
    finally:
        store_module.commit_hook = None
    try:  # the retry
        await calls[step]()
    except TournamentRefused as exc:
        assert moment == "after", exc  # refused only because it was done
    sums = await store.tournaments.ledger_sums(tid)
    expected = {
        "register": {"sng_fee": -2 * FEE},
        "unregister": {"sng_fee": -2 * FEE, "sng_refund": FEE},
        "start_tournament": {"sng_fee": -2 * FEE},
        "record_tournament_hand": {"sng_fee": -2 * FEE, "sng_prize": 2 * FEE},
        "cancel": {"sng_fee": -2 * FEE, "sng_refund": 2 * FEE},
    }[step]
    assert sums == expected
    audit(db_path)
