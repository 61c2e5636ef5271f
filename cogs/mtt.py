"""/mtt create|start|reschedule|cancel: multi-table tournaments (issue 37).

The commands only translate between Discord and ``bot.ui.mtt.MultiTable``; creating one
is limited like ``/sitngo create``: the same rate limit, the server's who-opens and
allowed channels. The standings are ``/sitngo standings`` (every tournament counts).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot.engine import VARIANTS
from bot.tables.rotation import EVERY_RANGE
from bot.tournaments.multi_table import MAX_ENTRANTS
from bot.tournaments.service import MAX_FEE
from bot.tournaments.structures import MAX_STACK, Speed
from bot.ui import handlers
from bot.ui.app import MttDesk
from bot.ui.catalog import t
from bot.ui.limits import cooldown, within_budget
from bot.ui.moderation import is_moderator, open_refusal

if TYPE_CHECKING:
    from bot.client import PokerBot

MOST_SEATS = max(v.max_seats for v in VARIANTS.values())
MOST_MINUTES = 60 * 24 * 30  # a start at most 30 days ahead
FEWEST, MOST = EVERY_RANGE  # a mixed tournament's hands of each game


@app_commands.guild_only()
class MttCog(commands.GroupCog, group_name="mtt", group_description="Multi-table tournaments"):
    def __init__(self, bot: PokerBot) -> None:
        self.bot = bot

    @property
    def mtt(self) -> MttDesk:
        return self.bot.app.mtt

    @commands.Cog.listener()
    async def on_guild_channel_delete(self, channel: discord.abc.GuildChannel) -> None:
        await self.mtt.channel_gone(channel.guild.id, channel.id)

    async def interaction_check(self, interaction: discord.Interaction) -> bool:
        if interaction.guild_id is None or interaction.channel_id is None:
            await handlers.reply(interaction, t("refused.dm_only"))
            return False
        return await within_budget(interaction)

    async def _moderator(self, interaction: discord.Interaction) -> bool:
        return is_moderator(
            interaction, await self.bot.app.guild_settings.get(interaction.guild_id or 0)
        )

    async def _which(self, interaction: discord.Interaction, number: int | None) -> int | None:
        if number is not None:
            return number
        found = await self.mtt.here(interaction.guild_id or 0, interaction.channel_id or 0)
        if found is None:
            await handlers.reply(interaction, t("mtt.none_here"))
        return found

    @app_commands.command(name="create", description="Create a multi-table tournament here")
    @app_commands.describe(
        game="The game played",
        table_size="Seats at each table",
        cap="Most entrants; without a start time it starts when they are all registered",
        speed="How fast the stakes rise (default: regular)",
        stack="Starting chips of each player (default 3000)",
        fee="Entry fee in the server's chips (default 0: a freeroll)",
        start_in="Minutes until the start (a Discord event is made for it)",
        late_levels="Levels during which late players may still register (default 0)",
        start_when="Start as soon as this many have registered (2 to the cap)",
        games="A mixed tournament's games, like a6-draw a5-triple abyssinia (instead of game)",
        rotation="How a mixed tournament's games change (default: every N hands)",
        hands="Hands of each game, for a rotation every N hands (default 6)",
    )
    @app_commands.choices(
        game=[app_commands.Choice(name=v, value=v) for v in VARIANTS],
        speed=[app_commands.Choice(name=s.value, value=s.value) for s in Speed],
    )
    @cooldown("open", count=False)
    async def create(
        self,
        interaction: discord.Interaction,
        table_size: app_commands.Range[int, 2, MOST_SEATS],
        cap: app_commands.Range[int, 2, MAX_ENTRANTS * 10],
        game: str | None = None,
        speed: str = Speed.REGULAR.value,
        stack: app_commands.Range[int, 1, MAX_STACK] | None = None,
        fee: app_commands.Range[int, 0, MAX_FEE] = 0,
        start_in: app_commands.Range[int, -MOST_MINUTES, MOST_MINUTES] | None = None,
        late_levels: app_commands.Range[int, 0, 20] = 0,
        start_when: app_commands.Range[int, 2, MAX_ENTRANTS] | None = None,
        games: str | None = None,
        rotation: Literal["hands", "level"] = "hands",
        hands: app_commands.Range[int, FEWEST, MOST] | None = None,
    ) -> None:
        await handlers.answer_first(interaction)
        settings = await self.bot.app.guild_settings.get(interaction.guild_id or 0)
        if (refusal := open_refusal(interaction, settings)) is not None:  # as for a table
            await handlers.reply(interaction, refusal)
            return
        chosen = [g.lower() for g in re.split(r"[\s,;]+", games or "") if g]
        if (game is None) == (not chosen):  # one game, or a mixed one's games: one of them
            await handlers.reply(
                interaction, t("mtt.refused.game_and_games" if chosen else "mtt.refused.no_game")
            )
            return
        created = await self.mtt.create(
            interaction, game or chosen[0], table_size=table_size, stack=stack,
            speed=Speed(speed), fee=fee, cap=cap, start_in=start_in, late_levels=late_levels,
            start_when=start_when, games=chosen, rotation=rotation,
            every=hands if rotation == "hands" else None,
        )  # fmt: skip
        if created:
            self.bot.app.limits.note("open", interaction.user.id)

    @app_commands.command(name="start", description="Start a tournament now (creator or moderator)")
    @app_commands.describe(number="The tournament's number (default: the one open here)")
    async def start(self, interaction: discord.Interaction, number: int | None = None) -> None:
        await handlers.answer_first(interaction)
        if (tid := await self._which(interaction, number)) is not None:
            moderator = await self._moderator(interaction)
            await self.mtt.start(interaction, tid, moderator=moderator)

    @app_commands.command(name="reschedule", description="Move a tournament's start")
    @app_commands.describe(
        start_in="Minutes from now until the new start",
        number="The tournament's number (default: the one open here)",
    )
    async def reschedule(
        self,
        interaction: discord.Interaction,
        start_in: app_commands.Range[int, -MOST_MINUTES, MOST_MINUTES],
        number: int | None = None,
    ) -> None:
        await handlers.answer_first(interaction)
        if (tid := await self._which(interaction, number)) is not None:
            moderator = await self._moderator(interaction)
            await self.mtt.reschedule(interaction, tid, start_in, moderator=moderator)

    @app_commands.command(name="cancel", description="Cancel a tournament: every fee comes back")
    @app_commands.describe(number="The tournament's number (default: the one open here)")
    async def cancel(self, interaction: discord.Interaction, number: int | None = None) -> None:
        await handlers.answer_first(interaction)
        if (tid := await self._which(interaction, number)) is not None:
            moderator = await self._moderator(interaction)
            await self.mtt.cancel(interaction, tid, moderator=moderator)


async def setup(bot: PokerBot) -> None:
    await bot.add_cog(MttCog(bot))
