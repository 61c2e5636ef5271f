"""The bot's services as the UI sees them: one typed entry, ``PokerBot.app``.

Handlers and cogs reach the table service, the presenter, the rate limits, the settings
and the practice driver through ``app_of(interaction)`` instead of untyped attributes of
``interaction.client``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, runtime_checkable

import discord

from bot.history.exports import Exports
from bot.practice.driver import PracticeDriver
from bot.settings import Settings
from bot.storage.stats import Stats
from bot.tables.guild_settings import GuildSettingsBook
from bot.tables.manager import TableManager

from .controller import Controller
from .limits import RateLimiter
from .presenter import Presenter

if TYPE_CHECKING:
    from bot.storage.seasons import Seasons
    from bot.storage.store import Store


@dataclass
class App:
    manager: TableManager  # the table service
    presenter: Presenter
    limits: RateLimiter
    settings: Settings
    practice: PracticeDriver
    controller: Controller
    exports: Exports  # finished hands read for /replay and /export
    stats: Stats  # players' statistics for /stats
    guild_settings: GuildSettingsBook  # each server's /settings
    seasons: Seasons  # the server's tournament seasons
    store: Store  # what is only stored: each query in its repository (store.ledger, …)


@runtime_checkable
class Serves(Protocol):
    """A client that serves the app (PokerBot)."""

    @property
    def app(self) -> App: ...


def app_of(interaction: discord.Interaction) -> App:
    client = interaction.client
    if not isinstance(client, Serves):
        raise RuntimeError("this client does not serve the poker app")
    return client.app
