"""/a6-draw: Ace-to-Six lowball, one draw."""

from __future__ import annotations

from discord.ext import commands

from .base import DrawTableCog, open_command


class A6DrawCog(
    DrawTableCog, group_name="a6-draw", group_description="Ace-to-Six lowball, one draw"
):
    variant_id = "a6-draw"
    open_ = open_command(variant_id)


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(A6DrawCog(bot))
