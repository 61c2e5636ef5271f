"""What the table message's components call: a controller, through this protocol.

The components (``components.py``) know only this; the handlers implement it and the
bot's services (``app.py``) hold it, so neither module imports the other's side.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

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


class _Holds(Protocol):
    @property
    def controller(self) -> Controller: ...


@runtime_checkable
class _Serves(Protocol):
    @property
    def app(self) -> _Holds: ...


def controller_of(interaction: discord.Interaction) -> Controller:
    """The controller of the bot that received this interaction."""
    client = interaction.client
    if not isinstance(client, _Serves):
        raise RuntimeError("the client serves no table controller (bot.ui.app.App)")
    return client.app.controller
