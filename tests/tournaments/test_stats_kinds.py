"""/stats counts a Sit & Go's hands apart (issue 36 item 5), on both backends.

A tournament hand, dealt and settled by the table manager, adds to the tournament
figures and to neither the cash nor the practice ones; migration v17 keys the stored
statistics by kind and moves the rows made only of tournament hands out of practice.
"""

from __future__ import annotations

import random

from bot.engine import Hand
from bot.engine.record import parse_record
from bot.storage import postgres, sqlite
from bot.storage.migration_stats import STATS_KINDS
from bot.storage.migrations import MIGRATIONS
from bot.storage.store import Store
from bot.storage.totals import StatsKind, Totals
from bot.tables.manager import TableManager
from bot.tournaments import structures
from bot.tournaments.driver import TournamentDriver
from bot.tournaments.service import TournamentService
from bot.tournaments.structures import Speed
from tests.support.databases import Target
from tests.support.manager_helpers import (
    GUILD,
    Clock,
    close_manager,
    open_manager,
    play,
    random_agent,
    seat_players,
)

CASH_TABLE, THREAD = 800, 900
ANN, BEN = 11, 12


async def _open(path: Target, clock: Clock) -> tuple[Store, TableManager, TournamentDriver]:
    store, manager = await open_manager(path, clock=clock, start=False)
    service = TournamentService(
        store, grant=200, rng=random.Random(5), clock=clock, level_seconds={s: 60.0 for s in Speed}
    )
    driver = TournamentDriver(manager, service)
    await driver.restore()
    await manager.start()
    return store, manager, driver


async def _figures(store: Store, user: int, game: str | None) -> dict[StatsKind, Totals]:
    return {kind: await store.stats.totals(GUILD, user, game, kind) for kind in StatsKind}


async def test_a_tournament_hand_counts_in_the_tournament_figures_only(db_path: Target) -> None:
    clock = Clock()
    store, manager, driver = await _open(db_path, clock)
    # a cash hand first: Ann and Ben have cash figures
    await seat_players(manager, CASH_TABLE, "a5-draw", [ANN, BEN])
    await manager.deal(CASH_TABLE)
    await play(manager, CASH_TABLE, "cash")
    for user in (ANN, BEN):
        await manager.leave(CASH_TABLE, user)
    before = {u: await _figures(store, u, None) for u in (ANN, BEN)}
    assert [before[u][StatsKind.CASH].hands for u in (ANN, BEN)] == [1, 1]
    # then one hand of a Sit & Go
    stack = structures.smallest_stack("a5-draw")
    t = await driver.service.create(GUILD, 500, ANN, "a5-draw", seats=2, start_stack=stack)
    for user in (ANN, BEN):
        t, _ = await driver.service.register(GUILD, t.tournament_id, user, f"p{user}")
    view = await driver.begin(t, THREAD)
    assert view.hand is not None and view.hand_id is not None
    hand_id = view.hand_id
    await play(manager, THREAD, "sng", random_agent)
    await driver.wait_closed()
    net = Hand.replay(parse_record(await store.history.hand_record(hand_id))).net()
    for user in (ANN, BEN):
        after = await _figures(store, user, None)
        assert after[StatsKind.CASH] == before[user][StatsKind.CASH]  # unchanged
        assert after[StatsKind.PRACTICE] == Totals()  # still nothing
        sng = after[StatsKind.TOURNAMENT]
        assert (sng.hands, sng.net) == (1, net[str(user)])
        assert await store.stats.totals(GUILD, user, "a5-draw", StatsKind.TOURNAMENT) == sng
    await close_manager(store, manager)


# ----- migration v17: the rows stored before it


def _old_rows() -> list[str]:
    """Ann played only a Sit & Go's hand (a5-draw) and a cash hand; Ben a Sit & Go's
    hand (a5-draw) and a practice table's (a6-draw). Their statistics rows as v10-v16
    kept them: tournament hands in the practice rows."""
    stats = (
        "INSERT INTO player_stats (guild_id, user_id, variant, practice, hands, net) VALUES "
        f"({GUILD}, {ANN}, '*', 0, 1, 4), ({GUILD}, {ANN}, 'a6-draw', 0, 1, 4), "
        f"({GUILD}, {ANN}, '*', 1, 1, 30), ({GUILD}, {ANN}, 'a5-draw', 1, 1, 30), "
        f"({GUILD}, {BEN}, '*', 1, 2, -20), ({GUILD}, {BEN}, 'a5-draw', 1, 1, -30), "
        f"({GUILD}, {BEN}, 'a6-draw', 1, 1, 10)"
    )
    return [
        f"INSERT INTO people (person_id, guild_id, user_id) VALUES (1, {GUILD}, {ANN}), "
        f"(2, {GUILD}, {BEN})",
        "INSERT INTO tournaments (tournament_id, guild_id, channel_id, creator_id, variant, "
        f"seats, speed, start_stack, status, created_at) VALUES (1, {GUILD}, 500, {ANN}, "
        "'a5-draw', 2, 'regular', 2000, 'finished', 1)",
        "INSERT INTO hands (hand_id, guild_id, channel_id, variant, header_json, status, "
        "started_at, completed_at, practice, tournament_id) VALUES "
        f"(1, {GUILD}, 700, 'a6-draw', '{{}}', 'complete', 1, 2, 0, NULL), "
        f"(2, {GUILD}, 900, 'a5-draw', '{{}}', 'complete', 3, 4, 1, 1), "
        f"(3, {GUILD}, 901, 'a6-draw', '{{}}', 'complete', 5, 6, 1, NULL)",
        "INSERT INTO hand_players (hand_id, seat, guild_id, person_id, hold, net, "
        f"practice_net, completed_at) VALUES (1, 0, {GUILD}, 1, 0, 4, NULL, 2), "
        f"(2, 0, {GUILD}, 1, 0, NULL, 30, 4), (2, 1, {GUILD}, 2, 0, NULL, -30, 4), "
        f"(3, 0, {GUILD}, 2, 0, NULL, 10, 6)",
        stats,
    ]


async def _old_database(target: Target) -> None:
    before = MIGRATIONS[: MIGRATIONS.index(STATS_KINDS)]
    if isinstance(target, str):
        pg = await postgres.connect(target)
        try:
            await postgres.migrate(pg, before)
            for sql in _old_rows():
                await pg.execute(sql)
        finally:
            await pg.close()
    else:
        conn = await sqlite.connect(target)
        try:
            await sqlite.migrate(conn, before)
            for sql in _old_rows():
                await conn.execute(sql)
            await conn.commit()
        finally:
            await conn.close()


async def test_migration_moves_tournament_only_rows_out_of_practice(db_path: Target) -> None:
    await _old_database(db_path)
    async with await Store.open(db_path) as store:

        async def figures(user: int, game: str | None, kind: StatsKind) -> tuple[int, int]:
            totals = await store.stats.totals(GUILD, user, game, kind)
            return totals.hands, totals.net

        # Ann: her practice rows held only a Sit & Go's hand: they are tournament rows now
        assert await figures(ANN, None, StatsKind.TOURNAMENT) == (1, 30)
        assert await figures(ANN, "a5-draw", StatsKind.TOURNAMENT) == (1, 30)
        assert await figures(ANN, None, StatsKind.PRACTICE) == (0, 0)
        assert await figures(ANN, None, StatsKind.CASH) == (1, 4)  # cash stays cash
        assert await figures(ANN, "a6-draw", StatsKind.CASH) == (1, 4)
        # Ben: his a5-draw row is the Sit & Go's; his all-games row mixes both and stays
        assert await figures(BEN, "a5-draw", StatsKind.TOURNAMENT) == (1, -30)
        assert await figures(BEN, "a6-draw", StatsKind.PRACTICE) == (1, 10)
        assert await figures(BEN, None, StatsKind.PRACTICE) == (2, -20)
        assert await figures(BEN, None, StatsKind.TOURNAMENT) == (0, 0)
