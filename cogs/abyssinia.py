"""/abyssinia: Abyssinia: open cards bought from a market, high/low split."""

from __future__ import annotations

from discord.ext import commands

from .base import AbyssiniaBase, open_command


class AbyssiniaCog(
    AbyssiniaBase,
    group_name="abyssinia",
    group_description="Abyssinia: open cards bought from a market, high/low split",
):
    variant_id = "abyssinia"
    open_ = open_command(variant_id)


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(AbyssiniaCog(bot))
