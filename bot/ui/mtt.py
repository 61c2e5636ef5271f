"""Multi-table tournaments on Discord: the registration message and its Register /
Unregister buttons, one thread per table, the scheduled event, moved players' private
notices, and the summary.

``MultiTable`` turns Discord requests into ``MttDriver`` calls and their answers into
words; a refusal is answered privately and changes nothing. The buttons are persistent
``DynamicItem``s whose custom_id names the tournament, so they work after a restart.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Coroutine, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

import discord

from bot.engine import VARIANTS
from bot.storage.tournaments import EntryRow, Final, TournamentRow
from bot.tournaments import structures
from bot.tournaments.mtt_driver import MttDriver
from bot.tournaments.multi_table import MttCode, MttRefused
from bot.tournaments.service import SngCode, SngRefused
from bot.tournaments.structures import Speed

from . import events, i18n
from .answering import Answered
from .app import Presenting, app_of
from .catalog import t
from .handlers import reply
from .languages import ServerLanguages
from .limits import allow_click
from .moderation import jump_url
from .text import esc
from .tournaments import games_text, mix_lines, sng_refusal, tournament_games

log = logging.getLogger(__name__)

MTT_TEMPLATE = r"mtt:(?P<tournament>\d+):(?P<action>reg|unreg)"
GOLD = discord.Colour.gold()
EVENT_HOURS = 3  # the event's end estimate after its start
FIELD = 1024  # Discord's limit on an embed field's value
MESSAGE = 2000  # ... and on a message's content
# refusals whose Sit & Go words name a Sit & Go: a multi-table tournament has its own
SAID_OF_MTT = frozenset(
    {
        SngCode.MIX_SEATS,
        SngCode.UNKNOWN,
        SngCode.NOT_REGISTERING,
        SngCode.NOT_RUNNING,
        SngCode.NOT_OPEN,
        SngCode.FULL,
        SngCode.NOT_REGISTERED,
        SngCode.ELSEWHERE,
    }
)


def refusal(exc: SngRefused | MttRefused) -> str:
    """The private answer to a refused multi-table request."""
    if isinstance(exc, MttRefused):
        return t(f"mtt.refused.{exc.code.value}", **exc.params)
    if exc.code is SngCode.BAD_SEATS and exc.params.get("max") not in {
        v.max_seats for v in VARIANTS.values()
    }:
        return t("mtt.refused.cap", max=exc.params["max"], given=exc.params["given"])
    if exc.code is SngCode.BAD_SEATS:
        return t("mtt.refused.table_size", max=exc.params["max"], given=exc.params["given"])
    if exc.code is SngCode.TOO_FEW:
        return t("mtt.refused.sng_too_few", registered=exc.params["count"])
    if exc.code is SngCode.MIX_SEATS:
        params = {**exc.params, "games": games_text(exc.params["games"])}
        return t("mtt.refused.sng_mix_seats", **params)
    if exc.code in SAID_OF_MTT:
        return t(f"mtt.refused.{exc.code.value}", **exc.params)
    return sng_refusal(exc)


class MttButton(Answered, discord.ui.DynamicItem[discord.ui.Button[Any]], template=MTT_TEMPLATE):
    """Register or Unregister, on a tournament's registration message (answered privately)."""

    def __init__(self, tournament_id: int, action: str) -> None:
        register = action == "reg"
        button: discord.ui.Button[Any] = discord.ui.Button(
            label=t("sng.button.register" if register else "sng.button.unregister"),
            style=discord.ButtonStyle.success if register else discord.ButtonStyle.secondary,
            custom_id=f"mtt:{tournament_id}:{action}",
        )
        super().__init__(button)
        self.tournament_id, self.action = tournament_id, action

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> MttButton:
        return cls(int(match["tournament"]), match["action"])

    async def interaction_check(self, interaction: discord.Interaction) -> bool:
        i18n.for_interaction(interaction)  # answer in the clicker's language
        return await allow_click(interaction)

    async def answer(self, interaction: discord.Interaction) -> None:
        host = app_of(interaction).mtt
        if self.action == "reg":
            await host.register(interaction, self.tournament_id)
        else:
            await host.unregister(interaction, self.tournament_id)


def registration_view(row: TournamentRow, late_open: bool) -> discord.ui.View:
    """Register and Unregister while it registers; Register alone while late
    registration is open; none after."""
    view = discord.ui.View(timeout=None)
    if row.status == "registering" or (row.status == "running" and late_open):
        view.add_item(MttButton(row.tournament_id, "reg"))
    if row.status == "registering":
        view.add_item(MttButton(row.tournament_id, "unreg"))
    return view


def registration_embed(
    row: TournamentRow,
    entries: list[EntryRow],
    *,
    table_size: int,
    starts_at: float | None,
    late_levels: int,
    tables: dict[int, int],
    start_count: int | None = None,
) -> discord.Embed:
    """The structure, the fee, who is registered, and where it stands (its tables)."""
    embed = discord.Embed(
        title=t("mtt.reg.title", id=row.tournament_id, game=tournament_games(row)), colour=GOLD
    )
    speed = Speed(row.speed)
    structure = t(
        "mtt.reg.structure",
        size=table_size,
        cap=row.seats,
        speed=t(f"sng.speed.{speed.value}"),
        minutes=int(structures.level_seconds(speed) // 60),
        stack=row.start_stack,
        late=late_levels,
    )
    entry = t("sng.reg.fee", fee=row.fee, pool=row.fee * len(entries)) if row.fee else ""
    embed.description = "\n".join([structure, *mix_lines(row), *([entry] if entry else [])])
    names = [esc(e.display_name) for e in entries if e.place is None or row.status != "running"]
    embed.add_field(
        name=t("sng.reg.field.players", count=len(entries), seats=row.seats),
        value=fitted(names, ", ", FIELD) or t("sng.reg.nobody"),
        inline=False,
    )
    if row.status == "registering":
        status = (
            t("mtt.status.scheduled", at=f"<t:{int(starts_at)}:F>", start="`/mtt start`")
            if starts_at is not None
            else t("mtt.status.registering", cap=start_count or row.seats, start="`/mtt start`")
        )
    elif row.status == "running":
        room = FIELD - len(t("mtt.status.running", tables=""))
        links = fitted([f"<#{c}>" for _, c in sorted(tables.items())], " ", room)
        status = t("mtt.status.running", tables=links or "-")
    elif row.status == "finished":
        winner = next((e.display_name for e in entries if e.place == 1), "?")
        status = t("sng.status.finished", winner=esc(winner))
    else:
        status = t("sng.status.cancelled")
    embed.add_field(name=t("sng.reg.field.status"), value=status[:1024], inline=False)
    return embed


def fitted(items: list[str], sep: str, limit: int) -> str:
    """``items`` joined by ``sep`` in at most ``limit`` characters: as many whole items as
    fit, then how many more (a table's link or a name is never cut in two)."""
    joined = sep.join(items)
    if len(joined) <= limit:
        return joined
    tail = len(sep) + len(t("mtt.and_more", count=len(items)))  # the longest it can be
    shown = used = 0
    while shown < len(items):
        add = len(items[shown]) + (len(sep) if shown else 0)
        if used + add + tail > limit:
            break
        used, shown = used + add, shown + 1
    return sep.join([*items[:shown], t("mtt.and_more", count=len(items) - shown)])


def summary_pages(row: TournamentRow, entries: list[EntryRow]) -> list[str]:
    """The public summary of a finished tournament: places and prizes (the paid ones), in
    as many messages of at most ``MESSAGE`` characters as it takes (1,000 entrants pay
    153 places)."""
    lines = [t("mtt.summary.title", id=row.tournament_id, game=tournament_games(row))]
    for e in sorted(entries, key=lambda e: (e.place or len(entries) + 1, e.entry)):
        if e.prize:
            lines.append(
                t("sng.summary.place.prize", place=e.place, name=e.display_name, prize=e.prize)
            )
    lines.append(t("mtt.summary.entrants", count=len(entries)))
    pages = [""]
    for line in lines:
        line = line[:MESSAGE]
        if pages[-1] and len(pages[-1]) + 1 + len(line) > MESSAGE:
            pages.append(line)
        else:
            pages[-1] = f"{pages[-1]}\n{line}" if pages[-1] else line
    return pages


class TableThreads:
    """Opens each multi-table tournament table's thread in the tournament's channel (the
    driver is given ``open`` at construction)."""

    def __init__(self, client: discord.Client, languages: ServerLanguages) -> None:
        self.client = client
        self.languages = languages

    async def open(self, row: TournamentRow, number: int) -> int | None:
        """A public thread of the tournament's channel for its table ``number``."""
        parent = self.client.get_channel(row.channel_id)
        if not isinstance(parent, discord.TextChannel):
            return None
        async with self.languages.public(row.guild_id):
            name = t("mtt.thread.name", id=row.tournament_id, table=number)
        thread = await parent.create_thread(
            name=name, type=discord.ChannelType.public_thread, auto_archive_duration=1440
        )
        return thread.id


class MultiTable:
    """The Discord side of every multi-table tournament of the bot."""

    def __init__(
        self,
        client: discord.Client,
        driver: MttDriver,
        presenter: Presenting,
        languages: ServerLanguages,
    ) -> None:
        self.client = client
        self.languages = languages  # its public messages' language
        self.driver = driver
        self.presenter = presenter  # a moved player's notice goes by DM
        self.repo = driver.mtt.repo
        self.tournaments = driver.service.repo
        self._tasks: set[asyncio.Task[None]] = set()
        # registration messages being edited, and those to edit once more after that
        self._refreshing: set[int] = set()
        self._refresh_again: set[int] = set()
        driver.moved.append(self._moved)
        driver.started.append(lambda row: self._spawn(self.refresh(row.tournament_id)))
        driver.ended.append(self._ended)
        driver.cancelled.append(lambda row: self._spawn(self._cancelled(row)))

    # ----- requests ---------------------------------------------------------

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
    ) -> bool:
        """Create one, post its registration message here and, with a start time, its
        Discord event; False if refused."""
        channel = interaction.channel
        if not isinstance(channel, discord.TextChannel):  # its tables will be threads
            await reply(interaction, t("thread.not_here"))
            return False
        clock = self.driver.service.clock
        starts_at = None if start_in is None else clock() + 60 * start_in
        try:
            row = await self.driver.create(
                interaction.guild_id or 0, channel.id, interaction.user.id, variant,
                table_size=table_size, cap=cap, speed=speed,
                start_stack=stack if stack is not None else structures.DEFAULT_STACK,
                fee=fee, starts_at=starts_at, late_levels=late_levels, start_count=start_when,
                games=games, rotation=rotation, every=every,
            )  # fmt: skip
        except (SngRefused, MttRefused) as exc:
            await reply(interaction, refusal(exc))
            return False
        note = ""
        if starts_at is not None and interaction.guild is not None:
            event = await self._create_event(interaction.guild, row, starts_at)
            note = "" if event is not None else "\n" + t("mtt.no_event")
        async with self.languages.public(row.guild_id):
            embed, view = await self._message(row)
            message = await channel.send(embed=embed, view=view)
        await self.tournaments.set_message(row.tournament_id, message.id)
        link = jump_url(row.guild_id, channel.id, message.id)
        await reply(interaction, t("mtt.created", id=row.tournament_id, link=link) + note)
        return True

    async def register(self, interaction: discord.Interaction, tournament_id: int) -> None:
        user = interaction.user
        try:
            table = await self.driver.register(
                interaction.guild_id or 0, tournament_id, user.id, user.display_name
            )
        except (SngRefused, MttRefused) as exc:
            await reply(interaction, refusal(exc))
            return
        if table is None:
            await reply(interaction, t("mtt.registered", id=tournament_id))
        else:
            channel = self.driver.channel(tournament_id, table)  # None: its thread is coming
            where = f"<#{channel}>" if channel else "-"
            await reply(interaction, t("mtt.registered_late", table=table, thread=where))
        await self.refresh(tournament_id)

    async def unregister(self, interaction: discord.Interaction, tournament_id: int) -> None:
        try:
            await self.driver.mine(interaction.guild_id or 0, tournament_id)
            await self.driver.service.unregister(
                interaction.guild_id or 0, tournament_id, interaction.user.id
            )
        except SngRefused as exc:
            await reply(interaction, refusal(exc))
            return
        await reply(interaction, t("mtt.unregistered", id=tournament_id))
        await self.refresh(tournament_id)

    async def start(
        self, interaction: discord.Interaction, tournament_id: int, *, moderator: bool
    ) -> None:
        try:
            await self.driver.start(
                interaction.guild_id or 0, tournament_id, interaction.user.id, moderator=moderator
            )
        except (SngRefused, MttRefused) as exc:
            await reply(interaction, refusal(exc))
            return
        await reply(interaction, t("mtt.started", id=tournament_id))
        await self.refresh(tournament_id)

    async def begin_scheduled(self, tournament_id: int) -> None:
        """Start one at its time (the scheduler's start): as ``/mtt start``, with the
        registration message brought up to date; a refusal goes back to the scheduler."""
        await self.driver.begin(tournament_id)
        await self.refresh(tournament_id)

    async def cancelled_at_start(self, row: TournamentRow) -> None:
        """One the scheduler cancelled (too few at its time): its registration message
        and Discord event brought up to date, as a cancel by command does."""
        await self._cancelled(row)

    async def reschedule(
        self,
        interaction: discord.Interaction,
        tournament_id: int,
        start_in: int,
        *,
        moderator: bool,
    ) -> None:
        try:
            row = await self.driver.mine(interaction.guild_id or 0, tournament_id)
            if not moderator and interaction.user.id != row.creator_id:
                raise SngRefused(SngCode.NOT_YOURS)
            if row.status != "registering":
                raise SngRefused(SngCode.NOT_REGISTERING)
            if start_in < 1:
                raise MttRefused(MttCode.PAST_START, now=self.driver.service.clock())
            starts_at = self.driver.service.clock() + 60 * start_in
            await self.driver.service.refusing(self.repo.reschedule(tournament_id, starts_at))
        except (SngRefused, MttRefused) as exc:
            await reply(interaction, refusal(exc))
            return
        _, event_id = await self.repo.scheduled(tournament_id)
        guild = self.client.get_guild(row.guild_id)
        if event_id is not None and guild is not None:
            start, end = _times(starts_at)
            await events.move_event(guild, event_id, start=start, end=end)
        elif guild is not None:
            await self._create_event(guild, row, starts_at)
        await reply(
            interaction, t("mtt.rescheduled", id=tournament_id, at=f"<t:{int(starts_at)}:F>")
        )
        await self.refresh(tournament_id)

    async def cancel(
        self, interaction: discord.Interaction, tournament_id: int, *, moderator: bool
    ) -> None:
        try:
            row = await self.driver.cancel(
                interaction.guild_id or 0, tournament_id, interaction.user.id, moderator=moderator
            )
        except SngRefused as exc:
            await reply(interaction, refusal(exc))
            return
        await reply(interaction, t("mtt.cancelled", id=tournament_id))
        await self._cancelled(row)

    async def here(self, guild_id: int, channel_id: int) -> int | None:
        """The newest open multi-table tournament registered in, or played in, here."""
        for row in reversed(await self.tournaments.open_tournaments(guild_id)):
            if await self.repo.state(row.tournament_id) is None:
                continue
            tables = self.driver.manager.tournament_tables(row.tournament_id).values()
            if channel_id == row.channel_id or channel_id in tables:
                return row.tournament_id
        return None

    async def channel_gone(self, guild_id: int, channel_id: int) -> None:
        """A tournament's channel was deleted: it is cancelled, every fee back, and its
        tables close (their hands void)."""
        for row in await self.tournaments.open_tournaments(guild_id):
            if row.channel_id == channel_id and await self.repo.state(row.tournament_id):
                await self.driver.cancel(guild_id, row.tournament_id, 0, moderator=True)
                await self._cancelled(row)

    # ----- the messages -----------------------------------------------------

    async def _message(self, row: TournamentRow) -> tuple[discord.Embed, discord.ui.View]:
        state = await self.repo.state(row.tournament_id)
        starts_at, _ = await self.repo.scheduled(row.tournament_id)
        entries = await self.tournaments.entries(row.tournament_id)
        size = state.table_size if state else 0
        late = state.late_levels if state else 0
        late_open = False
        if row.status == "running" and self.driver.running(row.tournament_id):
            level, _ = self.driver.service.level(row)
            late_open = level.number <= late
        tables = self.driver.manager.tournament_tables(row.tournament_id)
        embed = registration_embed(
            row,
            entries,
            table_size=size,
            starts_at=starts_at,
            late_levels=late,
            tables=tables,
            start_count=state.start_count if state else None,
        )
        return embed, registration_view(row, late_open)

    async def refresh(self, tournament_id: int) -> None:
        """Show where the tournament stands on its registration message. Coalesced: while
        an edit is under way, the next ones become one more edit after it (a thousand
        registrations would otherwise queue a thousand edits of one message behind
        Discord's per-route limit, minutes of them, long after the start)."""
        if tournament_id in self._refreshing:
            self._refresh_again.add(tournament_id)
            return
        self._refreshing.add(tournament_id)
        try:
            while True:
                self._refresh_again.discard(tournament_id)
                await self._refresh_now(tournament_id)
                if tournament_id not in self._refresh_again:
                    return
        finally:
            self._refreshing.discard(tournament_id)

    async def _refresh_now(self, tournament_id: int) -> None:
        row = await self.tournaments.get(tournament_id)
        if row is None or row.message_id is None:
            return
        channel = self.client.get_partial_messageable(row.channel_id)
        async with self.languages.public(row.guild_id):
            embed, view = await self._message(row)
        try:
            await channel.get_partial_message(row.message_id).edit(embed=embed, view=view)
        except discord.HTTPException as exc:  # deleted by someone: nothing to keep up to date
            log.info("the registration message of tournament %d: %r", tournament_id, exc)

    def _moved(self, row: TournamentRow, user_id: int, number: int, channel: int) -> None:
        self._spawn(self._notify_moved(row, user_id, number, channel))

    async def _notify_moved(
        self, row: TournamentRow, user_id: int, number: int, channel: int
    ) -> None:
        """A private notice to the moved player only: their new table, with its link."""
        link = f"https://discord.com/channels/{row.guild_id}/{channel}"
        with i18n.using(i18n.reader(user_id)):
            text = t("mtt.moved", id=row.tournament_id, table=number, thread=f"<#{channel}>")
        await self.presenter.send_dm(user_id, content=f"{text}\n{link}")

    def _ended(self, row: TournamentRow, final: Final) -> None:
        self._spawn(self._finish(row))

    async def _finish(self, row: TournamentRow) -> None:
        """The public summary in its channel, the message's end, the event completed."""
        done = await self.tournaments.get(row.tournament_id)
        if done is None:
            return
        entries = await self.tournaments.entries(row.tournament_id)
        async with self.languages.public(row.guild_id):
            pages = summary_pages(done, entries)
        channel = self.client.get_partial_messageable(row.channel_id)
        for page in pages:
            await channel.send(page)
        await self.refresh(row.tournament_id)
        _, event_id = await self.repo.scheduled(row.tournament_id)
        guild = self.client.get_guild(row.guild_id)
        if event_id is not None and guild is not None:
            await events.complete_event(guild, event_id)

    async def _cancelled(self, row: TournamentRow) -> None:
        await self.refresh(row.tournament_id)
        _, event_id = await self.repo.scheduled(row.tournament_id)
        guild = self.client.get_guild(row.guild_id)
        if event_id is None or guild is None:
            return
        if not await events.cancel_event(guild, event_id):  # started already: it ends
            await events.complete_event(guild, event_id)

    async def _create_event(
        self, guild: discord.Guild, row: TournamentRow, starts_at: float
    ) -> int | None:
        start, end = _times(starts_at)
        async with self.languages.public(row.guild_id):
            name = t("mtt.event.name", id=row.tournament_id, game=tournament_games(row))
        event = await events.create_event(
            guild, name=name, start=start, end=end, channel_id=row.channel_id
        )
        await self.repo.set_event(row.tournament_id, event)
        return event

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("a multi-table tournament message failed", exc_info=task.exception())

    async def wait_idle(self) -> None:
        """Wait for the summaries, notices and edits under way (tests, shutdown)."""
        while self._tasks or self.driver._tasks:
            await self.driver.wait_idle()
            await asyncio.gather(*list(self._tasks), return_exceptions=True)


def _times(starts_at: float) -> tuple[datetime, datetime]:
    start = datetime.fromtimestamp(starts_at, UTC)
    return start, start + timedelta(hours=EVENT_HOURS)
