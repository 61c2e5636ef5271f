"""/table-admin close|kick: moderators' commands, out of members' sight.

Discord honours ``default_permissions`` only on top-level commands, so these live in a
group of their own, hidden from members without Manage Channels; since a server admin
can change who sees it, every command checks again at run time (the moderator role of
/settings counts too). The opener's plain ``close`` stays in each game's group.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot.tables.guild_settings import GuildSettingsBook
from bot.tables.manager import TableManager
from bot.tables.models import Refused
from bot.ui import handlers
from bot.ui.catalog import t
from bot.ui.moderation import moderators_only
from bot.ui.text import esc

if TYPE_CHECKING:
    from bot.client import PokerBot


@app_commands.guild_only()
@app_commands.default_permissions(manage_channels=True)
class TableAdmin(
    commands.GroupCog,
    group_name="table-admin",
    group_description="Moderators: this channel's table",
):
    def __init__(self, bot: PokerBot) -> None:
        self.bot = bot

    @property
    def manager(self) -> TableManager:
        return self.bot.app.manager

    @property
    def book(self) -> GuildSettingsBook:
        return self.bot.app.guild_settings

    async def interaction_check(self, interaction: discord.Interaction) -> bool:
        return await moderators_only(interaction, self.book)

    def _table(self, interaction: discord.Interaction) -> int:
        channel_id = interaction.channel_id or 0
        self.manager.view(channel_id)  # Refused (no table here) goes to the error handler
        return channel_id

    @app_commands.command(name="close", description="Close this channel's table")
    @app_commands.describe(
        now="Cancel the hand in play now, everyone gets their chips back (default: yes)"
    )
    async def close(self, interaction: discord.Interaction, now: bool = True) -> None:
        await handlers.answer_first(interaction)
        try:
            ch = self._table(interaction)
            closed = await self.manager.close_table(
                ch, interaction.user.id, moderator=True, force=now
            )
        except Refused as exc:
            await handlers.refuse(interaction, exc, interaction.channel_id)
            return
        await handlers.reply(interaction, t("close.done" if closed else "close.after_hand"))

    @app_commands.command(name="kick", description="Remove a player from this channel's table")
    @app_commands.describe(player="The seated player to remove (they may rejoin)")
    async def kick(self, interaction: discord.Interaction, player: discord.User) -> None:
        await handlers.answer_first(interaction)
        try:
            ch = self._table(interaction)
            seat = next((s for s in self.manager.view(ch).seats if s.user_id == player.id), None)
            now = await self.manager.kick(ch, player.id)
        except Refused as exc:
            await handlers.refuse(interaction, exc, interaction.channel_id)
            return
        name = seat.name if seat else player.display_name
        await handlers.reply(
            interaction, t("kick.now" if now else "kick.after_hand", name=esc(name))
        )


async def setup(bot: PokerBot) -> None:
    await bot.add_cog(TableAdmin(bot))
