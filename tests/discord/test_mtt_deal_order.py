"""A multi-table table asked to deal while its last hand is not yet counted waits: it is
refused as busy, never taken for chips that went missing."""

from __future__ import annotations

import pytest

from bot.tables.models import Code, Refused
from fakediscord.harness import DiscordHarness
from fakediscord.poker import GUILD, TABLE, uid
from tests.support.mtt_server import MEMBERS, PEOPLE, Clock, mtt_bot, registration


async def test_a_table_whose_hand_is_not_counted_yet_waits_instead_of_failing_conservation(
    tmp_path,
) -> None:
    """The bench through the fake Discord once saw it: a table whose finished hand's count
    waited behind another table's was asked to deal by that table's sync; its stacks (the
    hand's result) differed from the tournament's (not counted yet) and the driver raised
    ``ConservationError`` before asking whether the table may deal at all, which ended the
    sync and left the other tables idle. ``may_deal`` is asked first: the table is busy."""
    alice, bob = PEOPLE[0], PEOPLE[1]
    async with DiscordHarness(mtt_bot(tmp_path / "order.db", Clock())) as h:
        await h.connect(GUILD, {TABLE: "poker"}, MEMBERS[:3])
        made = await h.slash(
            alice, TABLE, "mtt create", game="a5-draw", table_size=4, cap=4, speed="turbo", fee=0
        )
        number = int(made.content.split("#")[1].split(" ")[0])
        for p in (alice, bob):
            await h.click(p, registration(h, number), f"mtt:{number}:reg")
        await h.slash(alice, TABLE, "mtt start")
        await h.settle()
        store = h.bot.store  # type: ignore[attr-defined]
        entries = {e.user_id: e.stack for e in await store.tournaments.entries(number)}
        thread = int(h.threads(TABLE)[0]["id"])
        assert h.bot.manager.view(thread).hand is not None  # type: ignore[attr-defined]
        # the hand in play ended (say) with 5 chips moved, and its count is still to come
        result = [
            (str(uid(alice)), entries[uid(alice)] + 5),
            (str(uid(bob)), entries[uid(bob)] - 5),
        ]
        with pytest.raises(Refused) as refused:
            h.bot.mtt_driver.header(number, "a5-draw", result, 0, [])  # type: ignore[attr-defined]
        assert refused.value.code is Code.TABLE_BUSY
        # nothing changed: the tournament's stacks are as they were
        assert {e.user_id: e.stack for e in await store.tournaments.entries(number)} == entries
