"""/a5-draw: Ace-to-Five (California) lowball, one draw."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .base import DrawTableCog
from .opening import open_command

if TYPE_CHECKING:
    from bot.client import PokerBot


class A5DrawCog(
    DrawTableCog,
    group_name="a5-draw",
    group_description="Ace-to-Five (California) lowball, one draw",
):
    variant_id = "a5-draw"
    open_ = open_command(variant_id)


async def setup(bot: PokerBot) -> None:
    await bot.add_cog(A5DrawCog(bot))
