"""/a5-triple: Ace-to-Five Triple Draw."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .base import DrawTableCog
from .opening import open_command

if TYPE_CHECKING:
    from bot.client import PokerBot


class A5TripleCog(
    DrawTableCog, group_name="a5-triple", group_description="Ace-to-Five Triple Draw"
):
    variant_id = "a5-triple"
    open_ = open_command(variant_id)


async def setup(bot: PokerBot) -> None:
    await bot.add_cog(A5TripleCog(bot))
