"""Two moderators' /settings changes at once both stay (issue 34, item 3), end to end.

The real bot through fakediscord/harness.py on a real SQLite file: both interactions
are in flight together, both are answered, and what the server shows (and keeps across
a restart) has both changes. Before the fix the second write undid the first.
"""

from __future__ import annotations

import asyncio

from fakediscord.harness import DiscordHarness
from tests.support.moderated_server import (
    ALICE,
    DAVE,
    GUILD,
    MOD_ROLE,
    OTHER,
    TABLE,
    make_bot,
    started,
)


async def test_two_settings_changes_at_once_both_stay(tmp_path):
    path = tmp_path / "p.db"
    async with DiscordHarness(make_bot(path)) as h:
        await started(h)
        await h.slash(ALICE, TABLE, "settings moderator-role", role=MOD_ROLE)
        first, second = await asyncio.gather(
            h.slash(ALICE, TABLE, "settings channel-allow", channel=TABLE),
            h.slash(DAVE, TABLE, "settings channel-allow", channel=OTHER),
        )
        assert first.ephemeral and second.ephemeral
        assert "Channels for tables is now" in first.content
        assert "Channels for tables is now" in second.content
        turn, language = await asyncio.gather(
            h.slash(ALICE, TABLE, "settings turn-time", seconds=30),
            h.slash(DAVE, TABLE, "settings language", language="vi"),
        )
        assert turn.content == "Turn time of new tables is now: 30 s."
        assert language.ephemeral
        settings = await h.bot.guild_settings.get(GUILD)
        assert sorted(settings.allowed_channels) == sorted([TABLE, OTHER])
        assert (settings.turn_timeout, settings.language) == (30, "vi")
        await h.restart(make_bot(path))  # and the database holds both
        shown = await h.slash(ALICE, TABLE, "settings show")
        text = str(shown.embeds)
        assert f"<#{TABLE}>" in text and f"<#{OTHER}>" in text and "30 s" in text
        stored = await h.bot.guild_settings.get(GUILD)
        assert sorted(stored.allowed_channels) == sorted([TABLE, OTHER])
        assert (stored.turn_timeout, stored.language) == (30, "vi")
