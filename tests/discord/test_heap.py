"""What the bot keeps alive between clicks and what a click leaves for the garbage collector:
every object kept is walked by each full collection, with the event loop stopped."""

from __future__ import annotations

import gc
import weakref
from typing import Any

import discord
import pytest

from bot import heap
from fakediscord.harness import DiscordHarness
from fakediscord.model import Msg
from fakediscord.poker import GUILD, PLAYERS, TABLE, make_bot, open_table
from tests.support.clicks import patient, to_act

ALICE, BOB = PLAYERS[:2]


@pytest.fixture(autouse=True)
def nothing_frozen():
    """What is frozen is out of gc.get_objects()'s sight: these tests see the whole heap."""
    heap.stop_freezing()  # a benchmark test run before may have installed the policy
    gc.unfreeze()


async def dealt(h: DiscordHarness) -> Msg:
    """Alice and Bob at an a6-draw table, a hand dealt by the table's button."""
    await h.connect(GUILD, {TABLE: "poker"}, PLAYERS)
    patient(h)
    table = await open_table(h, "a6-draw", [ALICE, BOB])
    await h.click(ALICE, table, h.message(table.id).custom_id_for("Deal"))
    return table


def alive(*types: type) -> list[object]:
    gc.collect()
    return [o for o in gc.get_objects() if isinstance(o, types)]


async def test_no_interaction_or_message_outlives_its_answer(tmp_path):
    async with DiscordHarness(make_bot(tmp_path / "c.db")) as h:
        table = await dealt(h)
        checked = await h.click(to_act(h), table, h.message(table.id).custom_id_for("Check"))
        assert checked.callback_type == 7  # the table went out with the answer
        await h.settle()
        # the lane keeps the click's token for later edits, not the interaction with its
        # message, member and components
        assert alive(discord.Interaction, discord.Message) == []
        (webhook,) = alive(discord.Webhook)
        assert webhook.token == checked.token
        start = len(h.sent)
        await h.slash(to_act(h), TABLE, "a6-draw check")  # no table to carry: a token edit
        (edit,) = [s for s in h.sent[start:] if s.method == "PATCH"]
        assert edit.interaction_token == checked.token and edit.path.endswith("/@original")


async def test_nothing_of_the_click_that_ended_a_hand_is_kept(tmp_path):
    async with DiscordHarness(make_bot(tmp_path / "c.db")) as h:
        table = await dealt(h)
        await h.click(to_act(h), table, h.message(table.id).custom_id_for("Bet 1"))
        folded = await h.click(to_act(h), table, h.message(table.id).custom_id_for("Fold"))
        await h.settle()
        mine = [s for s in folded.sent if s.interaction_token == folded.token]
        followups = [s for s in mine if s.method == "POST" and not s.path.endswith("/callback")]
        assert [s.visibility for s in followups] == ["public"]  # the result (no private one)
        # the send worker is done with that job: its click (interaction, message) is let go
        assert alive(discord.Interaction, discord.Message) == []


async def test_a_click_leaves_no_reference_cycle(tmp_path):
    async with DiscordHarness(make_bot(tmp_path / "c.db")) as h:
        table = await dealt(h)
        await h.settle()
        gc.collect()
        gc.disable()  # whatever the click leaves must die by reference counting
        try:
            checked = await h.click(to_act(h), table, h.message(table.id).custom_id_for("Check"))
            await h.settle()
            cyclic = gc.collect()
        finally:
            gc.enable()
        assert checked.callback_type == 7
        assert cyclic == 0


async def test_a_closed_tables_objects_die_while_frozen(tmp_path):
    """bot/heap.py freezes what full collections leave alive: a closed table's objects must
    then die by reference counting, with no cycle the collector would have had to find."""
    async with DiscordHarness(make_bot(tmp_path / "c.db")) as h:
        table = await dealt(h)
        await h.click(to_act(h), table, h.message(table.id).custom_id_for("Bet 1"))
        await h.settle()
        bot: Any = h.bot
        lane, state = bot.presenter.lanes[TABLE], bot.manager.table(TABLE)
        objects = (lane, state, *lane.tasks, lane.message, lane.message.voice, state.hand)
        kept = [weakref.ref(o) for o in objects]
        del lane, state, objects
        gc.collect()
        gc.freeze()  # as after a full collection
        try:
            await h.click(to_act(h), table, h.message(table.id).custom_id_for("Fold"))
            await h.slash(BOB, TABLE, "a6-draw leave")
            await h.slash(ALICE, TABLE, "a6-draw close")
            await h.settle()
            assert TABLE not in bot.presenter.lanes and not bot.manager.has_table(TABLE)
            assert [r for r in kept if r() is not None] == []
        finally:
            gc.unfreeze()
