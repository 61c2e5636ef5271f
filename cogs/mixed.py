"""/mixed: open a table that rotates the games, choose the next game, a mixed table's rules.

At a mixed table the commands of any of its games (``/a5-draw join``, ``/abyssinia
buy`` …) work as at a one-game table; these commands only translate between Discord
and the table manager.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot.engine import VARIANTS
from bot.tables.manager import TableManager
from bot.tables.models import Code, Refused
from bot.tables.rotation import EVERY_RANGE
from bot.tables.seating import TIMEOUT_RANGE
from bot.ui import handlers, practice
from bot.ui.catalog import t
from bot.ui.limits import within_budget
from bot.ui.mixed_text import mixed_rules
from bot.ui.moderation import open_refusal
from bot.ui.text import game

if TYPE_CHECKING:
    from bot.client import PokerBot

Game = Literal["a6-draw", "a5-draw", "a5-triple", "abyssinia"]
Kind = Literal["orbit", "hands", "choice"]
LOW, HIGH = TIMEOUT_RANGE
FEWEST, MOST = EVERY_RANGE
MOST_SEATS = max(v.max_seats for v in VARIANTS.values())


@app_commands.guild_only()
class MixedCog(commands.GroupCog, group_name="mixed", group_description="Mixed tables"):
    def __init__(self, bot: PokerBot) -> None:
        self.bot = bot

    async def interaction_check(self, interaction: discord.Interaction) -> bool:
        if interaction.guild_id is None or interaction.channel_id is None:
            await handlers.reply(interaction, t("refused.dm_only"))
            return False
        return await within_budget(interaction)

    @property
    def manager(self) -> TableManager:
        return self.bot.app.manager

    @app_commands.command(name="open", description="Open a table that rotates the games")
    @app_commands.describe(
        games="The games, like a6-draw a5-triple abyssinia (default: all four)",
        rotation="How the games change (default: one orbit of each)",
        hands="Hands of each game, for a rotation every N hands",
        seats="Most players at the table (default: the smallest maximum of the games)",
        timeout="Seconds each player has to act (default from the bot's settings)",
        bots="Computer players to seat beside you: a practice table, no chips move",
    )
    async def open_(
        self,
        interaction: discord.Interaction,
        games: str | None = None,
        rotation: Kind = "orbit",
        hands: app_commands.Range[int, FEWEST, MOST] | None = None,
        seats: app_commands.Range[int, 2, MOST_SEATS] | None = None,
        timeout: app_commands.Range[int, LOW, HIGH] | None = None,
        bots: app_commands.Range[int, 1, MOST_SEATS - 1] | None = None,
    ) -> None:
        await handlers.answer_first(interaction)
        channel_id = interaction.channel_id or 0
        book = self.bot.app.guild_settings
        settings = await book.get(interaction.guild_id or 0)
        if (why := open_refusal(interaction, settings)) is not None:
            await handlers.reply(interaction, why)
            return
        chosen = [g for g in re.split(r"[\s,;]+", games or "") if g] or list(VARIANTS)
        try:
            await self.manager.open_mixed(
                interaction.guild_id or 0,
                channel_id,
                [g.lower() for g in chosen],
                rotation,
                hands if rotation == "hands" else None,
                seats,
                timeout if timeout is not None else settings.turn_timeout,
                book.auto_deal(settings),
                opener=interaction.user.id,
            )
        except Refused as exc:
            await handlers.refuse(interaction, exc)
            return
        self.bot.app.limits.note("open", interaction.user.id)
        if bots:
            try:
                await self.manager.join(
                    channel_id, interaction.user.id, interaction.user.display_name
                )
            except Refused as exc:
                await handlers.refuse(interaction, exc, channel_id)
                return
            await practice.add_bots(interaction, channel_id, bots, "normal")
        await interaction.delete_original_response()  # the presenter posts the table

    @app_commands.command(name="choose", description="Dealer's choice: pick the next game")
    @app_commands.describe(game_id="The game of the next orbit")
    @app_commands.rename(game_id="game")
    async def choose(self, interaction: discord.Interaction, game_id: Game) -> None:
        await handlers.answer_first(interaction)
        channel_id = interaction.channel_id or 0
        try:
            await self.manager.choose_game(channel_id, interaction.user.id, game_id)
        except Refused as exc:
            await handlers.refuse(interaction, exc, channel_id)
            return
        await handlers.reply(interaction, t("mixed.chose", game=game(game_id)))

    @app_commands.command(name="rules", description="This channel's mixed table: its games")
    async def rules(self, interaction: discord.Interaction) -> None:
        view = self.manager.find_view(interaction.channel_id or 0)
        if view is None or view.mixed is None:
            code = Code.NO_TABLE if view is None else Code.NOT_MIXED
            await handlers.refuse(interaction, Refused(code), variant="a5-draw")
            return
        await handlers.reply(interaction, mixed_rules(view.mixed))


async def setup(bot: PokerBot) -> None:
    await bot.add_cog(MixedCog(bot))
