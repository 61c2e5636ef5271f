"""/abyssinia: Abyssinia: open cards bought from a market, high/low split."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .base import AbyssiniaBase
from .opening import open_command

if TYPE_CHECKING:
    from bot.client import PokerBot


class AbyssiniaCog(
    AbyssiniaBase,
    group_name="abyssinia",
    group_description="Abyssinia: open cards bought from a market, high/low split",
):
    variant_id = "abyssinia"
    open_ = open_command(variant_id)


async def setup(bot: PokerBot) -> None:
    await bot.add_cog(AbyssiniaCog(bot))
