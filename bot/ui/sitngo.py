"""Sit & Gos on Discord: the registration message and its Register / Unregister buttons,
the start in a thread of their own, the message kept up to date, and the summary.

``SitNGo`` turns Discord requests into ``TournamentService`` / ``TournamentDriver`` calls
and their answers into words; a refusal is answered privately and changes nothing. The
buttons are persistent ``DynamicItem``s whose custom_id names the tournament, so they
work after a restart; they reach the bot's ``SitNGo`` through ``app_of(interaction).sitngo``.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Coroutine, Sequence
from typing import Any

import discord

from bot.storage.tournaments import EntryRow, TournamentRow
from bot.tables.models import Refused
from bot.tournaments import payouts, structures
from bot.tournaments.driver import TournamentDriver
from bot.tournaments.service import HandCounted, SngCode, SngRefused
from bot.tournaments.structures import Speed

from . import i18n
from .answering import Ack, Answered, acknowledge
from .app import app_of
from .catalog import t
from .handlers import reply
from .languages import ServerLanguages
from .limits import allow_click
from .moderation import jump_url
from .practice import bot_name
from .text import esc, join_list
from .tournaments import mix_lines, sng_refusal, stakes_text, summary_text, tournament_games

log = logging.getLogger(__name__)

SNG_TEMPLATE = r"sng:(?P<tournament>\d+):(?P<action>reg|unreg)"
GOLD = discord.Colour.gold()
STANDINGS_PAGE = 10


class SngButton(Answered, discord.ui.DynamicItem[discord.ui.Button[Any]], template=SNG_TEMPLATE):
    """Register or Unregister, on a Sit & Go's registration message (answered privately)."""

    def __init__(self, tournament_id: int, action: str) -> None:
        register = action == "reg"
        button: discord.ui.Button[Any] = discord.ui.Button(
            label=t("sng.button.register" if register else "sng.button.unregister"),
            style=discord.ButtonStyle.success if register else discord.ButtonStyle.secondary,
            custom_id=f"sng:{tournament_id}:{action}",
        )
        super().__init__(button)
        self.tournament_id, self.action = tournament_id, action

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> SngButton:
        return cls(int(match["tournament"]), match["action"])

    async def interaction_check(self, interaction: discord.Interaction) -> bool:
        i18n.for_interaction(interaction)  # answer in the clicker's language
        return await allow_click(interaction)

    async def answer(self, interaction: discord.Interaction) -> None:
        host = app_of(interaction).sitngo
        if self.action == "reg":
            await host.register(interaction, self.tournament_id)
        else:
            await host.unregister(interaction, self.tournament_id)


def registration_view(row: TournamentRow) -> discord.ui.View:
    """The buttons while it registers; none after."""
    view = discord.ui.View(timeout=None)
    if row.status == "registering":
        view.add_item(SngButton(row.tournament_id, "reg"))
        view.add_item(SngButton(row.tournament_id, "unreg"))
    return view


def registration_embed(row: TournamentRow, entries: list[EntryRow]) -> discord.Embed:
    """The structure, the fee, the payouts, who is registered and where it stands."""
    title = "sng.practice.reg_title" if row.practice else "sng.reg.title"
    embed = discord.Embed(
        title=t(title, id=row.tournament_id, game=tournament_games(row)), colour=GOLD
    )
    speed = Speed(row.speed)
    minutes = int(structures.level_seconds(speed) // 60)
    structure = t(
        "sng.reg.structure",
        seats=row.seats,
        speed=t(f"sng.speed.{speed.value}"),
        minutes=minutes,
        stack=row.start_stack,
    )
    first = "\n".join(mix_lines(row)) or t(
        "sng.reg.first_level", stakes=stakes_text(row.variant, structures.level_at(row.variant, 1))
    )
    embed.add_field(name=t("sng.reg.field.structure"), value=structure + "\n" + first, inline=False)
    count = max(len(entries), 2)
    shares = join_list(
        t("sng.reg.share", place=i + 1, percent=p) for i, p in enumerate(payouts.percentages(count))
    )
    bots = [e.bot for e in entries if e.bot]
    if row.practice:  # no fee, no prizes
        level = t(f"level.{bots[0]}") if bots else "?"
        entry = t("sng.practice.entry", count=len(bots), level=level)
    elif row.fee:
        entry = t("sng.reg.fee", fee=row.fee, pool=row.fee * len(entries))
        entry += "\n" + t("sng.reg.payouts", shares=shares)
    else:
        entry = t("sng.reg.freeroll") + "\n" + t("sng.reg.payouts", shares=shares)
    embed.add_field(name=t("sng.reg.field.entry"), value=entry, inline=False)
    names = [esc(e.display_name) for e in entries]
    embed.add_field(
        name=t("sng.reg.field.players", count=len(entries), seats=row.seats),
        value=("\n".join(names) or t("sng.reg.nobody"))[:1024],
        inline=False,
    )
    embed.add_field(name=t("sng.reg.field.status"), value=_status(row, entries), inline=False)
    return embed


def _status(row: TournamentRow, entries: list[EntryRow]) -> str:
    if row.status == "running" and row.table_channel_id is not None:
        return t("sng.status.running", thread=f"<#{row.table_channel_id}>")
    if row.status == "finished":
        winner = next((e.display_name for e in entries if e.place == 1), "?")
        return t("sng.status.finished", winner=esc(winner))
    if row.status == "cancelled":
        return t("sng.status.cancelled")
    return t("sng.status.registering", command="`/sitngo start`")


class SitNGo:
    """The Discord side of every Sit & Go of the bot."""

    def __init__(
        self, client: discord.Client, driver: TournamentDriver, languages: ServerLanguages
    ) -> None:
        self.client = client
        self.languages = languages  # its public messages' language
        self.driver = driver
        self.service = driver.service
        self._tasks: set[asyncio.Task[None]] = set()
        driver.ended.append(self._ended)
        driver.cancelled.append(self._closed)

    # ----- requests ---------------------------------------------------------

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
    ) -> bool:
        """Create one and post its registration message here; False if refused. With
        ``bots``, a practice Sit & Go: computer players of ``level`` take seats at once,
        named as at practice tables. With ``games``, a mixed one (``rotation``, ``every``:
        ``TournamentService.create``)."""
        channel = interaction.channel
        if not isinstance(channel, discord.TextChannel):  # its table will be a thread
            await reply(interaction, t("thread.not_here"))
            return False
        async with self.languages.public(interaction.guild_id or 0):  # names said in public
            names = [bot_name(i, level) for i in range(bots)]
        try:
            row = await self.service.create(
                interaction.guild_id or 0,
                channel.id,
                interaction.user.id,
                variant,
                seats=seats,
                speed=speed,
                start_stack=stack if stack is not None else structures.DEFAULT_STACK,
                fee=fee,
                bots=names,
                level=level,
                games=games,
                rotation=rotation,
                every=every,
            )
        except SngRefused as exc:
            await reply(interaction, sng_refusal(exc))
            return False
        entries = await self.service.repo.entries(row.tournament_id)  # its computer players
        async with self.languages.public(row.guild_id):
            message = await channel.send(
                embed=registration_embed(row, entries), view=registration_view(row)
            )
        await self.service.repo.set_message(row.tournament_id, message.id)
        link = jump_url(row.guild_id, channel.id, message.id)
        await reply(interaction, t("sng.created", id=row.tournament_id, link=link))
        return True

    async def register(self, interaction: discord.Interaction, tournament_id: int) -> None:
        user = interaction.user
        try:
            row, _ = await self.service.register(
                interaction.guild_id or 0, tournament_id, user.id, user.display_name
            )
        except SngRefused as exc:
            await reply(interaction, sng_refusal(exc))
            return
        await reply(interaction, t("sng.registered", id=tournament_id))
        if row.status == "running":  # the seats are full: it starts
            await self._begin(row)
        await self.refresh(tournament_id)

    async def unregister(self, interaction: discord.Interaction, tournament_id: int) -> None:
        try:
            await self.service.unregister(
                interaction.guild_id or 0, tournament_id, interaction.user.id
            )
        except SngRefused as exc:
            await reply(interaction, sng_refusal(exc))
            return
        await reply(interaction, t("sng.unregistered", id=tournament_id))
        await self.refresh(tournament_id)

    async def start(
        self, interaction: discord.Interaction, tournament_id: int, *, moderator: bool
    ) -> None:
        try:
            if await self._multi_table(tournament_id):  # /mtt's, not a Sit & Go
                raise SngRefused(SngCode.UNKNOWN)
            row = await self.service.start(
                interaction.guild_id or 0, tournament_id, interaction.user.id, moderator=moderator
            )
        except SngRefused as exc:
            await reply(interaction, sng_refusal(exc))
            return
        row = await self._begin(row)
        thread = f"<#{row.table_channel_id}>" if row.table_channel_id else "?"
        await reply(interaction, t("sng.started", id=tournament_id, thread=thread))
        await self.refresh(tournament_id)

    async def cancel(
        self, interaction: discord.Interaction, tournament_id: int, *, moderator: bool
    ) -> None:
        try:
            if await self._multi_table(tournament_id):  # /mtt's, not a Sit & Go
                raise SngRefused(SngCode.UNKNOWN)
            await self.driver.cancel(
                interaction.guild_id or 0, tournament_id, interaction.user.id, moderator=moderator
            )
        except SngRefused as exc:
            await reply(interaction, sng_refusal(exc))
            return
        await reply(interaction, t("sng.cancelled", id=tournament_id))
        await self.refresh(tournament_id)

    async def here(self, guild_id: int, channel_id: int) -> int | None:
        """The newest open Sit & Go registered in, or played in, this channel."""
        for row in reversed(await self.service.repo.open_tournaments(guild_id)):
            if await self._multi_table(row.tournament_id):  # /mtt's (bot/ui/mtt.py)
                continue
            if channel_id in (row.channel_id, row.table_channel_id):
                return row.tournament_id
        return None

    async def _multi_table(self, tournament_id: int) -> bool:
        return await self.service.store.multi_tables.state(tournament_id) is not None

    async def standings(self, interaction: discord.Interaction, page: int) -> None:
        """Page ``page`` of the server's standings, answered publicly in the server's
        language (as /leaderboard and /season standings), with the rule of its points."""
        guild = interaction.guild_id or 0
        await acknowledge(interaction, Ack.PUBLIC)  # before the read; after the checks
        rows, total = await self.service.repo.standings(guild, page, STANDINGS_PAGE)
        pages = max(1, -(-total // STANDINGS_PAGE))
        async with self.languages.public(guild, interaction.guild_locale):
            lines = [
                t(
                    "sng.standings.row",
                    rank=r.rank,
                    name=esc(r.display_name),
                    points=r.points,
                    wins=r.wins,
                    cashes=r.cashes,
                    entries=r.entries,
                )
                for r in rows
            ]
            if lines:
                text = "\n".join(lines)
            elif total:
                text = t("leaderboard.beyond", page=page, count=pages)
            else:
                text = t("sng.standings.empty")
            rule = f"*{t('sng.standings.rule')}*"
            embed = discord.Embed(
                title=t("sng.standings.title"), description=f"{rule}\n\n{text}"[:4000], colour=GOLD
            )
            embed.set_footer(text=t("sng.standings.page", page=page, pages=pages))
        await interaction.followup.send(embed=embed)

    async def resume(self) -> None:
        """Begin every Sit & Go that started but has no table yet (the bot stopped
        between the start and its thread): call once the server's channels are known."""
        for row in await self.service.repo.open_tournaments():
            # (a multi-table tournament is not the Sit & Go driver's: bot/ui/mtt.py)
            running = self.driver.running(row.tournament_id) is not None
            if running and row.status == "running" and row.table_channel_id is None:
                await self._begin(row)
                await self.refresh(row.tournament_id)

    # ----- the messages -----------------------------------------------------

    async def refresh(self, tournament_id: int) -> None:
        """Show where the tournament stands on its registration message."""
        row = await self.service.repo.get(tournament_id)
        if row is None or row.message_id is None:
            return
        entries = await self.service.repo.entries(tournament_id)
        channel = self.client.get_partial_messageable(row.channel_id)
        async with self.languages.public(row.guild_id):
            embed, view = registration_embed(row, entries), registration_view(row)
        try:
            await channel.get_partial_message(row.message_id).edit(embed=embed, view=view)
        except discord.HTTPException as exc:  # deleted by someone: nothing to keep up to date
            log.info("the registration message of Sit & Go %d: %r", tournament_id, exc)

    async def _begin(self, row: TournamentRow) -> TournamentRow:
        """Its thread, its table in it, the first hand dealt."""
        parent = self.client.get_channel(row.channel_id)
        if not isinstance(parent, discord.TextChannel):
            log.warning("Sit & Go %d: its channel %d is gone", row.tournament_id, row.channel_id)
            return row
        async with self.languages.public(row.guild_id):
            name = t("sng.thread.name", id=row.tournament_id, game=tournament_games(row))[:100]
        thread = await parent.create_thread(
            name=name, type=discord.ChannelType.public_thread, auto_archive_duration=1440
        )
        try:
            await self.driver.begin(row, thread.id)
        except Refused as exc:
            log.exception("Sit & Go %d could not open its table: %s", row.tournament_id, exc)
        return (await self.service.repo.get(row.tournament_id)) or row

    def _ended(self, row: TournamentRow, counted: HandCounted) -> None:
        self._spawn(self._finish(row))

    def _closed(self, row: TournamentRow) -> None:
        self._spawn(self.refresh(row.tournament_id))

    async def _finish(self, row: TournamentRow) -> None:
        """The public summary, in the channel it registered in, and the message's end."""
        final = await self.service.repo.get(row.tournament_id)
        if final is None:
            return
        entries = await self.service.repo.entries(row.tournament_id)
        async with self.languages.public(row.guild_id):
            text = summary_text(final, entries)
        await self.client.get_partial_messageable(row.channel_id).send(text)
        await self.refresh(row.tournament_id)

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("a Sit & Go message failed", exc_info=task.exception())

    async def wait_idle(self) -> None:
        """Wait for the summaries and edits under way (tests, shutdown)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)
