"""``/<game> open``, one command per game, with that game's seat range in its schema.

This module deliberately does not use ``from __future__ import annotations``: the
parameters' annotations are real ``app_commands.Range`` objects made from the game's
variant when the command is built, so discord.py reads each game's own ranges from the
signature (Discord itself then offers only possible values).
"""

from typing import Any

import discord
from discord import app_commands

from bot.engine import VARIANTS
from bot.tables.seating import TIMEOUT_RANGE
from bot.ui.limits import cooldown


def open_command(variant_id: str) -> app_commands.Command[Any, ..., None]:
    """The game's ``open`` command (a game cog sets ``open_ = open_command(<id>)``); it
    calls the cog's ``_open``."""
    v = VARIANTS[variant_id]
    low, high = TIMEOUT_RANGE
    Seats = app_commands.Range[int, v.min_seats, v.max_seats]
    Timeout = app_commands.Range[int, low, high]
    Bots = app_commands.Range[int, 1, v.max_seats - 1]

    class Opener:  # a method in a class: discord.py then passes the cog as ``self``
        async def open_(
            self: Any,  # the TableCog (mypy cannot see it through Opener)
            interaction: discord.Interaction,
            seats: Seats | None = None,
            timeout: Timeout | None = None,
            thread: bool = False,
            bots: Bots | None = None,
        ) -> None:
            await self._open(interaction, seats, timeout, thread, bots)

    described = app_commands.describe(
        seats="Most players at the table (default: the game's maximum)",
        timeout="Seconds each player has to act (default from the bot's settings)",
        thread="Open the table in a new thread of this channel",
        bots="Computer players to seat beside you: a practice table, no chips move",
    )(cooldown("open", count=False)(Opener.open_))  # counted in _open, once a table is opened
    return app_commands.command(
        name="open", description="Open a table for this game in this channel"
    )(described)
