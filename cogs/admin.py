"""Tables in threads: a table closes when its thread is archived or deleted.

THREAD_UPDATE and THREAD_DELETE reach the bot with the default intents (the
``guilds`` intent; nothing privileged). The raw events are used so an uncached
thread is seen too. An archived or deleted thread can no longer show the table
or take its buttons, so the table closes at once as with ``force``: a hand in
play is cancelled and every player gets back exactly what they put in.
"""

from __future__ import annotations

import logging

import discord
from discord.ext import commands

log = logging.getLogger(__name__)


class ThreadTables(commands.Cog):
    def __init__(self, bot: commands.Bot) -> None:
        self.bot = bot

    @property
    def manager(self):
        return self.bot.manager  # type: ignore[attr-defined]

    async def _close(self, thread_id: int) -> None:
        await self.manager.close_gone([thread_id])

    @commands.Cog.listener()
    async def on_raw_thread_update(self, payload: discord.RawThreadUpdateEvent) -> None:
        if payload.data.get("thread_metadata", {}).get("archived"):
            await self._close(payload.thread_id)

    @commands.Cog.listener()
    async def on_raw_thread_delete(self, payload: discord.RawThreadDeleteEvent) -> None:
        await self._close(payload.thread_id)


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(ThreadTables(bot))
