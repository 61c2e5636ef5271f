"""Closing, kicking and thread tables end to end: the real bot through the harness.

Alice has Manage Channels, Bob and Carol are ordinary members, Dave holds the role
that /settings names as moderators (see tests/support/moderated_server.py).
"""

from __future__ import annotations

import random

import discord

from bot.client import PokerBot
from bot.settings import Settings
from bot.ui.rates import TABLE_BUDGET
from fakediscord.harness import DiscordHarness
from tests.support.manager_helpers import Clock
from tests.support.moderated_server import (
    ALICE,
    BOB,
    CAROL,
    DAVE,
    GUILD,
    MOD_ROLE,
    OTHER,
    TABLE,
    make_bot,
    started,
    uid,
)

PLAYERS = [BOB, CAROL]


async def seated(h: DiscordHarness, variant: str = "a5-draw", channel: int = TABLE):
    """Bob opens a table here; Bob and Carol sit down; returns the table message."""
    opened = await h.slash(BOB, channel, f"{variant} open")
    assert opened.message.deleted, opened.content  # the presenter posts the table message
    for user in PLAYERS:
        await h.slash(user, channel, f"{variant} join")
    return h.message(h.bot.presenter.message_id(channel))  # type: ignore[attr-defined]


async def balances(h: DiscordHarness) -> dict[int, tuple[int, int]]:
    out = {}
    for user in PLAYERS:
        account = await h.bot.store.ledger.balance(GUILD, uid(user))
        out[uid(user)] = (account.balance, account.held)
    return out


async def test_who_may_close_and_what_the_table_message_shows(tmp_path):
    async with DiscordHarness(make_bot(tmp_path / "p.db")) as h:
        await started(h)
        table = await seated(h)
        # Carol neither opened it nor moderates
        refused = await h.slash(CAROL, TABLE, "a5-draw close")
        assert refused.ephemeral and "whoever opened this table" in refused.content
        # Bob opened it, but Carol is seated
        refused = await h.slash(BOB, TABLE, "a5-draw close")
        assert "Other players are still seated (1)" in refused.content
        refused = await h.slash(CAROL, TABLE, "table-admin close")
        assert "Only moderators" in refused.content
        await h.slash(BOB, TABLE, "a5-draw deal")
        # a moderator closes: the hand is played out first, and the message says so at once
        closing = await h.slash(ALICE, TABLE, "a5-draw close")
        assert closing.ephemeral and "closes when this hand ends" in closing.content
        assert "closes when this hand ends" in h.message(table.id).text
        late = await h.slash(DAVE, TABLE, "a5-draw join")
        assert "closes when this hand ends" in late.content
        while h.bot.manager.has_table(TABLE) and h.bot.manager.view(TABLE).hand:
            view = h.bot.manager.view(TABLE)
            user = next(u for u in PLAYERS if uid(u) == view.to_act_user)
            action = "discard" if view.hand.phase == "draw" else view.hand.legal[0]
            await h.slash(user, TABLE, f"a5-draw {action}")
        assert not h.bot.manager.has_table(TABLE)
        message = h.message(table.id)
        assert message.buttons() == [] and "closed" in message.text
        assert await h.bot.store.tables.load_tables() == []
        # the channel can host a new table
        assert (await h.slash(CAROL, TABLE, "a6-draw open")).message.deleted
        assert h.bot.manager.has_table(TABLE)


async def test_force_close_cancels_the_hand_and_history_says_so(tmp_path):
    async with DiscordHarness(make_bot(tmp_path / "p.db")) as h:
        await started(h)
        table = await seated(h)
        before = await balances(h)
        await h.slash(BOB, TABLE, "a5-draw deal")
        view = h.bot.manager.view(TABLE)
        hand_id = view.hand_id
        user = next(u for u in PLAYERS if uid(u) == view.to_act_user)
        await h.slash(user, TABLE, "a5-draw bet")
        assert (await balances(h)) != before  # chips are held in the hand
        done = await h.slash(ALICE, TABLE, "table-admin close")
        assert done.ephemeral and "The table is closed" in done.content
        assert await balances(h) == before  # exactly what each put in, back
        notices = [m.content for m in h.messages(TABLE, include_ephemeral=False)]
        assert any(f"Hand #{hand_id} was cancelled" in n for n in notices)
        assert h.message(table.id).buttons() == []
        history = await h.slash(BOB, TABLE, "history")
        assert f"#{hand_id}" in history.content and "cancelled" in history.content


async def test_kick_by_moderators_only_and_the_kicked_may_rejoin(tmp_path):
    async with DiscordHarness(make_bot(tmp_path / "p.db")) as h:
        await started(h)
        await seated(h)
        refused = await h.slash(CAROL, TABLE, "table-admin kick", player=BOB)
        assert refused.ephemeral and "Only moderators" in refused.content
        refused = await h.slash(DAVE, TABLE, "table-admin kick", player=BOB)
        assert "Only moderators" in refused.content  # the role is not named yet
        await h.slash(ALICE, TABLE, "settings moderator-role", role=MOD_ROLE)
        await h.slash(BOB, TABLE, "a5-draw deal")
        to_act = h.bot.manager.view(TABLE).to_act_user
        kicked = await h.slash(DAVE, TABLE, "table-admin kick", player=to_act)
        assert kicked.ephemeral and "leaves the table when it ends" in kicked.content
        assert h.bot.manager.view(TABLE).to_act_user != to_act  # acted for them at once
        nobody = await h.slash(DAVE, TABLE, "table-admin kick", player=DAVE)
        assert "not seated at this table" in nobody.content
        while h.bot.manager.view(TABLE).hand:
            view = h.bot.manager.view(TABLE)
            user = next(u for u in PLAYERS if uid(u) == view.to_act_user)
            action = "discard" if view.hand.phase == "draw" else view.hand.legal[0]
            await h.slash(user, TABLE, f"a5-draw {action}")
        assert to_act not in [s.user_id for s in h.bot.manager.view(TABLE).seats]
        back = await h.slash(to_act, TABLE, "a5-draw join")
        assert "seat" in back.content
        now = await h.slash(ALICE, TABLE, "table-admin kick", player=to_act)
        assert "is removed from the table" in now.content


async def test_a_table_in_a_new_thread_closes_when_the_thread_is_archived(tmp_path):
    async with DiscordHarness(make_bot(tmp_path / "p.db")) as h:
        await started(h)
        opened = await h.slash(BOB, TABLE, "a5-draw open", thread=True)
        (thread,) = h.threads(TABLE)
        tid = int(thread["id"])
        assert thread["name"] == "Ace-to-Five Lowball Draw #1"
        assert f"<#{tid}>" in opened.content
        assert h.bot.manager.has_table(tid) and not h.bot.manager.has_table(TABLE)
        (message,) = h.messages(tid, include_ephemeral=False)
        assert "Join" in [b["label"] for b in message.buttons()]
        for user in PLAYERS:
            assert "seat" in (await h.slash(user, tid, "a5-draw join")).content
        before = await balances(h)
        await h.slash(BOB, tid, "a5-draw deal")
        view = h.bot.manager.view(tid)
        user = next(u for u in PLAYERS if uid(u) == view.to_act_user)
        await h.slash(user, tid, "a5-draw bet")
        # a second table of the same game gets the next number
        await h.slash(CAROL, TABLE, "a5-draw open", thread=True)
        assert [t["name"] for t in h.threads(TABLE)][1] == "Ace-to-Five Lowball Draw #2"
        sent = len(h.sent)
        await h.archive_thread(tid)
        assert not h.bot.manager.has_table(tid)
        assert await balances(h) == before  # the hand was cancelled: chips back exactly
        assert [s for s in h.sent[sent:] if s.channel_id == tid] == []  # nothing to write to


async def test_a_table_in_an_existing_thread_closes_when_the_thread_is_deleted(tmp_path):
    async with DiscordHarness(make_bot(tmp_path / "p.db")) as h:
        await started(h)
        tid = await h.add_thread(TABLE, "poker night", CAROL)
        await seated(h, "a6-draw", tid)
        assert h.bot.manager.view(tid).seats
        # allowed channels: a thread counts as its channel
        await h.slash(ALICE, TABLE, "settings channel-allow", channel=TABLE)
        other = await h.add_thread(TABLE, "second room", CAROL)
        assert (await h.slash(CAROL, other, "abyssinia open")).message.deleted
        assert h.bot.manager.has_table(other)
        before = await balances(h)
        await h.slash(BOB, tid, "a6-draw deal")
        await h.delete_thread(tid)
        assert not h.bot.manager.has_table(tid)
        assert await balances(h) == before
        assert await h.bot.store.tables.load_seats(tid) == []


async def test_a_table_closes_when_its_channel_is_deleted(tmp_path):
    async with DiscordHarness(make_bot(tmp_path / "p.db")) as h:
        await started(h)
        await seated(h, "a5-draw", OTHER)
        before = await balances(h)
        await h.slash(BOB, OTHER, "a5-draw deal")
        assert h.bot.manager.view(OTHER).hand is not None
        await h.delete_channel(OTHER)
        assert not h.bot.manager.has_table(OTHER)
        assert await balances(h) == before  # the hand was cancelled: chips back exactly
        assert [r.channel_id for r in await h.bot.store.tables.load_tables()] == []


async def test_the_tables_of_a_server_that_removes_the_bot_close(tmp_path):
    async with DiscordHarness(make_bot(tmp_path / "p.db")) as h:
        await started(h)
        await seated(h)
        await h.slash(CAROL, OTHER, "a6-draw open")
        await h.slash(BOB, TABLE, "a5-draw deal")
        await h.remove_bot_from_guild()
        assert h.bot.manager.channels() == []
        assert await h.bot.store.tables.load_tables() == []
        assert await h.bot.store.history.load_live_hands() == []


async def test_a_thread_archived_while_the_bot_was_down_closes_at_start_up(tmp_path):
    async with DiscordHarness(make_bot(tmp_path / "p.db")) as h:
        await started(h)
        await h.slash(BOB, TABLE, "a5-draw open", thread=True)
        (thread,) = h.threads(TABLE)
        tid = int(thread["id"])
        await h.slash(BOB, TABLE, "a6-draw open")  # a table whose channel is still there
        await h.archive_thread(tid, bot_down=True)
        await h.restart(make_bot(tmp_path / "p.db"))
        await h.settle()
        assert not h.bot.manager.has_table(tid)
        assert h.bot.manager.has_table(TABLE)
        assert [r.channel_id for r in await h.bot.store.tables.load_tables()] == [TABLE]


async def test_a_refused_open_in_a_new_thread_deletes_the_thread(tmp_path):
    settings = Settings(
        _env_file=None, database_path=tmp_path / "p.db", next_hand_delay=0, max_tables_per_server=1
    )  # type: ignore[call-arg]
    async with DiscordHarness(PokerBot(settings, rng=random.Random(3), clock=Clock())) as h:
        await started(h)
        await h.slash(BOB, TABLE, "a5-draw open")
        refused = await h.slash(CAROL, TABLE, "a6-draw open", thread=True)
        assert "already has 1 open tables" in refused.content
        assert h.threads(TABLE) == []  # the thread made for it is deleted again


async def test_one_budget_per_user_over_every_table_command(tmp_path):
    """Sitting out and back twenty times in a row spends Bob's budget: the next table
    command is refused, says when to try again and changes nothing; Carol is not
    slowed; once the window has passed Bob may go on. (The old code limited only
    open, table, leaderboard and history.)"""
    clock = Clock()
    async with DiscordHarness(make_bot(tmp_path / "p.db", clock=clock)) as h:
        await started(h)
        await seated(h)  # Bob: open and join, two uses
        uses, per = TABLE_BUDGET
        for _ in range(uses - 2):
            await h.slash(BOB, TABLE, "a5-draw sitout")
        sitting = next(s for s in h.bot.manager.view(TABLE).seats if s.user_id == uid(BOB))
        refused = await h.slash(BOB, TABLE, "a5-draw sitout")
        assert refused.ephemeral and refused.content == f"Slow down: try again in {int(per)} s."
        again = next(s for s in h.bot.manager.view(TABLE).seats if s.user_id == uid(BOB))
        assert again.sitting_out == sitting.sitting_out  # nothing changed
        assert "sit" in (await h.slash(CAROL, TABLE, "a5-draw sitout")).content.lower()
        clock.now += per
        assert "Slow down" not in (await h.slash(BOB, TABLE, "a5-draw sitout")).content


async def test_moderator_commands_are_a_top_level_group_hidden_from_members(tmp_path):
    async with DiscordHarness(make_bot(tmp_path / "p.db")) as h:
        await h.connect(GUILD, {TABLE: "poker"}, PLAYERS)
        schema = {c["name"]: c for c in h.command_schema()}
        admin = schema["table-admin"]
        manage_channels = discord.Permissions(manage_channels=True).value
        assert int(admin["default_member_permissions"]) == manage_channels
        assert {o["name"] for o in admin["options"]} == {"close", "kick"}
        for variant in ("a6-draw", "a5-draw", "a5-triple", "abyssinia"):
            game = {o["name"]: o for o in schema[variant]["options"]}
            assert "kick" not in game  # members never see what they cannot use
            assert game["close"].get("options", []) == []  # the opener's close, no force
            assert schema[variant]["default_member_permissions"] is None
