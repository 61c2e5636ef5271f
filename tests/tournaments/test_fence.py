"""The PostgreSQL guild-owner fence covers the tournaments' rows (issue 37 item 5): a
process that lost a server (another claimed it) can neither create nor change that
server's Sit & Gos, multi-table tournaments, entries, tables, reminders or seasons, and
what it tried leaves nothing behind; the owner goes on writing them."""

from __future__ import annotations

import pytest

from bot.storage import postgres
from bot.storage.store import Store
from tests.support.databases import PG_URL, SKIP_REASON, new_schema

G = 77
CHANNEL = 700
needs_pg = pytest.mark.skipif(not PG_URL, reason=SKIP_REASON)
LOST = "run by another process"


@needs_pg
async def test_a_process_that_lost_the_server_writes_none_of_its_tournament_rows() -> None:
    url = new_schema()
    async with await Store.open(url) as owner, await Store.open(url) as other:
        assert await owner.ownership.claim_guild(G)
        with pytest.raises(Exception, match=LOST):
            await other.tournaments.create(
                G, CHANNEL, 1, "a5-draw", seats=4, speed="turbo", start_stack=3000, fee=0
            )
        with pytest.raises(Exception, match=LOST):
            await other.multi_tables.create(
                G, CHANNEL + 1, 1, "a5-triple", table_size=6, cap=50, speed="turbo",
                start_stack=1000, fee=0, starts_at=4_000_000_000.0, reminders=(30,),
            )  # fmt: skip
        assert await owner.tournaments.open_tournaments(G) == []  # nothing left behind
        sng = await owner.tournaments.create(
            G, CHANNEL, 1, "a5-draw", seats=4, speed="turbo", start_stack=3000, fee=0
        )
        mtt = await owner.multi_tables.create(
            G, CHANNEL + 1, 1, "a5-triple", table_size=6, cap=50, speed="turbo",
            start_stack=1000, fee=0, starts_at=4_000_000_000.0, reminders=(30,),
        )  # fmt: skip
        pg = await postgres.connect(url)
        try:
            sng_id, mtt_id = sng.tournament_id, mtt.tournament_id
            attempts = [
                f"UPDATE tournaments SET hands = hands + 1 WHERE tournament_id = {sng_id}",
                f"UPDATE mtt_tournaments SET late_levels = 3 WHERE tournament_id = {mtt_id}",
                f"UPDATE mtt_reminders SET minutes = 10 WHERE tournament_id = {mtt_id}",
                "INSERT INTO seasons (guild_id, number, kind, started_at) "
                f"VALUES ({G}, 9, 'manual', 1)",
            ]
            for sql in attempts:
                with pytest.raises(Exception, match=LOST):
                    await pg.execute(sql)
        finally:
            await pg.close()
        row = await owner.tournaments.get(sng.tournament_id)
        assert row is not None and row.hands == 0
        state = await owner.multi_tables.state(mtt.tournament_id)
        assert state is not None and state.late_levels == 0
