"""The bot's services as the UI sees them, and the one way UI code reaches them.

``App`` holds every service the cogs, the handlers and the components call; the bot
builds it once (``PokerBot.setup_hook``). A cog is given the bot it is loaded into and
reads ``self.bot.app``; what discord.py calls with nothing but an interaction (a
persistent button or menu, a command check, a handler shared by both) reads
``app_of(interaction)``, from ``interaction.client``.

This module imports no UI module that reaches the app itself: the presenter and the two
tournament UIs are named here by what is asked of them (``Presenting``, ``SitNGoDesk``,
``MttDesk``; the real ones, ``Presenter``, ``SitNGo`` and ``MultiTable``, match them,
which mypy checks where the bot builds the ``App``), and the limits' counts live in
``rates``, not beside their checks. So any UI module may import ``app_of`` without an
import circle (``tests/app/test_layers.py``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, runtime_checkable

import discord

from bot.history.exports import Exports
from bot.practice.driver import PracticeDriver
from bot.settings import Settings
from bot.storage.player_stats import Stats
from bot.tables.guild_settings import GuildSettingsBook
from bot.tables.manager import TableManager
from bot.tournaments.structures import Speed

from .controller import Controller
from .languages import ServerLanguages
from .rates import RateLimiter

if TYPE_CHECKING:
    from bot.storage.seasons import Seasons
    from bot.storage.store import Store

T = TypeVar("T")


class Presenting(Protocol):
    """What the UI asks of the presenter (``bot.ui.presenter.Presenter``)."""

    def message_id(self, channel_id: int) -> int | None: ...

    def repost(self, channel_id: int) -> None: ...

    def carries(self, interaction: discord.Interaction, channel_id: int) -> bool: ...

    async def answer_with_table(
        self,
        interaction: discord.Interaction,
        channel_id: int,
        step: Callable[[], Awaitable[T]],
    ) -> T: ...

    async def dms_known(self, user_id: int) -> bool: ...

    async def send_dm(self, user_id: int, **content: Any) -> bool: ...

    async def reopen_dms(self, user_id: int) -> None: ...


class TournamentDesk(Protocol):
    """What both tournament UIs answer: a registration click, a command in a channel."""

    async def register(self, interaction: discord.Interaction, tournament_id: int) -> None: ...

    async def unregister(self, interaction: discord.Interaction, tournament_id: int) -> None: ...

    async def start(
        self, interaction: discord.Interaction, tournament_id: int, *, moderator: bool
    ) -> None: ...

    async def cancel(
        self, interaction: discord.Interaction, tournament_id: int, *, moderator: bool
    ) -> None: ...

    async def here(self, guild_id: int, channel_id: int) -> int | None: ...


class SitNGoDesk(TournamentDesk, Protocol):
    """What ``/sitngo`` and its buttons ask of the Sit & Go UI (``bot.ui.sitngo.SitNGo``)."""

    async def create(
        self,
        interaction: discord.Interaction,
        variant: str,
        seats: int,
        speed: Speed,
        stack: int | None,
        fee: int,
        bots: int = 0,
        level: str = "normal",
        *,
        games: Sequence[str] = (),
        rotation: str = "hands",
        every: int | None = None,
    ) -> bool: ...

    async def standings(self, interaction: discord.Interaction, page: int) -> None: ...

    async def resume(self) -> None: ...


class MttDesk(TournamentDesk, Protocol):
    """What ``/mtt`` and its buttons ask of the multi-table UI (``bot.ui.mtt.MultiTable``)."""

    async def create(
        self,
        interaction: discord.Interaction,
        variant: str,
        *,
        table_size: int,
        stack: int | None,
        speed: Speed,
        fee: int,
        cap: int,
        start_in: int | None,
        late_levels: int,
        start_when: int | None = None,
        games: Sequence[str] = (),
        rotation: str = "hands",
        every: int | None = None,
    ) -> bool: ...

    async def reschedule(
        self,
        interaction: discord.Interaction,
        tournament_id: int,
        start_in: int,
        *,
        moderator: bool,
    ) -> None: ...

    async def channel_gone(self, guild_id: int, channel_id: int) -> None: ...


@dataclass
class App:
    manager: TableManager  # the table service
    presenter: Presenting
    limits: RateLimiter
    settings: Settings
    practice: PracticeDriver
    controller: Controller  # what the table message's buttons and menu call
    exports: Exports  # finished hands read for /replay and /export
    stats: Stats  # players' statistics for /stats
    guild_settings: GuildSettingsBook  # each server's /settings
    languages: ServerLanguages  # each server's language for its public messages
    seasons: Seasons  # the server's tournament seasons
    store: Store  # what is only stored: each query in its repository (store.ledger, …)
    sitngo: SitNGoDesk  # Sit & Gos' registration messages and summaries
    mtt: MttDesk  # multi-table tournaments' registration, threads and notices


@runtime_checkable
class Serves(Protocol):
    """A client that serves the app (PokerBot)."""

    @property
    def app(self) -> App: ...


def app_of(interaction: discord.Interaction) -> App:
    """The services of the bot that received this interaction: the one way to them from
    code discord.py calls with an interaction only."""
    client = interaction.client
    if not isinstance(client, Serves):
        raise RuntimeError("this client does not serve the poker app")
    return client.app
