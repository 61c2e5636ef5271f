"""The players' DM channels: each created once and stored, and whether a player's DMs are closed.

Stored, so a DM costs one request (also after a restart: discord.py remembers only
the last 128 DM channels), and a closed DM is tried once, not at every deal.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

import discord

from bot.storage.dm_channels import DmChannel

if TYPE_CHECKING:
    from bot.tables.manager import TableManager


class DmBook:
    def __init__(self, client: discord.Client, manager: TableManager) -> None:
        self.client = client
        self.manager = manager
        #: user id -> their DM channel, and whether their DMs are closed
        self.channels: dict[int, DmChannel] = {}

    async def load(self) -> None:
        """Read the stored DM channels (at start-up)."""
        self.channels = await self.manager.dm_channels()

    async def channel(self, user_id: int) -> discord.PartialMessageable:
        """The user's DM channel, created (one request) only the first time ever."""
        known = self.channels.get(user_id)
        if known is None:
            dm = await self.client.create_dm(discord.Object(user_id))
            known = self.channels[user_id] = DmChannel(user_id, dm.id)
            await self.manager.set_dm_channel(known)
        return self.client.get_partial_messageable(
            known.channel_id, type=discord.ChannelType.private
        )

    def closed(self, user_id: int) -> bool:
        known = self.channels.get(user_id)
        return known is not None and known.closed

    def known(self, user_id: int) -> bool:
        """A DM channel is known and was not found closed."""
        known = self.channels.get(user_id)
        return known is not None and not known.closed

    async def send(self, user_id: int, **content: Any) -> bool:
        """Send a DM unless the user's DMs are known to be closed; a refusal (403) marks them
        closed until ``reopen``. True if it was sent."""
        if self.closed(user_id):
            return False
        dm = await self.channel(user_id)
        try:
            await dm.send(**content)
        except discord.Forbidden:
            await self._mark(user_id, closed=True)
            return False
        return True

    async def reopen(self, user_id: int) -> None:
        """Try the user's DMs again from now on (they joined again, or asked to)."""
        if self.closed(user_id):
            await self._mark(user_id, closed=False)

    async def _mark(self, user_id: int, *, closed: bool) -> None:
        known = self.channels.get(user_id)
        if known is None or known.closed == closed:
            return
        known = self.channels[user_id] = replace(known, closed=closed)
        await self.manager.set_dm_channel(known)
