"""/season standings|list and /season-admin start|end: a server's tournament seasons.

Standings are paged as /leaderboard is and answered in public in the server's
language; the moderators' group is hidden from members without Manage Channels and
checks again at run time (the moderator role of /settings counts too).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot.storage.seasons import SeasonKind, SeasonRefused, SeasonRow, Seasons
from bot.tables.guild_settings import GuildSettingsBook
from bot.ui import handlers, i18n
from bot.ui.catalog import t
from bot.ui.limits import cooldown
from bot.ui.moderation import is_moderator
from bot.ui.text import esc
from bot.ui.text import slash as slash_name

if TYPE_CHECKING:
    from bot.client import PokerBot

PER_PAGE = 10


def when(season: SeasonRow) -> str:
    """The season's window as Discord dates (each reader sees their own calendar)."""
    start = f"<t:{int(season.started_at)}:D>"
    if season.ended_at is None:
        return t("season.running", start=start)
    return t("season.window", start=start, end=f"<t:{int(season.ended_at)}:D>")


def label(season: SeasonRow) -> str:
    """The season's number and name."""
    if season.name:
        return t("season.label.named", number=season.number, name=esc(season.name))
    return t("season.label", number=season.number)


def title(season: SeasonRow) -> str:
    if season.name:
        return t("season.title.named", number=season.number, name=esc(season.name))
    return t("season.title", number=season.number)


@app_commands.guild_only()
class SeasonCommands(
    commands.GroupCog, group_name="season", group_description="Tournament seasons"
):
    def __init__(self, bot: PokerBot) -> None:
        self.bot = bot

    @property
    def seasons(self) -> Seasons:
        return self.bot.seasons

    @app_commands.command(name="standings", description="A season's tournament standings")
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
        await interaction.response.defer(thinking=True)  # public; answered before the read
        async with i18n.public(self.bot, guild, interaction.guild_locale):
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

    @app_commands.command(name="list", description="This server's seasons, the newest first")
    @cooldown("leaderboard")
    @app_commands.describe(page="Page number (10 seasons a page)")
    async def list_seasons(
        self, interaction: discord.Interaction, page: app_commands.Range[int, 1, 1000] = 1
    ) -> None:
        guild = interaction.guild_id
        assert guild is not None  # guild-only
        await interaction.response.defer(thinking=True)
        rows, total = await self.seasons.seasons(guild, page, PER_PAGE)
        pages = max(1, -(-total // PER_PAGE))
        async with i18n.public(self.bot, guild, interaction.guild_locale):
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
        return self.bot.seasons

    @property
    def book(self) -> GuildSettingsBook:
        return self.bot.guild_settings

    async def interaction_check(self, interaction: discord.Interaction) -> bool:
        if interaction.guild_id is None:
            return False  # guild-only: Discord does not offer it elsewhere
        if not is_moderator(interaction, await self.book.get(interaction.guild_id)):
            await handlers.reply(interaction, t("mod.only"))
            return False
        return True

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
    await bot.add_cog(SeasonCommands(bot))
    await bot.add_cog(SeasonAdmin(bot))
