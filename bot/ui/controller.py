"""What the table message's components call: a controller, through this protocol.

The components (``components.py``) know only this, through ``app_of(interaction)
.controller``; the handlers implement it and the bot's services (``app.py``) hold it, so
neither module imports the other's side.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import discord

from .answering import Ack


class Controller(Protocol):
    def ack(self, interaction: discord.Interaction, channel_id: int, action: str) -> Ack:
        """How a click on a table button is acknowledged before it is handled."""
        ...

    async def button(
        self,
        interaction: discord.Interaction,
        channel_id: int,
        action: str,
        hand_id: int | None,
        turn: int | None,
    ) -> None: ...

    async def discard(
        self,
        interaction: discord.Interaction,
        channel_id: int,
        cards: Sequence[str],
        hand_id: int,
        turn: int,
    ) -> None: ...
