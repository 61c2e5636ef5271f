"""/leaderboard, /balance, /refill, /history and /rules."""

from __future__ import annotations

import time
from typing import Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot.engine import VARIANTS
from bot.history import summarize
from bot.rules_text import COMMON, RULES
from bot.tables.models import Refused
from bot.ui.handlers import reply
from bot.ui.limits import cooldown

Game = Literal["a6-draw", "a5-draw", "a5-triple", "abyssinia"]


class General(commands.Cog):
    def __init__(self, bot: commands.Bot) -> None:
        self.bot = bot

    @property
    def manager(self):
        return self.bot.manager  # type: ignore[attr-defined]

    async def _guild(self, interaction: discord.Interaction) -> int | None:
        if interaction.guild_id is None:
            await reply(interaction, "Chips are kept per server: use this in a server channel.")
        return interaction.guild_id

    @app_commands.command(name="leaderboard", description="Players ranked by net chips won")
    @app_commands.guild_only()
    @cooldown("leaderboard")
    @app_commands.describe(page="Page number (10 players a page)")
    async def leaderboard(
        self, interaction: discord.Interaction, page: app_commands.Range[int, 1, 1000] = 1
    ) -> None:
        if (guild := await self._guild(interaction)) is None:
            return
        rows, total = await self.manager.store.leaderboard(guild, page, 10)
        pages = max(1, -(-total // 10))
        embed = discord.Embed(title="Leaderboard — net chips won", colour=discord.Colour.gold())
        lines = [
            f"**{r.rank}.** {r.display_name} — {r.net_won:+d} in {r.hands_played} hands"
            for r in rows
        ]
        embed.description = "\n".join(lines) or "No one on this page yet."
        embed.set_footer(text=f"Page {min(page, pages)} of {pages} · refills don't count")
        await interaction.response.send_message(embed=embed)

    @app_commands.command(name="balance", description="Your chips on this server")
    @app_commands.guild_only()
    async def balance(self, interaction: discord.Interaction) -> None:
        if (guild := await self._guild(interaction)) is None:
            return
        a = await self.manager.balance(guild, interaction.user.id, interaction.user.display_name)
        text = (
            f"You have **{a.balance}** chips ({a.available} available, {a.held} held in hands). "
            f"Net won: {a.net_won:+d} in {a.hands_played} hands; refills: {a.refilled}."
        )
        await reply(interaction, text)

    @app_commands.command(name="refill", description="Top your chips back up when you are broke")
    @app_commands.guild_only()
    async def refill(self, interaction: discord.Interaction) -> None:
        if (guild := await self._guild(interaction)) is None:
            return
        try:
            added = await self.manager.refill(
                guild, interaction.user.id, interaction.user.display_name
            )
        except Refused as exc:
            await reply(interaction, f"No refill: {exc}.")
            return
        await reply(interaction, f"Refilled {added} chips. Refills don't count on the leaderboard.")

    @app_commands.command(name="history", description="Your recent hands")
    @app_commands.guild_only()
    @cooldown("history")
    @app_commands.describe(count="How many hands (1–10)")
    async def history(
        self, interaction: discord.Interaction, count: app_commands.Range[int, 1, 10] = 5
    ) -> None:
        if (guild := await self._guild(interaction)) is None:
            return
        hands = await self.manager.store.recent_hands(guild, interaction.user.id, count)
        if not hands:
            await reply(interaction, "You have no finished hands on this server yet.")
            return
        lines = [summarize(h, interaction.user.id, time.time()) for h in hands]
        await reply(interaction, "\n".join(lines)[:1900])

    @app_commands.command(name="rules", description="The table conventions of a game")
    @app_commands.describe(game="Which game")
    async def rules(self, interaction: discord.Interaction, game: Game) -> None:
        embed = discord.Embed(title=VARIANTS[game].name, description=RULES[game])
        embed.add_field(name="All tables", value=COMMON)
        await reply(interaction, "", embed=embed)


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(General(bot))
