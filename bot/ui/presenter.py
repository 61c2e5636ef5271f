"""The presenter: shows each table's outbox on Discord, one presenter per table.

The table manager appends every event to its table's outbox and returns at once
(``bot/tables/outbox.py``). Here each table has

* an edit worker: it renders the table message from the manager's *current*
  view (the stored state is the truth), so a burst of events becomes one edit,
  with at most one edit in flight per table; it re-posts the message when the
  old one is gone, too old to edit (error 30046), or asked for again, and
  disables the old message's buttons;
* a send worker: the public results, the players' DMs and notices, strictly in
  the order of the events that caused them.

Transient failures (5xx, timeouts, connection errors, a rate limit too long for
discord.py to wait out) are retried with backoff, on top of discord.py's own 429
handling. Permanent ones are logged with their context. Nothing here ever blocks
the game: the manager never waits on a presenter.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any

import aiohttp
import discord

from bot.engine import VARIANTS, SeatView
from bot.tables.models import Refused, TableEvent, TableView
from bot.tables.outbox import Outgoing

from . import i18n
from .catalog import t
from .components import let_go, table_components
from .handlers import where
from .render import hand_embed, result_embed, table_embed, table_files
from .text import event_line

if TYPE_CHECKING:
    from bot.tables.manager import TableManager

log = logging.getLogger(__name__)

#: failures worth trying again: Discord's 5xx, timeouts, dropped connections, long rate limits
TRANSIENT = (
    discord.DiscordServerError,
    discord.RateLimited,
    TimeoutError,
    aiohttp.ClientError,
    OSError,
)
RECENT_LINES = 6
EDITS_TOO_OLD = 30046  # "maximum number of edits to messages older than 1 hour reached"

Job = Callable[[], Awaitable[None]]


@dataclass
class _Line:
    #: the event until it is worded; then only its words are kept (a whole table view per
    #: line would be most of what a table keeps alive between actions)
    event: TableEvent | None
    text: str | None = None


@dataclass
class _Lane:
    """One table's presenter state."""

    channel_id: int
    message_id: int | None
    #: the Recent log: each event is worded when first shown, in the server's language then,
    #: and keeps those words (it is history)
    log: deque[_Line] = field(default_factory=lambda: deque(maxlen=RECENT_LINES))
    dirty: asyncio.Event = field(default_factory=asyncio.Event)
    sends: asyncio.Queue[tuple[str, Job]] = field(default_factory=asyncio.Queue)
    repost: bool = False
    editing: bool = False
    sending: bool = False
    failures: int = 0  # edit failures in a row, for the backoff
    tasks: list[asyncio.Task[None]] = field(default_factory=list)

    def busy(self) -> bool:
        return self.dirty.is_set() or self.editing or self.sending or not self.sends.empty()


class Presenter:
    #: re-post a table message this old (seconds) instead of editing it: Discord limits
    #: edits to messages older than an hour
    repost_age = 50 * 60
    retry_delays: tuple[float, ...] = (0.25, 0.5, 1.0, 2.0, 4.0)
    request_timeout = 20.0

    def __init__(
        self,
        client: discord.Client,
        manager: TableManager,
        *,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.client = client
        self.manager = manager
        self.clock = clock
        self.lanes: dict[int, _Lane] = {}
        self._messages: dict[int, int] = {}
        #: user id -> their DM channel id. discord.py remembers only the last 128 DM channels,
        #: so past that many players every DM cost a second request (all on one rate-limit
        #: bucket): the channel is created once per user and process instead.
        self._dm_channels: dict[int, int] = {}
        self.edits = 0  # table message edits and posts made, for the benchmark

    # ----- life cycle ----------------------------------------------------------------

    async def start(self) -> None:
        """Attach to the manager's outbox; show whatever waited there during start-up."""
        self._messages = await self.manager.table_messages()
        for channel_id in self.manager.channels():
            log_ = self.manager.hand_log(channel_id)[-RECENT_LINES:]
            self._lane(channel_id).log.extend(_Line(e) for e in log_)
        self.manager.outbox.on_put(self._wake)
        for channel_id in self.manager.outbox.pending():
            self._wake(channel_id)

    async def drain(self, timeout: float) -> bool:
        """Wait until every outbox is shown, at most ``timeout`` seconds; True if all was."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while any(lane.busy() for lane in self.lanes.values()) or self.manager.outbox.pending():
            if loop.time() >= deadline:
                left = [ch for ch, lane in self.lanes.items() if lane.busy()]
                log.warning("stopped presenting with work left at tables %s", left)
                return False
            await asyncio.sleep(0.02)
        return True

    async def close(self) -> None:
        tasks = [task for lane in self.lanes.values() for task in lane.tasks]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    # ----- what the commands ask for -----------------------------------------------

    def message_id(self, channel_id: int) -> int | None:
        """The table message shown now (None before the first one is posted)."""
        lane = self.lanes.get(channel_id)
        return lane.message_id if lane else self._messages.get(channel_id)

    def recent(self, channel_id: int) -> list[str]:
        """The Recent log's lines (new ones worded in the language being built now)."""
        lines = self._lane(channel_id).log
        for line in lines:
            if line.event is not None:
                line.text, line.event = event_line(line.event), None
        return [line.text or "" for line in lines]

    def repost(self, channel_id: int) -> None:
        """Post the table message again at the bottom of the channel (the old one goes stale)."""
        lane = self._lane(channel_id)
        lane.repost = True
        lane.dirty.set()

    # ----- taking events from the outbox -------------------------------------------

    def _lane(self, channel_id: int) -> _Lane:
        lane = self.lanes.get(channel_id)
        if lane is None:
            lane = _Lane(channel_id, self._messages.get(channel_id))
            self.lanes[channel_id] = lane
            loop = asyncio.get_running_loop()
            lane.tasks = [
                loop.create_task(self._editor(lane), name=f"table-edits-{channel_id}"),
                loop.create_task(self._sender(lane), name=f"table-sends-{channel_id}"),
            ]
        return lane

    def _wake(self, channel_id: int) -> None:
        """Called by the outbox as an event is appended: take it without waiting."""
        lane = self._lane(channel_id)
        for item in self.manager.outbox.take(channel_id):
            self._absorb(lane, item)

    def _absorb(self, lane: _Lane, item: Outgoing) -> None:
        event = item.event
        if event.kind == "closed":
            lane.sends.put_nowait(("closed table", partial(self._closed, lane, event)))
            return
        if event.kind == "refreshed":  # reloaded: show the table as stored, no log line
            lane.dirty.set()
            return
        lane.log.append(_Line(event))
        if event.kind == "finished" and event.result is not None:
            lane.sends.put_nowait((f"result of hand {event.hand_id}", partial(self._result, event)))
        if not VARIANTS[event.view.variant].split:  # Abyssinia's cards are all open
            for user_id in event.cards_changed:
                seat = item.hands.get(user_id)
                if seat is not None:
                    job = partial(self._dm_hand, lane, user_id, seat, event)
                    lane.sends.put_nowait((f"hand DM to {user_id}", job))
        lane.dirty.set()

    # ----- the table message ---------------------------------------------------------

    async def _editor(self, lane: _Lane) -> None:
        while True:
            await lane.dirty.wait()
            lane.dirty.clear()
            lane.editing = True
            try:
                await self._show(lane)
                lane.failures = 0
            except TRANSIENT as exc:
                delay = self._delay(lane.failures)
                lane.failures += 1
                log.warning(
                    "table message of %s not updated (%r); trying again in %.2f s",
                    lane.channel_id,
                    exc,
                    delay,
                )
                await asyncio.sleep(delay)
                lane.dirty.set()  # the next try shows the state as it is then
            except discord.HTTPException as exc:
                log.error(
                    "table message of %s (message %s) not updated: %s %s %s",
                    lane.channel_id,
                    lane.message_id,
                    exc.status,
                    exc.code,
                    exc.text,
                )
            except Exception:
                log.exception("presenting table %s failed", lane.channel_id)
            finally:
                lane.editing = False

    async def _content(self, lane: _Lane, view: TableView) -> dict[str, Any]:
        """The table message, in the server's language."""
        async with i18n.public(self.client, view.guild_id):
            return {
                "embed": table_embed(view, self.recent(lane.channel_id)),
                "view": table_components(view),
                "attachments": await table_files(view),
            }

    async def _show(self, lane: _Lane) -> None:
        try:
            view = self.manager.view(lane.channel_id)  # the state now, not the event's
        except Refused:
            return  # the table is gone
        content = await self._content(lane, view)
        try:
            old = lane.message_id
            if old is None or lane.repost or self._too_old(old):
                await self._post(lane, view, content)
                return
            channel = self.client.get_partial_messageable(lane.channel_id)
            try:
                await self._timed(channel.get_partial_message(old).edit(**content))
                self.edits += 1
            except discord.NotFound:
                await self._post(lane, view, await self._content(lane, view))
            except discord.HTTPException as exc:
                if exc.code != EDITS_TOO_OLD:
                    raise
                await self._post(lane, view, await self._content(lane, view))
        finally:
            let_go(content["view"])

    def _too_old(self, message_id: int) -> bool:
        posted = discord.utils.snowflake_time(message_id).timestamp()
        return self.clock() - posted > self.repost_age

    async def _post(self, lane: _Lane, view: TableView, content: dict[str, Any]) -> None:
        """A new table message; the old one keeps its content, its buttons disabled."""
        channel = self.client.get_partial_messageable(lane.channel_id)
        files = content.pop("attachments")
        try:
            message = await self._timed(channel.send(files=files, **content))
        finally:
            let_go(content["view"])
        self.edits += 1
        old, lane.message_id, lane.repost = lane.message_id, message.id, False
        await self.manager.set_table_message(lane.channel_id, message.id)
        if old is None or old == message.id:
            return
        async with i18n.public(self.client, view.guild_id):
            stale = table_components(view)
        for item in stale.children:
            button: Any = getattr(item, "item", item)  # a DynamicItem wraps its button
            button.disabled = True
        try:
            await self._timed(channel.get_partial_message(old).edit(view=stale))
        except (discord.HTTPException, *TRANSIENT) as exc:
            log.warning("old table message %s keeps its buttons (%r)", old, exc)
        finally:
            let_go(stale)

    # ----- results, DMs, notices: in order -------------------------------------------

    async def _sender(self, lane: _Lane) -> None:
        while True:
            what, job = await lane.sends.get()
            lane.sending = True
            try:
                await self._with_retries(lane, what, job)
            finally:
                lane.sending = False

    async def _with_retries(self, lane: _Lane, what: str, job: Job) -> None:
        for attempt in range(len(self.retry_delays) + 1):
            try:
                await self._timed(job())
                return
            except TRANSIENT as exc:
                if attempt == len(self.retry_delays):
                    log.error("gave up on %s at table %s: %r", what, lane.channel_id, exc)
                    return
                delay = self._delay(attempt)
                log.warning("%s at table %s failed (%r); again in %.2f s", what, lane.channel_id,
                            exc, delay)  # fmt: skip
                await asyncio.sleep(delay)
            except discord.HTTPException as exc:
                log.error("%s at table %s failed: %s %s %s", what, lane.channel_id, exc.status,
                          exc.code, exc.text)  # fmt: skip
                return
            except Exception:
                log.exception("%s at table %s failed", what, lane.channel_id)
                return

    async def _result(self, event: TableEvent) -> None:
        channel = self.client.get_partial_messageable(event.view.channel_id)
        async with i18n.public(self.client, event.view.guild_id):
            embed = result_embed(event)
        await channel.send(embed=embed)

    async def _dm_hand(self, lane: _Lane, user_id: int, seat: SeatView, event: TableEvent) -> None:
        # each player's cards in their own language (the table's if the bot has not heard it)
        public = await i18n.server_language(self.client, event.view.guild_id)
        with i18n.using(i18n.reader(user_id, public)):
            note = t("hand.dm.dealt") if event.kind == "dealt" else t("hand.dm.drawn")
            embed, files = await hand_embed(seat, note, where(lane.channel_id, event.hand_id))
        try:
            dm = await self.dm_channel(user_id)
            await dm.send(embed=embed, files=files)
        except discord.Forbidden:
            pass  # closed DMs: the player was told privately when they joined

    async def _closed(self, lane: _Lane, event: TableEvent) -> None:
        """The last word on a closed table: its message without buttons, and a notice for a
        cancelled hand. Nothing when its thread is gone (archived or deleted)."""
        message_id, lane.message_id = lane.message_id, None
        lane.log.clear()
        if event.params.get("gone"):
            return
        channel = self.client.get_partial_messageable(lane.channel_id)
        async with i18n.public(self.client, event.view.guild_id):
            notice = t("close.cancelled", hand_id=event.hand_id) if event.hand_id else None
            content: dict[str, Any] = {
                "embed": table_embed(event.view, []),
                "view": table_components(event.view),
            }
        if notice is not None:
            await channel.send(content=notice)
        if message_id is not None:
            with contextlib.suppress(discord.NotFound):  # deleted: nothing left to turn off
                await channel.get_partial_message(message_id).edit(attachments=[], **content)
        let_go(content["view"])

    # ----- helpers -----------------------------------------------------------------------

    async def dm_channel(self, user_id: int) -> discord.PartialMessageable:
        """The user's DM channel, created (one request) only the first time."""
        channel_id = self._dm_channels.get(user_id)
        if channel_id is None:
            dm = await self.client.create_dm(discord.Object(user_id))
            channel_id = self._dm_channels[user_id] = dm.id
        return self.client.get_partial_messageable(channel_id, type=discord.ChannelType.private)

    def _delay(self, failures: int) -> float:
        return self.retry_delays[min(failures, len(self.retry_delays) - 1)]

    async def _timed(self, call: Awaitable[Any]) -> Any:
        return await asyncio.wait_for(call, self.request_timeout)
