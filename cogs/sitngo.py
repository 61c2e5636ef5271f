"""/sitngo create|start|cancel|standings: Sit & Go tournaments (issue 36).

``create ... bots:N`` makes a practice Sit & Go: N computer players take seats at once.

The commands only translate between Discord and ``bot.ui.sitngo.SitNGo``; creating one
is limited like ``/<game> open``: the same rate limit (counted once it is created), the
server's who-opens and allowed channels.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot.engine import VARIANTS
from bot.opponents import LEVELS
from bot.tables.rotation import EVERY_RANGE
from bot.tournaments.service import MAX_FEE
from bot.tournaments.structures import MAX_STACK, Speed
from bot.ui import handlers
from bot.ui.answering import Ack
from bot.ui.app import SitNGoDesk
from bot.ui.catalog import t
from bot.ui.limits import cooldown, within_budget
from bot.ui.moderation import is_moderator, open_refusal

if TYPE_CHECKING:
    from bot.client import PokerBot

MOST_SEATS = max(v.max_seats for v in VARIANTS.values())
Rotation = Literal["hands", "level"]  # a mixed Sit & Go's (bot.tournaments.mixing.MixKind)
FEWEST, MOST = EVERY_RANGE


@app_commands.guild_only()
class SitNGoCog(commands.GroupCog, group_name="sitngo", group_description="Sit & Go tournaments"):
    def __init__(self, bot: PokerBot) -> None:
        self.bot = bot

    @property
    def sitngo(self) -> SitNGoDesk:
        return self.bot.app.sitngo

    @commands.Cog.listener()
    async def on_ready(self) -> None:
        await self.sitngo.resume()  # one started while the bot was stopping

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
        found = await self.sitngo.here(interaction.guild_id or 0, interaction.channel_id or 0)
        if found is None:
            await handlers.reply(interaction, t("sng.none_here"))
        return found

    @app_commands.command(name="create", description="Create a Sit & Go in this channel")
    @app_commands.describe(
        game="The game played",
        seats="Players it takes; it starts when they are all registered",
        speed="How fast the stakes rise (default: regular)",
        stack="Starting chips of each player (default 3000)",
        fee="Entry fee in the server's chips (default 0: a freeroll)",
        bots="Computer players who take seats at once: a practice Sit & Go, no fee or prizes",
        level="How well the computer players play (default: normal)",
        games="A mixed Sit & Go's games, like a6-draw a5-triple abyssinia (instead of game)",
        rotation="How a mixed Sit & Go's games change (default: every N hands)",
        hands="Hands of each game, for a rotation every N hands (default 6)",
    )
    @app_commands.choices(
        game=[app_commands.Choice(name=v, value=v) for v in VARIANTS],
        speed=[app_commands.Choice(name=s.value, value=s.value) for s in Speed],
        level=[app_commands.Choice(name=lv, value=lv) for lv in LEVELS],
    )
    @cooldown("open", count=False)
    async def create(
        self,
        interaction: discord.Interaction,
        seats: app_commands.Range[int, 2, MOST_SEATS],
        game: str | None = None,
        speed: str = Speed.REGULAR.value,
        stack: app_commands.Range[int, 1, MAX_STACK] | None = None,
        fee: app_commands.Range[int, 0, MAX_FEE] = 0,
        bots: app_commands.Range[int, 1, MOST_SEATS - 1] | None = None,
        level: str = "normal",
        games: str | None = None,
        rotation: Rotation = "hands",
        hands: app_commands.Range[int, FEWEST, MOST] | None = None,
    ) -> None:
        await handlers.answer_first(interaction)
        settings = await self.bot.app.guild_settings.get(interaction.guild_id or 0)
        if (refusal := open_refusal(interaction, settings)) is not None:  # as for a table
            await handlers.reply(interaction, refusal)
            return
        chosen = [g.lower() for g in re.split(r"[\s,;]+", games or "") if g]
        if game is not None and chosen:
            await handlers.reply(interaction, t("sng.refused.game_and_games"))
            return
        if game is None and not chosen:
            await handlers.reply(interaction, t("sng.refused.no_game"))
            return
        variant = game or chosen[0]
        every = hands if rotation == "hands" else None  # as /mixed open reads it
        if await self.sitngo.create(
            interaction,
            variant,
            seats,
            Speed(speed),
            stack,
            fee,
            bots=bots or 0,
            level=level,
            games=chosen,
            rotation=rotation,
            every=every,
        ):
            self.bot.app.limits.note("open", interaction.user.id)

    @app_commands.command(
        name="start", description="Start a Sit & Go early (its creator or a moderator)"
    )
    @app_commands.describe(number="The Sit & Go's number (default: the one open here)")
    async def start(self, interaction: discord.Interaction, number: int | None = None) -> None:
        await handlers.answer_first(interaction)
        if (tid := await self._which(interaction, number)) is not None:
            moderator = await self._moderator(interaction)
            await self.sitngo.start(interaction, tid, moderator=moderator)

    @app_commands.command(name="cancel", description="Cancel a Sit & Go: every fee comes back")
    @app_commands.describe(number="The Sit & Go's number (default: the one open here)")
    async def cancel(self, interaction: discord.Interaction, number: int | None = None) -> None:
        await handlers.answer_first(interaction)
        if (tid := await self._which(interaction, number)) is not None:
            moderator = await self._moderator(interaction)
            await self.sitngo.cancel(interaction, tid, moderator=moderator)

    @app_commands.command(
        name="standings",
        description="This server's Sit & Go standings",
        extras={"ack": Ack.PUBLIC},  # a public answer, as /leaderboard (bot/ui/answering.py)
    )
    @cooldown("leaderboard")
    @app_commands.describe(page="Which page (10 players a page)")
    async def standings(
        self, interaction: discord.Interaction, page: app_commands.Range[int, 1, 1000] = 1
    ) -> None:
        await self.sitngo.standings(interaction, page)  # it acknowledges publicly first


async def setup(bot: PokerBot) -> None:
    await bot.add_cog(SitNGoCog(bot))
