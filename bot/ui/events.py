"""A tournament's Discord Scheduled Event: create, move, cancel and complete it.

One EXTERNAL event per scheduled tournament, located at its channel's link, with its
start and an end estimate (Discord requires both for an external event). The bot needs
Create Events for this only: without it (403) every call answers None or False and the
tournament goes on without an event. Discord's status rules: a scheduled event becomes
active or cancelled, an active one completed; completed and cancelled are final.
"""

from __future__ import annotations

import logging
from datetime import datetime

import discord

log = logging.getLogger(__name__)
LOCATION_MAX = 100  # Discord's limit on an external event's location


def channel_link(guild_id: int, channel_id: int) -> str:
    return f"https://discord.com/channels/{guild_id}/{channel_id}"[:LOCATION_MAX]


async def create_event(
    guild: discord.Guild,
    *,
    name: str,
    start: datetime,
    end: datetime,
    channel_id: int,
    description: str | None = None,
) -> int | None:
    """The new event's id; None when the bot may not create events there."""
    try:
        event = await guild.create_scheduled_event(
            name=name[:100],
            start_time=start,
            end_time=end,
            entity_type=discord.EntityType.external,
            privacy_level=discord.PrivacyLevel.guild_only,
            location=channel_link(guild.id, channel_id),
            description=description or discord.utils.MISSING,
        )
    except discord.Forbidden:
        log.info("guild %s: no Create Events permission, the tournament has no event", guild.id)
        return None
    return event.id


async def _event(guild: discord.Guild, event_id: int) -> discord.ScheduledEvent | None:
    try:
        return await guild.fetch_scheduled_event(event_id)
    except (discord.NotFound, discord.Forbidden):
        return None


async def move_event(
    guild: discord.Guild, event_id: int, *, start: datetime, end: datetime
) -> bool:
    """Give the event the tournament's new start and end estimate."""
    event = await _event(guild, event_id)
    if event is None or event.status is not discord.EventStatus.scheduled:
        return False
    try:
        await event.edit(start_time=start, end_time=end)
    except discord.Forbidden:
        return False
    return True


async def cancel_event(guild: discord.Guild, event_id: int) -> bool:
    """Cancel the event of a tournament cancelled before it started."""
    event = await _event(guild, event_id)
    if event is None or event.status is not discord.EventStatus.scheduled:
        return False
    try:
        await event.cancel()
    except discord.Forbidden:
        return False
    return True


async def complete_event(guild: discord.Guild, event_id: int) -> bool:
    """Mark the event completed when the tournament ends (started first if needed)."""
    event = await _event(guild, event_id)
    if event is None or event.status in (
        discord.EventStatus.completed,
        discord.EventStatus.cancelled,
    ):
        return False
    try:
        if event.status is discord.EventStatus.scheduled:
            event = await event.start()
        await event.end()
    except discord.Forbidden:
        return False
    return True
