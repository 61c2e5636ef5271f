"""Per-server settings, moderators, guild-only schema and abuse limits, end to end.

The real bot through fakediscord/harness.py (real discord.py, gateway payloads, the
command schema it synced) on a real SQLite file. Time is a settable clock given
to the bot, so cooldowns are tested without sleeping.
"""

from __future__ import annotations

import discord
import pytest

from bot.tables.guild_settings import BadSetting
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
    command,
    make_bot,
    started,
    table_of,
)


async def test_schema_marks_server_commands_guild_only_and_settings_for_moderators(tmp_path):
    async with DiscordHarness(make_bot(tmp_path / "p.db")) as h:
        await started(h)
        guild_only = [
            "a6-draw",
            "a5-draw",
            "a5-triple",
            "abyssinia",
            "leaderboard",
            "balance",
            "refill",
            "history",
            "settings",
            "privacy",
        ]
        for name in guild_only:
            cmd = command(h, name)
            assert cmd["contexts"] == [0] and cmd["dm_permission"] is False, name
        assert command(h, "rules").get("contexts") in (None, [0, 1, 2])  # rules work anywhere
        manage_channels = discord.Permissions(manage_channels=True).value
        assert command(h, "settings")["default_member_permissions"] == manage_channels
        assert command(h, "a5-draw")["default_member_permissions"] is None


async def test_only_moderators_change_settings(tmp_path):
    async with DiscordHarness(make_bot(tmp_path / "p.db")) as h:
        await started(h)
        # Discord hides /settings from Bob, but a server admin may show it to him: refused
        refused = await h.slash(BOB, TABLE, "settings show")
        assert refused.ephemeral and "Only moderators" in refused.content
        refused = await h.slash(DAVE, TABLE, "settings turn-time", seconds=30)
        assert refused.ephemeral and "Only moderators" in refused.content
        assert (await h.bot.guild_settings.get(GUILD)).turn_timeout is None
        # Alice has Manage Channels here; she names Dave's role
        shown = await h.slash(ALICE, TABLE, "settings show")
        assert shown.ephemeral and "any channel" in str(shown.embeds)
        named = await h.slash(ALICE, TABLE, "settings moderator-role", role=MOD_ROLE)
        assert f"<@&{MOD_ROLE}>" in named.content and "is now" in named.content
        # now the role is enough, at once
        changed = await h.slash(DAVE, TABLE, "settings turn-time", seconds=30)
        assert changed.ephemeral and changed.content == "Turn time of new tables is now: 30 s."
        still = await h.slash(BOB, TABLE, "settings show")
        assert "Only moderators" in still.content


async def test_changes_are_acknowledged_checked_applied_and_kept(tmp_path):
    path = tmp_path / "p.db"
    async with DiscordHarness(make_bot(path)) as h:
        await started(h)
        bad = await h.slash(ALICE, TABLE, "settings turn-time", seconds=3)
        assert (
            bad.ephemeral and "between 5 and 3,600 seconds, not 3" in bad.content
        )  # numbers as English writes them
        bad = await h.slash(ALICE, TABLE, "settings turn-time", seconds=4000)
        assert "between 5 and 3,600" in bad.content
        ok = await h.slash(ALICE, TABLE, "settings turn-time", seconds=45)
        assert ok.content == "Turn time of new tables is now: 45 s."
        auto = await h.slash(ALICE, TABLE, "settings auto-deal", on=True)
        assert auto.content == "Automatic next deal is now: on."
        lang = await h.slash(ALICE, TABLE, "settings language", language="pt-BR")
        assert lang.content == "Language is now: pt-BR."
        # applied without a restart: the next table takes the turn time and the auto deal
        await h.slash(BOB, TABLE, "a5-draw open")
        assert not table_of(h, TABLE).ephemeral
        table = h.bot.manager.table(TABLE)
        assert table.settings.turn_timeout == 45 and table.settings.auto_deal is True
        # an explicit timeout still wins
        await h.slash(BOB, OTHER, "a6-draw open", timeout=20)
        assert h.bot.manager.table(OTHER).settings.turn_timeout == 20
        back = await h.slash(ALICE, TABLE, "settings turn-time")
        assert back.content == "Turn time of new tables is now: 60 s (the bot's default)."
        await h.slash(ALICE, TABLE, "settings turn-time", seconds=90)
        # stored: a new process reads them back
        await h.restart(make_bot(path))
        shown = await h.slash(ALICE, TABLE, "settings show")
        text = str(shown.embeds)
        assert "90 s" in text and "pt-BR" in text and "on" in text


async def test_who_may_open_and_where(tmp_path):
    async with DiscordHarness(make_bot(tmp_path / "p.db")) as h:
        await started(h)
        who = await h.slash(ALICE, TABLE, "settings who-opens", who="moderators")
        assert who.content == "Who opens tables is now: moderators only."
        refused = await h.slash(BOB, TABLE, "a5-draw open")
        assert refused.ephemeral and "only moderators open tables" in refused.content
        assert not h.bot.manager.has_table(TABLE)
        await h.slash(ALICE, TABLE, "settings moderator-role", role=MOD_ROLE)
        await h.slash(DAVE, TABLE, "a5-draw open")
        assert h.bot.manager.has_table(TABLE) and not table_of(h, TABLE).ephemeral
        await h.slash(ALICE, TABLE, "settings who-opens", who="anyone")
        listed = await h.slash(ALICE, TABLE, "settings channel-allow", channel=TABLE)
        assert listed.content == f"Channels for tables is now: <#{TABLE}>."
        elsewhere = await h.slash(BOB, OTHER, "a6-draw open")
        assert elsewhere.ephemeral and f"Allowed: <#{TABLE}>" in elsewhere.content
        assert not h.bot.manager.has_table(OTHER)
        not_listed = await h.slash(ALICE, TABLE, "settings channel-remove", channel=OTHER)
        assert not_listed.content == f"<#{OTHER}> is not in the list of channels for tables."
        anywhere = await h.slash(ALICE, TABLE, "settings channels-any")
        assert anywhere.content == "Channels for tables is now: any channel."
        await h.slash(BOB, OTHER, "a6-draw open")
        assert not table_of(h, OTHER).ephemeral


async def test_cooldowns_are_per_user_and_end(tmp_path):
    clock = Clock()
    async with DiscordHarness(make_bot(tmp_path / "p.db", clock)) as h:
        await started(h)
        for _ in range(3):
            board = await h.slash(BOB, TABLE, "leaderboard")
            assert not board.ephemeral
        public = len(h.messages(TABLE, include_ephemeral=False))
        limited = await h.slash(BOB, TABLE, "leaderboard")
        assert limited.ephemeral and limited.content == "Slow down: try again in 20 s."
        assert len(h.messages(TABLE, include_ephemeral=False)) == public  # nothing posted
        other = await h.slash(CAROL, TABLE, "leaderboard")
        assert not other.ephemeral  # Bob's limit is his own
        clock.now += 15
        limited = await h.slash(BOB, TABLE, "leaderboard")
        assert limited.content == "Slow down: try again in 5 s."
        clock.now += 5
        assert not (await h.slash(BOB, TABLE, "leaderboard")).ephemeral
        for _ in range(3):
            await h.slash(BOB, TABLE, "history")
        assert "try again in 20 s" in (await h.slash(BOB, TABLE, "history")).content
        # open: refused attempts (nothing posted) do not count; two tables a minute do
        assert "already has" not in (await h.slash(BOB, TABLE, "a5-draw open")).content
        again = await h.slash(BOB, TABLE, "a5-draw open")
        assert "already has" in again.content
        await h.slash(BOB, OTHER, "a6-draw open")
        assert h.bot.manager.has_table(OTHER)
        third = await h.slash(BOB, OTHER, "a6-draw open")
        assert third.content == "Slow down: try again in 60 s."


async def test_repeated_table_posts_nothing_and_points_at_the_message(tmp_path):
    clock = Clock()
    async with DiscordHarness(make_bot(tmp_path / "p.db", clock)) as h:
        await started(h)
        await h.slash(BOB, TABLE, "a5-draw open")
        table_id = table_of(h, TABLE).id
        public = len(h.messages(TABLE, include_ephemeral=False))
        again = await h.slash(CAROL, TABLE, "a5-draw table")
        link = f"https://discord.com/channels/{GUILD}/{TABLE}/{table_id}"
        assert again.ephemeral and link in again.content
        assert len(h.messages(TABLE, include_ephemeral=False)) == public
        clock.now += 61
        reposted = await h.slash(CAROL, TABLE, "a5-draw table")
        assert reposted.message.deleted and table_of(h, TABLE).id != table_id
        assert len(h.messages(TABLE, include_ephemeral=False)) == public + 1
        # and now the link points at the new message
        clock.now += 1
        pointed = await h.slash(BOB, TABLE, "a5-draw table")
        assert str(table_of(h, TABLE).id) in pointed.content


async def test_button_spam_is_limited_for_the_spammer_only(tmp_path):
    clock = Clock()
    async with DiscordHarness(make_bot(tmp_path / "p.db", clock)) as h:
        await started(h)
        await h.slash(BOB, TABLE, "a5-draw open")
        table = table_of(h, TABLE)
        join = table.custom_id_for("Join")
        answers = [await h.click(BOB, table, join) for _ in range(16)]
        assert "seat" in answers[0].content
        assert all("already seated" in a.content for a in answers[1:15])
        assert answers[15].ephemeral
        assert answers[15].content == "You are clicking too fast: try again in 5 s."
        # Carol at the same table is not slowed down
        carol = await h.click(CAROL, table, join)
        assert "seat" in carol.content and "too fast" not in carol.content
        clock.now += 5
        assert "already seated" in (await h.click(BOB, table, join)).content


async def test_each_server_sets_when_its_idle_tables_close(tmp_path):
    """/settings idle-close: the server's own idle time, shown, checked, kept, applied."""
    clock = Clock()
    path = tmp_path / "p.db"
    async with DiscordHarness(make_bot(path, clock)) as h:
        await started(h)
        shown = await h.slash(ALICE, TABLE, "settings show")
        assert "Idle time before a table closes" in str(shown.embeds)
        assert "24 h (the bot's default)" in str(shown.embeds)
        refused = await h.slash(BOB, TABLE, "settings idle-close", hours=1)
        assert refused.ephemeral and "Only moderators" in refused.content
        # Discord's own form keeps the hours in range; the bot checks again
        settings = command(h, "settings")["options"]
        hours = next(o for o in settings if o["name"] == "idle-close")["options"][0]
        assert (hours["min_value"], hours["max_value"]) == (0, 8760)
        with pytest.raises(BadSetting):
            await h.bot.guild_settings.set_idle_close(GUILD, 9000)
        ok = await h.slash(ALICE, TABLE, "settings idle-close", hours=0.5)
        assert ok.content == "Idle time before a table closes is now: 0.5 h."
        await h.slash(BOB, TABLE, "a5-draw open")
        table = table_of(h, TABLE)
        clock.now += 29 * 60
        assert await h.bot.manager.close_idle() == 0
        clock.now += 2 * 60  # 31 minutes without a step: past this server's half hour
        assert await h.bot.manager.close_idle() == 1
        await h.settle()
        assert not h.bot.manager.has_table(TABLE)
        closed = h.message(table.id)
        assert "This table is closed." in closed.text and not closed.custom_ids()
        never = await h.slash(ALICE, TABLE, "settings idle-close", hours=0)
        assert never.content == "Idle time before a table closes is now: never."
        await h.slash(BOB, TABLE, "a5-draw open")
        clock.now += 1000 * 3600
        assert await h.bot.manager.close_idle() == 0 and h.bot.manager.has_table(TABLE)
        await h.restart(make_bot(path, clock))  # stored: a new process reads it back
        assert "never" in str((await h.slash(ALICE, TABLE, "settings show")).embeds)
        clock.now += 1000 * 3600
        assert await h.bot.manager.close_idle() == 0 and h.bot.manager.has_table(TABLE)
        back = await h.slash(ALICE, TABLE, "settings idle-close")
        assert back.content == "Idle time before a table closes is now: 24 h (the bot's default)."
        assert await h.bot.manager.close_idle() == 1  # 2,000 h idle: past the bot's 24 h
