"""/replay, /stats and /export: finished hands looked at again, statistics and exports."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot.storage.totals import StatsKind
from bot.ui import i18n
from bot.ui.catalog import t
from bot.ui.choices import Game, HandKind
from bot.ui.export import DEFAULT_HANDS, MAX_HANDS, send_player_export, server_export
from bot.ui.handlers import answer_first, reply
from bot.ui.limits import cooldown
from bot.ui.moderation import is_moderator
from bot.ui.replay_message import show_step
from bot.ui.stats_view import stats_chart, stats_embed

if TYPE_CHECKING:
    from bot.client import PokerBot


class HistoryCog(commands.Cog):
    """Each command is guild-only itself: on a plain ``Cog`` (not a group) the class
    decorator would mark nothing in the synced schema."""

    def __init__(self, bot: PokerBot) -> None:
        self.bot = bot

    @app_commands.guild_only()
    @app_commands.command(name="replay", description="Replay a finished hand step by step")
    @app_commands.describe(hand="The hand's number (default: your last hand here)")
    @cooldown("replay")
    async def replay(
        self, interaction: discord.Interaction, hand: app_commands.Range[int, 1] | None = None
    ) -> None:
        await answer_first(interaction)
        guild = interaction.guild_id or 0
        if hand is None:
            last = await self.bot.app.exports.player_hand_ids(guild, interaction.user.id, 1)
            if not last:
                await reply(interaction, t("history.none"))
                return
            hand = last[0]
        await show_step(interaction, hand, 0, edit=False)

    @app_commands.guild_only()
    @app_commands.command(name="stats", description="A player's statistics on this server")
    @app_commands.describe(
        player="Whose (default: yours)",
        game="Which game (default: all together)",
        kind="Which hands: cash tables' (default), practice tables' or tournaments'",
    )
    @cooldown("stats")
    async def stats(
        self,
        interaction: discord.Interaction,
        player: discord.Member | None = None,
        game: Game | None = None,
        kind: HandKind = StatsKind.CASH.value,
    ) -> None:
        await answer_first(interaction)
        who = player or interaction.user
        counted = StatsKind(kind)
        totals = await self.bot.app.stats.totals(interaction.guild_id or 0, who.id, game, counted)
        own = who.id == interaction.user.id
        shown = totals if own else totals.public()
        embed = stats_embed(who.display_name, game, shown, own, counted)
        if not shown.hands:
            await reply(interaction, "", embed=embed)
            return
        chart = await stats_chart(who.display_name, shown)
        await reply(interaction, "", embed=embed, file=chart)

    @app_commands.guild_only()
    @app_commands.command(name="export", description="Your hands and ledger as files")
    @app_commands.describe(
        scope="Your own data, or the whole server's (moderators)",
        hands="How many of the latest hands (1–1000)",
        days="Only hands and entries of the last days",
    )
    @cooldown("export")
    async def export(
        self,
        interaction: discord.Interaction,
        scope: Literal["mine", "server"] = "mine",
        hands: app_commands.Range[int, 1, MAX_HANDS] = DEFAULT_HANDS,
        days: app_commands.Range[int, 1, 3650] | None = None,
    ) -> None:
        await answer_first(interaction)
        if scope == "mine":
            await send_player_export(interaction, hands, days)
            return
        settings = await self.bot.app.guild_settings.get(interaction.guild_id or 0)
        if not is_moderator(interaction, settings):
            await reply(interaction, t("export.moderators_only"))
            return
        files, count = await server_export(
            self.bot.app.exports, interaction.guild_id or 0, hands, days
        )
        with i18n.using(interaction.locale):
            await reply(interaction, t("export.server", count=count), files=files)


async def setup(bot: PokerBot) -> None:
    await bot.add_cog(HistoryCog(bot))
