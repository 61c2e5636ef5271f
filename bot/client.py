"""The bot: a ``commands.Bot`` whose ``setup_hook`` wires storage, tables and cogs."""

from __future__ import annotations

import asyncio
import logging
import random
import secrets
import time
from collections.abc import Callable, Mapping
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.extensions import extension_name
from bot.history.exports import Exports
from bot.metrics import METRICS
from bot.opponents import warm_up
from bot.practice.driver import PracticeDriver
from bot.settings import Settings
from bot.storage.backend import Timeouts
from bot.storage.seasons import Seasons
from bot.storage.shards import Shards
from bot.storage.store import Store
from bot.tables.guild_settings import Defaults, GuildSettingsBook
from bot.tables.manager import TableManager
from bot.tables.models import Refused
from bot.tournaments.driver import TournamentDriver
from bot.tournaments.mtt_driver import MttDriver
from bot.tournaments.multi_table import MultiTableService
from bot.tournaments.schedule import Notice, NoticeKind, Scheduler
from bot.tournaments.service import TournamentService
from bot.tournaments.structures import Speed
from bot.ui.app import App
from bot.ui.budget import Budget, default_share
from bot.ui.catalog import t
from bot.ui.components import DiscardSelect, TableButton
from bot.ui.cycles import done_with
from bot.ui.export import ExportButton
from bot.ui.extensions import EXTENSIONS
from bot.ui.handlers import TableController, apologize, refuse, reply
from bot.ui.languages import ServerLanguages
from bot.ui.limits import wait_seconds
from bot.ui.mixed_menu import GameSelect
from bot.ui.mtt import MttButton, MultiTable, TableThreads
from bot.ui.presenter import Presenter
from bot.ui.rates import RateLimiter
from bot.ui.reminders import Reminders
from bot.ui.replay_message import ReplayButton, ReplayPicker
from bot.ui.sitngo import SitNGo, SngButton
from bot.ui.stale import StaleClicks
from bot.ui.translator import CatalogTranslator, LocaleTree

log = logging.getLogger(__name__)

IDLE_SWEEP = 300.0  # seconds between looks for idle tables


class PokerBot(commands.Bot):
    manager: TableManager
    store: Store
    seasons: Seasons
    guild_settings: GuildSettingsBook
    presenter: Presenter
    app: App
    #: seconds the presenters get at shutdown to show what is queued (docker stop waits 10 s)
    drain_timeout = 5.0

    def __init__(
        self,
        settings: Settings,
        *,
        rng: random.Random | None = None,
        clock: Callable[[], float] = time.time,
        level_seconds: Mapping[Speed, float] | None = None,
    ) -> None:
        intents = discord.Intents.default()  # no privileged intents
        share = settings.rest_share or default_share(settings.shard_count, settings.shard_ids)
        #: this process's share of Discord's global limit, and the failed-request count
        self.budget = Budget(share, clock)
        shards: dict[str, Any] = {}
        if settings.shard_count is not None:  # ShardedPokerBot: this process's shards only
            ids = settings.shard_ids or tuple(range(settings.shard_count))
            shards = {"shard_count": settings.shard_count, "shard_ids": list(ids)}
        super().__init__(
            command_prefix=commands.when_mentioned,
            intents=intents,
            help_command=None,
            allowed_mentions=discord.AllowedMentions.none(),  # a name never pings anyone
            tree_cls=LocaleTree,  # answers in the reader's language
            http_trace=self.budget.trace(),  # every request passes the budget
            **shards,
        )
        self.settings = settings
        self._rng, self._clock = rng, clock
        self._level_seconds = level_seconds  # tests: fast Sit & Go levels
        self.limits = RateLimiter(clock)  # per-user cooldowns and click rates
        self._shutdown: asyncio.Task[None] | None = None
        self.tree.error(self.on_app_command_error)

    def clock(self) -> float:
        """Now, by the bot's clock (injected in tests)."""
        return self._clock()

    async def setup_hook(self) -> None:
        s = self.settings
        await asyncio.to_thread(warm_up)  # the computer players' tables, off the loop
        timeouts = Timeouts(s.database_statement_timeout, s.database_connect_timeout)
        self.store = store = await Store.open(
            s.database,
            clock=self._clock,
            timeouts=timeouts,
            on_guilds_lost=self._guilds_lost,
            metrics=METRICS,  # the database's commits, batches, reconnects, lost guilds
        )
        self.seasons = store.seasons
        auto_deal = s.next_hand_delay > 0
        self.guild_settings = GuildSettingsBook(
            self.store, Defaults(s.turn_timeout, auto_deal, s.idle_close_hours)
        )
        self.manager = TableManager(
            self.store,
            starting_grant=s.starting_grant,
            turn_timeout=s.turn_timeout,
            next_hand_delay=s.next_hand_delay,
            clock=self._clock,
            rng=self._rng,
            shards=_shards(s),
            max_tables=s.max_tables_per_server,
            idle_after=self.guild_settings.idle_after,  # each server's /settings idle-close
        )
        # The table messages, DMs and results (started once the tables are restored).
        self.languages = ServerLanguages(self, self.guild_settings)  # of public messages
        self.presenter = Presenter(
            self,
            self.manager,
            messages=store.tables,
            dms=store.dms,
            languages=self.languages,
            clock=self._clock,
        )
        # Computer players act through the manager like clicks (practice tables).
        self.practice = PracticeDriver(self.manager, pause=s.bot_pause, rng=self._rng)
        # Sit & Gos play on tournament tables: their hooks are in place before any restore.
        self.tournaments = TournamentService(
            store,
            grant=s.starting_grant,
            rng=self._rng or secrets.SystemRandom(),
            clock=self._clock,
            level_seconds=self._level_seconds,
        )
        self.sng = TournamentDriver(self.manager, self.tournaments)
        # the registration messages and summaries
        self.sitngo = SitNGo(self, self.sng, self.languages)
        # multi-table tournaments: their driver takes the hooks and passes Sit & Gos' on
        self.multi_tables = MultiTableService(
            store, self.tournaments, self._rng or secrets.SystemRandom()
        )
        threads = TableThreads(self, self.languages)  # each table's thread
        self.mtt_driver = MttDriver(
            self.manager, self.multi_tables, self.sng, make_thread=threads.open
        )
        # registration, threads, notices (a moved player's by DM, through the presenter)
        self.mtt = MultiTable(self, self.mtt_driver, self.presenter, self.languages)
        await self.sng.restore()
        await self.mtt_driver.restore()
        self._sng_clock = asyncio.get_running_loop().create_task(self.sng.run_clock())
        self._mtt_clock = asyncio.get_running_loop().create_task(self.mtt_driver.run_clock())
        restored = await self.manager.start(idle_sweep=IDLE_SWEEP)
        await self.mtt_driver.resume()
        self.practice.resume()
        log.info("restored %d tables, %d unfinished hands", len(self.manager.channels()), restored)
        await self.presenter.start()
        # Multi-table tournaments (issue 37): reminders and scheduled starts, next to the
        # Sit & Go level clock; its first pass starts what came due while the bot was down.
        reminders = Reminders(self, self.guild_settings, self.presenter.dms, self.languages)

        async def notify(notice: Notice) -> None:
            await reminders(notice)
            if notice.kind is NoticeKind.CANCELLED:  # too few at its time
                await self.mtt.cancelled_at_start(notice.tournament)

        self.scheduler = Scheduler(
            store,
            self.multi_tables,
            notify,
            start=self.mtt.begin_scheduled,  # threads, tables and the registration message
            clock=self._clock,
        )
        self._schedule = asyncio.get_running_loop().create_task(self.scheduler.run())
        #: the services the UI reaches: self.bot.app in a cog, else app_of(interaction)
        self.app = App(
            manager=self.manager,
            presenter=self.presenter,
            limits=self.limits,
            settings=self.settings,
            practice=self.practice,
            controller=TableController(),
            exports=Exports(self.store.db),  # the stored hands, their records parsed
            stats=self.store.stats,
            guild_settings=self.guild_settings,
            languages=self.languages,
            seasons=self.seasons,
            store=self.store,
            sitngo=self.sitngo,
            mtt=self.mtt,
        )
        for extension in EXTENSIONS:
            await self.load_extension(extension_name(extension))
        self.add_dynamic_items(TableButton, DiscardSelect)  # persistent: survive restarts
        self.add_dynamic_items(GameSelect)  # a mixed table's dealer's choice (issue 38)
        self.add_dynamic_items(ReplayButton, ReplayPicker, ExportButton)  # issue 21
        self.add_dynamic_items(SngButton)  # a Sit & Go's Register / Unregister (issue 36)
        # ... answered too from a client still showing them once they are gone (issue 36)
        self.add_listener(StaleClicks(SngButton).on_interaction, "on_interaction")
        self.add_dynamic_items(MttButton)  # a multi-table tournament's (issue 37)
        await self.tree.set_translator(CatalogTranslator())  # localised command names
        # The commands are global: with split shards, the process running shard 0 syncs.
        if _syncs_commands(s) and s.dev_guild_id:
            guild = discord.Object(s.dev_guild_id)
            self.tree.copy_global_to(guild=guild)
            await self.tree.sync(guild=guild)
        elif _syncs_commands(s):
            await self.tree.sync()

    def _guilds_lost(self, guilds: frozenset[int]) -> None:
        # the store claims guilds only for the manager (built right after the store)
        self.manager.guilds_lost(guilds)

    def is_closed(self) -> bool:
        # True from the start of close(): the gateway must not reconnect while we drain.
        return self._shutdown is not None or super().is_closed()

    async def close(self) -> None:
        """Stop in order (SIGTERM, SIGINT, or the end of ``start``); every caller waits for
        the one shutdown."""
        if self._shutdown is None:
            self._shutdown = asyncio.get_running_loop().create_task(self._close_in_order())
        await asyncio.shield(self._shutdown)

    async def _close_in_order(self) -> None:
        # 1. The gateway: no new clicks or commands arrive.
        if self.ws is not None and self.ws.open:
            await self.ws.close(code=1000)
        if hasattr(self, "practice"):  # and no computer player acts any more
            await self.practice.close()
        # 2. The presenters show what is queued, for a bounded time, while REST still works.
        if hasattr(self, "presenter"):
            await self.presenter.drain(self.drain_timeout)
            await self.presenter.close()
        # 3. The tables (timers) and the database: everything needed to carry on is stored.
        if hasattr(self, "_schedule"):
            self._schedule.cancel()  # what it claimed is sent; the rest is due at the next start
        if hasattr(self, "_sng_clock"):
            self._sng_clock.cancel()
            await self.sng.tick()  # the Sit & Gos' level clocks as they stand
        if hasattr(self, "_mtt_clock"):
            self._mtt_clock.cancel()
            await self.mtt_driver.tick()
        if hasattr(self, "manager"):
            await self.manager.close()
        if hasattr(self, "store"):
            await self.store.close()
        # 4. discord.py's own: extensions, and last the HTTP session.
        await super().close()

    async def on_app_command_completion(
        self, interaction: discord.Interaction, command: object
    ) -> None:
        done_with(interaction)  # discord.py is done with it (see done_with)

    async def on_app_command_error(
        self, interaction: discord.Interaction, error: app_commands.AppCommandError
    ) -> None:
        try:
            await self._answer_error(interaction, error)
        finally:
            done_with(interaction)

    async def _answer_error(
        self, interaction: discord.Interaction, error: app_commands.AppCommandError
    ) -> None:
        original = getattr(error, "original", error)
        if isinstance(original, Refused):
            await refuse(interaction, original, interaction.channel_id)
            return
        if isinstance(error, app_commands.CommandOnCooldown):
            await reply(interaction, t("limit.cooldown", seconds=wait_seconds(error.retry_after)))
            return
        if isinstance(error, app_commands.CheckFailure):
            return  # the check already answered
        command = interaction.command.qualified_name if interaction.command else "?"
        log.error(
            "command /%s failed (guild %s, channel %s, user %s)",
            command,
            interaction.guild_id,
            interaction.channel_id,
            interaction.user.id,
            exc_info=original,
        )
        await apologize(interaction)

    async def on_error(self, event_method: str, /, *args: Any, **kwargs: Any) -> None:
        log.exception("unhandled error in %s", event_method)


class ShardedPokerBot(PokerBot, commands.AutoShardedBot):
    """PokerBot running shards SHARD_IDS of SHARD_COUNT (docs/operations.md)."""


def make_bot(settings: Settings, **options: Any) -> PokerBot:
    """The bot for these settings: sharded when SHARD_COUNT is set."""
    cls = PokerBot if settings.shard_count is None else ShardedPokerBot
    return cls(settings, **options)


def _shards(settings: Settings) -> Shards | None:
    if settings.shard_count is None:
        return None
    ids = settings.shard_ids or tuple(range(settings.shard_count))
    return Shards(settings.shard_count, frozenset(ids))


def _syncs_commands(settings: Settings) -> bool:
    return settings.shard_ids is None or 0 in settings.shard_ids
