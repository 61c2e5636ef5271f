"""Each server's language for its public messages: its /settings, else its locale.

One ``ServerLanguages`` is built with the bot's services and given, in their
constructors, to what posts in public (the presenter, the tournament UIs, the reminders;
cogs and replays through the ``App``), so none of them looks the server settings up on
the client.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import discord

from bot.tables.guild_settings import GuildSettingsBook

from . import i18n


class ServerLanguages:
    def __init__(self, client: discord.Client, book: GuildSettingsBook) -> None:
        self.client = client  # the server's preferred locale, when /settings says "auto"
        self.book = book

    @asynccontextmanager
    async def public(self, guild_id: int | None, fallback: object = None) -> AsyncIterator[str]:
        """Build a public message (table, result, leaderboard) in the server's language."""
        with i18n.using(await self.of(guild_id, fallback)) as language:
            yield language

    async def of(self, guild_id: int | None, fallback: object = None) -> str:
        """The language of a server's public messages: its ``/settings language`` value,
        else the server's preferred locale (Discord's Community setting), else
        ``fallback``."""
        if guild_id is None:
            return i18n.resolve(fallback)
        chosen = (await self.book.get(guild_id)).language
        if chosen and chosen != "auto":
            return i18n.resolve(chosen)
        guild = self.client.get_guild(guild_id)
        if guild is not None:
            return i18n.resolve(guild.preferred_locale)
        return i18n.resolve(fallback)
