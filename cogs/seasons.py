"""/season standings|list: a server's tournament seasons, paged as /leaderboard is and
answered in public in the server's language (moderators' commands: ``season_admin``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot.storage.seasons import SeasonRefused, Seasons
from bot.ui.answering import Ack, acknowledge
from bot.ui.catalog import t
from bot.ui.limits import cooldown
from bot.ui.season_text import label, title, when
from bot.ui.text import esc
from bot.ui.text import slash as slash_name

if TYPE_CHECKING:
    from bot.client import PokerBot

PER_PAGE = 10


@app_commands.guild_only()
class SeasonCommands(
    commands.GroupCog, group_name="season", group_description="Tournament seasons"
):
    def __init__(self, bot: PokerBot) -> None:
        self.bot = bot

    @property
    def seasons(self) -> Seasons:
        return self.bot.app.seasons

    @app_commands.command(
        name="standings",
        description="A season's tournament standings",
        extras={"ack": Ack.PUBLIC},  # a public answer: deferred publicly (bot/ui/answering.py)
    )
    @cooldown("leaderboard")
    @app_commands.describe(
        number="The season's number (default: the season running now)",
        page="Page number (10 players a page)",
    )
    async def standings(
        self,
        interaction: discord.Interaction,
        number: app_commands.Range[int, 1, 100000] | None = None,
        page: app_commands.Range[int, 1, 1000] = 1,
    ) -> None:
        guild = interaction.guild_id
        assert guild is not None  # guild-only
        await acknowledge(interaction, Ack.PUBLIC)  # before the read; after the checks
        async with self.bot.app.languages.public(guild, interaction.guild_locale):
            try:
                season, rows, total = await self.seasons.standings(guild, number, page, PER_PAGE)
            except SeasonRefused as exc:
                await interaction.followup.send(t("season.unknown", number=exc.params["number"]))
                return
            if season is None:
                command = slash_name("season-admin", "start")
                await interaction.followup.send(t("season.none", command=command))
                return
            embed = discord.Embed(title=title(season), colour=discord.Colour.gold())
            pages = max(1, -(-total // PER_PAGE))
            lines = [
                t(
                    "season.row",
                    rank=r.rank,
                    name=esc(r.display_name),
                    points=r.points,
                    wins=r.wins,
                    cashes=r.cashes,
                    entries=r.entries,
                    best=r.best,
                )
                for r in rows
            ]
            if lines:
                embed.description = "\n".join([t("season.columns"), *lines])
            elif total:
                embed.description = t("leaderboard.beyond", page=page, count=pages)
            else:
                embed.description = t("season.empty")
            embed.set_footer(text=t("season.footer", page=page, pages=pages))
            embed.add_field(name=t("season.when"), value=when(season))
        await interaction.followup.send(embed=embed)

    @app_commands.command(
        name="list",
        description="This server's seasons, the newest first",
        extras={"ack": Ack.PUBLIC},  # a public answer: deferred publicly (bot/ui/answering.py)
    )
    @cooldown("leaderboard")
    @app_commands.describe(page="Page number (10 seasons a page)")
    async def list_seasons(
        self, interaction: discord.Interaction, page: app_commands.Range[int, 1, 1000] = 1
    ) -> None:
        guild = interaction.guild_id
        assert guild is not None  # guild-only
        await acknowledge(interaction, Ack.PUBLIC)  # before the read; after the checks
        rows, total = await self.seasons.seasons(guild, page, PER_PAGE)
        pages = max(1, -(-total // PER_PAGE))
        async with self.bot.app.languages.public(guild, interaction.guild_locale):
            embed = discord.Embed(title=t("season.list.title"), colour=discord.Colour.gold())
            lines = [
                t("season.list.row", label=label(s), kind=t(f"season.kind.{s.kind}"), when=when(s))
                for s in rows
            ]
            if lines:
                embed.description = "\n".join(lines)
            else:
                embed.description = t("leaderboard.beyond", page=page, count=pages)
            embed.set_footer(text=t("season.footer", page=page, pages=pages))
        await interaction.followup.send(embed=embed)


async def setup(bot: PokerBot) -> None:
    await bot.add_cog(SeasonCommands(bot))
