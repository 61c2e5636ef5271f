"""A Sit & Go of each game played to a winner at the table manager's level, on both
backends: scripted players, fast levels on the test's clock, a restart in the middle
of a hand, fees and prizes checked against the ledger."""

from __future__ import annotations

import json
import random

import pytest

from bot.storage.store import Store
from bot.tables.manager import TableManager
from bot.tables.models import Code
from bot.tournaments import structures
from bot.tournaments.driver import TournamentDriver
from bot.tournaments.service import TournamentService
from bot.tournaments.structures import Speed
from bot.ui import i18n
from bot.ui.history_lines import summarize
from bot.ui.tournaments import summary_text
from tests.support.databases import Target, open_reader
from tests.support.manager_helpers import (
    GRANT,
    GUILD,
    VARIANT_IDS,
    Clock,
    close_manager,
    open_manager,
    play,
    random_agent,
    refused,
)

THREAD = 900
FEE = 50
USERS = [11, 12, 13]


async def _open(path: Target, clock: Clock) -> tuple[Store, TableManager, TournamentDriver]:
    store, manager = await open_manager(path, clock=clock, start=False)
    service = TournamentService(
        store,
        grant=GRANT,
        rng=random.Random(5),
        clock=clock,
        level_seconds={s: 60.0 for s in Speed},
    )
    driver = TournamentDriver(manager, service)
    await driver.restore()
    await manager.start()
    return store, manager, driver


@pytest.mark.parametrize("variant", VARIANT_IDS)
async def test_sit_and_go_to_a_winner_across_a_restart(db_path: Target, variant: str) -> None:
    clock = Clock()
    store, manager, driver = await _open(db_path, clock)
    stack = structures.smallest_stack(variant)
    t = await driver.service.create(
        GUILD, 500, USERS[0], variant, seats=3, fee=FEE, start_stack=stack
    )
    tid = t.tournament_id
    for user in USERS:
        t, _ = await driver.service.register(GUILD, tid, user, f"p{user}")
    assert t.status == "running"
    view = await driver.begin(t, THREAD)
    assert view.hand is not None
    # the table takes nobody else, and a player who leaves is only away
    assert (await refused(manager.join(THREAD, 99, "late"))).code == Code.TOURNAMENT_TABLE
    hands, restarted = 0, False
    while True:
        if hands == 4 and not restarted:  # a restart in the middle of a hand
            await play(manager, THREAD, f"{variant}:{hands}", random_agent, limit=2)
            await driver.wait_closed()  # the clock kept at the deal is written
            before = await store.tournaments.get(tid)
            assert before is not None
            level_before = driver.service.level(before)
            await close_manager(store, manager)
            clock.now += 500  # down for a while: that time does not count
            store, manager, driver = await _open(db_path, clock)
            after = await store.tournaments.get(tid)
            assert after is not None
            assert driver.service.level(after) == level_before
            restarted = True
        else:  # the restart comes at the fifth hand, never later
            assert restarted == (hands > 4)
        await play(manager, THREAD, f"{variant}:{hands}", random_agent)
        hands += 1
        clock.now += 25  # between hands: a level every 60 s
        await driver.wait_closed()
        row = await store.tournaments.get(tid)
        assert row is not None
        if row.status == "finished":
            break
        assert hands < 400, "the tournament does not end"
        table = manager.view(THREAD)
        assert sum(s.stack or 0 for s in table.seats) == 3 * stack  # chips in play conserved
        await manager.deal(THREAD)
    assert restarted
    assert not manager.has_table(THREAD)  # the winner's table closed
    entries = await store.tournaments.entries(tid)
    places = {e.user_id: e.place for e in entries}
    assert sorted(p for p in places.values() if p is not None)[0] == 1
    assert sum(e.prize for e in entries) == 3 * FEE
    winner = next(e for e in entries if e.place == 1)
    assert winner.prize == 3 * FEE  # 2-4 entrants: the winner takes all
    assert await store.tournaments.ledger_sums(tid) == {"sng_fee": -3 * FEE, "sng_prize": 3 * FEE}
    balances = {u: (await store.ledger.balance(GUILD, u)).balance for u in USERS}  # type: ignore[union-attr]
    assert balances == {u: GRANT - FEE + (3 * FEE if u == winner.user_id else 0) for u in USERS}
    assert row.hands == hands
    # every hand is a section-8 hand at its level's stakes, and the stakes rose
    db = open_reader(db_path)
    try:
        headers = [
            json.loads(r[0])
            for r in db.execute(
                "SELECT header_json FROM hands WHERE channel_id = ? ORDER BY hand_id", (THREAD,)
            ).fetchall()
        ]
        # tournament chips are not the server's: no hand moved a cash chip
        accounts = db.execute(
            "SELECT balance, granted, refilled, net_won, tournament_net, held FROM accounts"
        ).fetchall()
        cash = db.execute("SELECT COUNT(*) FROM ledger WHERE kind = 'hand'").fetchone()[0]
        marked = db.execute(
            "SELECT DISTINCT tournament_id FROM hands WHERE channel_id = ?", (THREAD,)
        ).fetchall()
    finally:
        db.close()
    assert len(headers) == hands
    assert all(h["allin"] is True for h in headers)
    assert headers[0]["stakes"] == structures.level_at(variant, 1).stakes_json()
    assert headers[-1]["stakes"] != headers[0]["stakes"]
    assert cash == 0
    assert marked == [(tid,)]  # every hand marked with its tournament
    # /history marks them with the tournament and the level, not as practice
    recent = await store.history.recent_hands(GUILD, USERS[0], limit=3)
    assert recent and all(h.tournament_id == tid for h in recent)
    with i18n.using("en-US"):
        line = summarize(recent[-1], USERS[0], clock.now)
    level = structures.level_number(variant, recent[-1].record["stakes"])
    assert level is not None and f"Sit & Go #{tid}, level {level}" in line
    assert "practice" not in line
    # the public summary at the end: places, prizes, hands played, the longest hand
    with i18n.using("en-US"):
        summary = summary_text(row, entries)
    lines = summary.splitlines()
    assert lines[0].startswith(f"🏆 Sit & Go #{tid} (")
    assert lines[1] == (
        f"Hands played: {hands}. The longest: hand #{row.longest_hand_id}, "
        f"{row.longest_actions} actions."
    )
    assert lines[2] == f"1. {winner.display_name}: {3 * FEE} chips"
    assert len(lines) == 5 and all(line[0] in "123" for line in lines[2:])
    for balance, granted, refilled, net_won, sng, held in accounts:
        assert (net_won, held) == (0, 0)
        assert balance == granted + refilled + sng
    await close_manager(store, manager)


async def test_away_players_stay_and_a_closed_table_cancels(db_path: Target) -> None:
    clock = Clock()
    store, manager, driver = await _open(db_path, clock)
    t = await driver.service.create(GUILD, 500, USERS[0], "a5-draw", seats=3, fee=FEE)
    for user in USERS:
        t, _ = await driver.service.register(GUILD, t.tournament_id, user, f"p{user}")
    await driver.begin(t, THREAD)
    # a moderator's kick and a player's leave: both only away, still dealt in
    assert await manager.kick(THREAD, USERS[1]) is False
    await manager.leave(THREAD, USERS[2])
    seats = {s.user_id: s for s in manager.view(THREAD).seats}
    assert set(seats) == set(USERS)
    assert seats[USERS[1]].sitting_out and seats[USERS[2]].sitting_out
    await play(manager, THREAD, "away", random_agent)
    await driver.wait_closed()
    view = await manager.deal(THREAD)
    assert view.hand is not None
    dealt = {view.names.get(s.player) for s in view.hand.seats}
    assert {"p12", "p13"} <= dealt  # away players are dealt in
    # a moderator closes the table mid-hand: the tournament is cancelled, fees come back
    assert await manager.close_table(THREAD, 1, moderator=True, force=True)
    await driver.wait_closed()
    row = await store.tournaments.get(t.tournament_id)
    assert row is not None and row.status == "cancelled"
    for user in USERS:
        account = await store.ledger.balance(GUILD, user)
        assert account is not None and account.balance == GRANT
    await close_manager(store, manager)
