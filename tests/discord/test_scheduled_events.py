"""A tournament's Discord Scheduled Event through the fake Discord: created external at
its channel with a start and an end, moved, cancelled, completed; without the Create
Events permission nothing fails and no event exists."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from bot.ui.events import cancel_event, complete_event, create_event, move_event
from fakediscord.harness import DiscordHarness
from fakediscord.poker import GUILD, PLAYERS, TABLE, make_bot

START = datetime(2027, 1, 9, 18, tzinfo=UTC)


async def test_an_event_is_created_moved_cancelled_and_completed(tmp_path) -> None:
    async with DiscordHarness(make_bot(tmp_path / "e.db")) as h:
        await h.connect(GUILD, {TABLE: "poker"}, PLAYERS)
        guild = h.bot.get_guild(GUILD)
        assert guild is not None
        end = START + timedelta(hours=3)
        first = await create_event(guild, name="Saturday a5-triple", start=START, end=end,
                                   channel_id=TABLE, description="Register in #poker")  # fmt: skip
        assert first is not None
        kept = h.scheduled_events[first]
        assert kept["entity_type"] == 3 and kept["privacy_level"] == 2 and kept["status"] == 1
        assert kept["entity_metadata"] == {
            "location": f"https://discord.com/channels/{GUILD}/{TABLE}"
        }
        assert datetime.fromisoformat(kept["scheduled_start_time"]) == START
        assert datetime.fromisoformat(kept["scheduled_end_time"]) == end
        later = START + timedelta(hours=1)
        assert await move_event(guild, first, start=later, end=later + timedelta(hours=3))
        assert datetime.fromisoformat(h.scheduled_events[first]["scheduled_start_time"]) == later
        assert await cancel_event(guild, first)
        assert h.scheduled_events[first]["status"] == 4
        assert not await cancel_event(guild, first)  # cancelled is final
        assert not await move_event(guild, first, start=START, end=end)
        second = await create_event(guild, name="Sunday", start=START, end=end, channel_id=TABLE)
        assert second is not None
        assert await complete_event(guild, second)  # started, then ended
        assert h.scheduled_events[second]["status"] == 3
        assert not await complete_event(guild, second)
        assert not await cancel_event(guild, 1234)  # unknown: nothing to do


async def test_without_create_events_there_is_no_event_and_no_error(tmp_path) -> None:
    async with DiscordHarness(make_bot(tmp_path / "e.db")) as h:
        await h.connect(GUILD, {TABLE: "poker"}, PLAYERS)
        h.events_allowed = False
        guild = h.bot.get_guild(GUILD)
        assert guild is not None
        made = await create_event(guild, name="Saturday", start=START,
                                  end=START + timedelta(hours=3), channel_id=TABLE)  # fmt: skip
        assert made is None and h.scheduled_events == {}
