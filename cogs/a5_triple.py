"""/a5-triple: Ace-to-Five Triple Draw."""

from __future__ import annotations

from discord.ext import commands

from .base import DrawTableCog


class A5TripleCog(
    DrawTableCog, group_name="a5-triple", group_description="Ace-to-Five Triple Draw"
):
    variant_id = "a5-triple"


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(A5TripleCog(bot))
