"""/leaderboard, /balance, /refill, /history and /rules."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot.tables.manager import TableManager
from bot.tables.models import Refused
from bot.ui.answering import Ack, acknowledge
from bot.ui.catalog import t
from bot.ui.choices import Game
from bot.ui.handlers import answer_first, refuse, reply
from bot.ui.history_lines import summarize
from bot.ui.limits import cooldown
from bot.ui.replay_message import replay_picker
from bot.ui.text import esc
from bot.ui.text import game as game_name

if TYPE_CHECKING:
    from bot.client import PokerBot


class General(commands.Cog):
    def __init__(self, bot: PokerBot) -> None:
        self.bot = bot

    @property
    def manager(self) -> TableManager:
        return self.bot.app.manager

    async def _guild(self, interaction: discord.Interaction) -> int | None:
        if interaction.guild_id is None:
            await reply(interaction, t("refused.guild_only"))
        return interaction.guild_id

    @app_commands.command(
        name="leaderboard",
        description="Players ranked by net chips won",
        extras={"ack": Ack.PUBLIC},  # a public answer: deferred publicly (bot/ui/answering.py)
    )
    @app_commands.guild_only()
    @cooldown("leaderboard")
    @app_commands.describe(page="Page number (10 players a page)")
    async def leaderboard(
        self, interaction: discord.Interaction, page: app_commands.Range[int, 1, 1000] = 1
    ) -> None:
        if (guild := await self._guild(interaction)) is None:
            return
        await acknowledge(interaction, Ack.PUBLIC)  # before the read; after the checks
        rows, total = await self.bot.app.store.ledger.leaderboard(guild, page, 10)
        pages = max(1, -(-total // 10))
        async with self.bot.app.languages.public(
            guild, interaction.guild_locale
        ):  # a public answer
            embed = discord.Embed(title=t("leaderboard.title"), colour=discord.Colour.gold())
            lines = [
                t(
                    "leaderboard.row",
                    rank=r.rank,
                    name=esc(r.display_name),
                    net=r.net_won,
                    count=r.hands_played,
                )
                for r in rows
            ]
            if lines:
                embed.description = "\n".join(lines)
                embed.set_footer(text=t("leaderboard.footer", page=page, pages=pages))
            elif total:
                embed.description = t("leaderboard.beyond", page=page, count=pages)
            else:
                embed.description = t("leaderboard.empty")
        await interaction.followup.send(embed=embed)

    @app_commands.command(name="balance", description="Your chips on this server")
    @app_commands.guild_only()
    async def balance(self, interaction: discord.Interaction) -> None:
        if (guild := await self._guild(interaction)) is None:
            return
        await answer_first(interaction)
        a = await self.manager.balance(guild, interaction.user.id, interaction.user.display_name)
        text = t(
            "balance",
            balance=a.balance,
            available=a.available,
            held=a.held,
            net=a.net_won,
            count=a.hands_played,
            refilled=a.refilled,
        )
        await reply(interaction, text)

    @app_commands.command(name="refill", description="Top your chips back up when you are broke")
    @app_commands.guild_only()
    async def refill(self, interaction: discord.Interaction) -> None:
        if (guild := await self._guild(interaction)) is None:
            return
        await answer_first(interaction)
        try:
            added = await self.manager.refill(
                guild, interaction.user.id, interaction.user.display_name
            )
        except Refused as exc:
            await refuse(interaction, exc)
            return
        await reply(interaction, t("done.refill", added=added))

    @app_commands.command(name="history", description="Your recent hands")
    @app_commands.guild_only()
    @cooldown("history")
    @app_commands.describe(count="How many hands (1–10)")
    async def history(
        self, interaction: discord.Interaction, count: app_commands.Range[int, 1, 10] = 5
    ) -> None:
        if (guild := await self._guild(interaction)) is None:
            return
        await answer_first(interaction)
        hands = await self.bot.app.store.history.recent_hands(guild, interaction.user.id, count)
        if not hands:
            await reply(interaction, t("history.none"))
            return
        lines = [summarize(h, interaction.user.id, time.time()) for h in hands]
        picker = replay_picker(interaction.user.id, [h.hand_id for h in hands])  # issue 21
        await reply(interaction, "\n".join(lines)[:1900], view=picker)

    @app_commands.command(name="rules", description="The table conventions of a game")
    @app_commands.describe(game="Which game")
    async def rules(self, interaction: discord.Interaction, game: Game) -> None:
        embed = discord.Embed(title=game_name(game), description=t(f"rules.{game}"))
        embed.add_field(name=t("rules.all_tables"), value=t("rules.common"))
        await reply(interaction, "", embed=embed)


async def setup(bot: PokerBot) -> None:
    await bot.add_cog(General(bot))
