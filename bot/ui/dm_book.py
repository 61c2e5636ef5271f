"""The players' DM channels: each created once and stored, and whether a player's DMs are closed.

Stored, so a DM costs one request (also after a restart: discord.py remembers only
the last 128 DM channels), and a closed DM is tried once, not at every deal. Read on
demand, one user at a time, and only the ``kept`` users used most recently stay in
memory: the book does not grow with every user the bot ever met.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import replace
from typing import Any

import discord

from bot.storage.dm_channels import DmChannel, DmChannels

#: users whose DM channels stay in memory (the most recently used)
DMS_KEPT = 10_000


class DmBook:
    def __init__(self, client: discord.Client, stored: DmChannels, *, kept: int = DMS_KEPT) -> None:
        self.client = client
        self.stored = stored  # the DM channels' repository
        self.kept = kept
        #: user id -> their DM channel (None: none stored), most recently used last
        self._channels: OrderedDict[int, DmChannel | None] = OrderedDict()

    def __len__(self) -> int:
        """Users held in memory now."""
        return len(self._channels)

    async def _get(self, user_id: int) -> DmChannel | None:
        """The user's stored DM channel: from memory, else read once from the database."""
        if user_id in self._channels:
            self._channels.move_to_end(user_id)
            return self._channels[user_id]
        known = await self.stored.get(user_id)
        self._keep(user_id, known)
        return known

    def _keep(self, user_id: int, known: DmChannel | None) -> None:
        self._channels[user_id] = known
        self._channels.move_to_end(user_id)
        while len(self._channels) > self.kept:
            self._channels.popitem(last=False)

    async def channel(self, user_id: int) -> discord.PartialMessageable:
        """The user's DM channel, created (one request) only the first time ever."""
        known = await self._get(user_id)
        if known is None:
            dm = await self.client.create_dm(discord.Object(user_id))
            known = DmChannel(user_id, dm.id)
            self._keep(user_id, known)
            await self.stored.save(known)
        return self.client.get_partial_messageable(
            known.channel_id, type=discord.ChannelType.private
        )

    async def closed(self, user_id: int) -> bool:
        known = await self._get(user_id)
        return known is not None and known.closed

    async def known(self, user_id: int) -> bool:
        """A DM channel is known and was not found closed."""
        known = await self._get(user_id)
        return known is not None and not known.closed

    async def send(self, user_id: int, **content: Any) -> bool:
        """Send a DM unless the user's DMs are known to be closed; a refusal (403) marks them
        closed until ``reopen``. True if it was sent."""
        if await self.closed(user_id):
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
        if await self.closed(user_id):
            await self._mark(user_id, closed=False)

    async def _mark(self, user_id: int, *, closed: bool) -> None:
        known = await self._get(user_id)
        if known is None or known.closed == closed:
            return
        known = replace(known, closed=closed)
        self._keep(user_id, known)
        await self.stored.save(known)
