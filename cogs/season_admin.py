"""/season-admin start|end: moderators start and end a server's tournament seasons.

Hidden from members without Manage Channels (``default_permissions``); every command
checks again at run time (the moderator role of /settings counts too).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot.storage.seasons import SeasonKind, SeasonRefused, Seasons
from bot.tables.guild_settings import GuildSettingsBook
from bot.ui import handlers
from bot.ui.catalog import t
from bot.ui.moderation import moderators_only
from bot.ui.season_text import label
from bot.ui.text import slash as slash_name

if TYPE_CHECKING:
    from bot.client import PokerBot


@app_commands.guild_only()
@app_commands.default_permissions(manage_channels=True)
class SeasonAdmin(
    commands.GroupCog,
    group_name="season-admin",
    group_description="Moderators: start and end tournament seasons",
):
    def __init__(self, bot: PokerBot) -> None:
        self.bot = bot

    @property
    def seasons(self) -> Seasons:
        return self.bot.app.seasons

    @property
    def book(self) -> GuildSettingsBook:
        return self.bot.app.guild_settings

    async def interaction_check(self, interaction: discord.Interaction) -> bool:
        return await moderators_only(interaction, self.book)

    @app_commands.command(name="start", description="End the running season and start a new one")
    @app_commands.describe(
        name="The new season's name (up to 60 characters)",
        monthly="Back to monthly seasons instead of one a moderator ends (default: no)",
    )
    async def start(
        self,
        interaction: discord.Interaction,
        name: app_commands.Range[str, 1, 60] | None = None,
        monthly: bool = False,
    ) -> None:
        guild = interaction.guild_id
        assert guild is not None
        await handlers.answer_first(interaction)
        kind = SeasonKind.MONTHLY if monthly else SeasonKind.MANUAL
        season = await self.seasons.start(guild, name, kind)
        await handlers.reply(interaction, t("season.started", label=label(season)))

    @app_commands.command(name="end", description="End the running season now")
    async def end(self, interaction: discord.Interaction) -> None:
        guild = interaction.guild_id
        assert guild is not None
        await handlers.answer_first(interaction)
        try:
            season = await self.seasons.end(guild)
        except SeasonRefused:
            await handlers.reply(interaction, t("season.none_running"))
            return
        command = slash_name("season", "standings")
        await handlers.reply(interaction, t("season.ended", label=label(season), command=command))


async def setup(bot: PokerBot) -> None:
    await bot.add_cog(SeasonAdmin(bot))
