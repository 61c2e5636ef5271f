"""Tables whose place is gone: archived or deleted threads, deleted channels, removed servers.

THREAD_UPDATE, THREAD_DELETE, CHANNEL_DELETE and GUILD_DELETE reach the bot with
the default intents (the ``guilds`` intent; nothing privileged). The raw thread
events are used so an uncached thread is seen too. A table whose place is gone can
no longer be shown or take its buttons, so it closes at once as with ``force``: a
hand in play is cancelled and every player gets back exactly what they put in (a
hand already over is settled first). Once connected, the tables restored at start-up
are checked against Discord, so a thread archived or a channel deleted while the bot
was down closes too.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import discord
from discord.ext import commands

from bot.tables.manager import TableManager

if TYPE_CHECKING:
    from bot.client import PokerBot


log = logging.getLogger(__name__)
MISSING_ACCESS = 50001  # the bot cannot see the channel (it left the server, or lost access)


class Lifecycle(commands.Cog):
    def __init__(self, bot: PokerBot) -> None:
        self.bot = bot
        self._reconciled = False

    @property
    def manager(self) -> TableManager:
        return self.bot.app.manager

    @commands.Cog.listener()
    async def on_raw_thread_update(self, payload: discord.RawThreadUpdateEvent) -> None:
        if payload.data.get("thread_metadata", {}).get("archived"):
            await self.manager.close_gone([payload.thread_id])

    @commands.Cog.listener()
    async def on_raw_thread_delete(self, payload: discord.RawThreadDeleteEvent) -> None:
        await self.manager.close_gone([payload.thread_id])

    @commands.Cog.listener()
    async def on_guild_channel_delete(self, channel: discord.abc.GuildChannel) -> None:
        await self.manager.close_gone([channel.id])

    @commands.Cog.listener()
    async def on_guild_remove(self, guild: discord.Guild) -> None:
        closed = await self.manager.close_gone(self.manager.channels(guild.id))
        log.info("left guild %s: %d tables closed", guild.id, closed)

    @commands.Cog.listener()
    async def on_ready(self) -> None:
        if self._reconciled:  # once per process: later READYs are reconnects
            return
        self._reconciled = True
        gone = [c for c in self.manager.channels() if not await self._still_there(c)]
        if gone:
            closed = await self.manager.close_gone(gone)
            log.info("%d tables closed at start-up: their place is gone", closed)

    async def _still_there(self, channel_id: int) -> bool:
        """Can the table's channel or thread still show it? (Unsure: yes.)"""
        channel = self.bot.get_channel(channel_id)
        if channel is None:
            try:
                channel = await self.bot.fetch_channel(channel_id)
            except discord.NotFound:
                return False
            except discord.Forbidden as exc:
                view = self.manager.find_view(channel_id)
                left = view is not None and self.bot.get_guild(view.guild_id) is None
                return not (exc.code == MISSING_ACCESS and left)
            except discord.HTTPException:
                log.warning("table %s not checked at start-up", channel_id, exc_info=True)
                return True
        return not (isinstance(channel, discord.Thread) and channel.archived)


async def setup(bot: PokerBot) -> None:
    await bot.add_cog(Lifecycle(bot))
