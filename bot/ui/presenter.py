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
from dataclasses import dataclass, field, replace
from functools import partial
from typing import TYPE_CHECKING, Any, TypeVar

import aiohttp
import discord

from bot.engine import VARIANTS, SeatView
from bot.storage.dm_channels import DmChannel
from bot.tables.models import Refused, TableEvent, TableView
from bot.tables.outbox import Outgoing

from . import i18n
from .catalog import t
from .components import let_go, table_components
from .render import Board, board_files, board_of, hand_embed, result_embed, table_embed
from .text import event_line, where

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
T = TypeVar("T")
#: Discord forgets an interaction token this long after the interaction (50027 after it)
TOKEN_LIFETIME = 15 * 60


@dataclass
class _Carrier:
    """A click on the table message whose answer carries the table: while it is held, the
    lane's editor leaves the table message to it, and a result it causes is its public
    followup."""

    interaction: discord.Interaction
    answered: asyncio.Event = field(default_factory=asyncio.Event)
    ok: bool = False  # the table went out with the answer

    def usable(self, now: float) -> bool:
        created = self.interaction.created_at.timestamp()
        return self.ok and now - created < TOKEN_LIFETIME - 60


@dataclass
class _Line:
    #: the event until it is worded; then only its words are kept (a whole table view per
    #: line would be most of what a table keeps alive between actions)
    event: TableEvent | None
    text: str | None = None


@dataclass(eq=False)
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
    #: one edit of the table message in flight, by the editor or by a click's answer
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    version: int = 0  # events absorbed: a carried view is the latest if none came since
    held: int = 0  # clicks whose answers will carry the table
    unheld: asyncio.Event = field(default_factory=asyncio.Event)
    carrier: _Carrier | None = None
    #: the board the table message's attachment shows: an edit that shows the same board
    #: keeps the attachment instead of uploading it again
    board: Board | None = None
    #: the latest click whose answer carried the table: for 15 minutes its token can edit
    #: the table message (its original response) outside the global limit
    voice: _Carrier | None = None
    retired: bool = False  # its table closed: it ends once its queue is empty

    def __post_init__(self) -> None:
        self.unheld.set()

    def busy(self) -> bool:
        return (
            self.dirty.is_set()
            or self.editing
            or self.sending
            or self.held > 0
            or not self.sends.empty()
        )


class Presenter:
    #: re-post a table message this old (seconds) instead of editing it: Discord limits
    #: edits to messages older than an hour
    repost_age = 50 * 60
    #: a click's step that takes longer than this (seconds) is answered by a deferral first
    #: (the table follows as an edit of the original response): Discord wants an answer
    #: within 3 s, and players want the click acknowledged at once
    answer_within = 0.08
    #: edit the table message with the token of its latest click (valid 15 minutes) rather
    #: than through the channel route, which counts against the global limit
    reuse_tokens = True
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
        self._retired: set[_Lane] = set()  # lanes of closed tables, finishing their queues
        #: user id -> their DM channel, and whether their DMs are closed: stored, so a DM
        #: costs one request (also after a restart: discord.py remembers only the last 128
        #: DM channels), and a closed DM is tried once, not at every deal
        self._dm_channels: dict[int, DmChannel] = {}
        self.edits = 0  # table message edits and posts made, for the benchmark
        self.carried = 0  # table views that went out as the answer to a click
        self.token_edits = 0  # table edits made with an earlier click's token
        self.carried_late = 0  # of the carried views, those sent as an edit after a deferral

    # ----- life cycle ----------------------------------------------------------------

    async def start(self) -> None:
        """Attach to the manager's outbox; show whatever waited there during start-up."""
        self._messages = await self.manager.table_messages()
        self._dm_channels = await self.manager.dm_channels()
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
        while (
            any(lane.busy() for lane in [*self.lanes.values(), *self._retired])
            or self.manager.outbox.pending()
        ):
            if loop.time() >= deadline:
                left = [ch for ch, lane in self.lanes.items() if lane.busy()]
                log.warning("stopped presenting with work left at tables %s", left)
                return False
            await asyncio.sleep(0.02)
        return True

    async def close(self) -> None:
        lanes = [*self.lanes.values(), *self._retired]
        tasks = [task for lane in lanes for task in lane.tasks]
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
        lane = self.lanes.get(channel_id)
        return [] if lane is None else self._recent(lane)

    def _recent(self, lane: _Lane) -> list[str]:
        lines = lane.log
        for line in lines:
            if line.event is not None:
                line.text, line.event = event_line(line.event), None
        return [line.text or "" for line in lines]

    def repost(self, channel_id: int) -> None:
        """Post the table message again at the bottom of the channel (the old one goes stale)."""
        lane = self._lane(channel_id)
        lane.repost = True
        lane.dirty.set()

    def carries(self, interaction: discord.Interaction, channel_id: int) -> bool:
        """Whether a click's answer can carry this table: it was on the table message now
        shown, one that can still be edited in place."""
        lane = self.lanes.get(channel_id)
        message = interaction.message
        return (
            lane is not None
            and message is not None
            and message.id == lane.message_id
            and not lane.repost
            and not self._too_old(message.id)
        )

    async def answer_with_table(
        self,
        interaction: discord.Interaction,
        channel_id: int,
        step: Callable[[], Awaitable[T]],
    ) -> T:
        """Run the step a click on the table message asked for, and answer the click with the
        table after it: ``UPDATE_MESSAGE`` (one interaction call, outside the global rate
        limit) when the step is done within ``answer_within``, else a deferral at once and
        then an edit of the original response (the table message). A refusal leaves the
        click unanswered for the caller to answer privately; a table the answer could not
        carry is left to the editor."""
        lane = self._lane(channel_id)
        carrier = _Carrier(interaction)
        lane.held += 1
        lane.unheld.clear()
        lane.carrier = carrier
        try:
            task = asyncio.ensure_future(step())
            done, _ = await asyncio.wait({task}, timeout=self.answer_within)
            if not done:
                await interaction.response.defer()  # type 6: the message stays for now
            result = await task
            if not interaction.response.is_done() and lane.lock.locked():
                await interaction.response.defer()  # an edit is in flight: do not wait for it
            async with lane.lock:
                await self._carry(lane, carrier)
            return result
        finally:
            carrier.answered.set()
            if lane.carrier is carrier:
                lane.carrier = None
            lane.held -= 1
            if lane.held == 0:
                lane.unheld.set()

    async def _carry(self, lane: _Lane, carrier: _Carrier) -> None:
        interaction = carrier.interaction
        try:
            view = self.manager.view(lane.channel_id)
        except Refused:
            return  # the table is gone
        version = lane.version
        content = await self._content(lane, view)
        board = content.pop("board")
        try:
            if interaction.response.is_done():
                await self._timed(interaction.edit_original_response(**content))
                self.carried_late += 1
            else:
                await self._timed(interaction.response.edit_message(**content))
        except (discord.HTTPException, *TRANSIENT) as exc:
            log.warning("the answer to a click at %s did not carry the table (%r): editing it",
                        lane.channel_id, exc)  # fmt: skip
            return
        finally:
            let_go(content["view"])
        carrier.ok = True
        lane.board = board
        lane.voice = carrier
        self.carried += 1
        if lane.version == version:  # nothing happened since: the message shows the latest
            lane.dirty.clear()

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
            # the lane is retired: it finishes its queue and ends (a table opened here again
            # gets a lane of its own)
            if self.lanes.get(lane.channel_id) is lane:
                del self.lanes[lane.channel_id]
                self._messages.pop(lane.channel_id, None)
                self._retired.add(lane)
            lane.retired = True
            return
        if event.kind == "refreshed":  # reloaded: show the table as stored, no log line
            lane.dirty.set()
            return
        lane.log.append(_Line(event))
        lane.version += 1
        if event.kind == "finished" and event.result is not None:
            job = partial(self._result, event, lane.carrier)
            lane.sends.put_nowait((f"result of hand {event.hand_id}", job))
        # A DM at the deal only: after a draw the player's answer shows the new cards, and
        # everything else is a click on My hand away (Abyssinia's cards are all open)
        if event.kind == "dealt" and not VARIANTS[event.view.variant].split:
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
            if lane.held:  # a click's answer will carry the table: see what is left after it
                await lane.unheld.wait()
                continue
            lane.editing = True
            try:
                async with lane.lock:
                    if not lane.dirty.is_set():
                        continue  # carried by a click meanwhile
                    lane.dirty.clear()
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

    async def _content(
        self, lane: _Lane, view: TableView, *, upload: bool = False
    ) -> dict[str, Any]:
        """The table message, in the server's language. Its board is attached only when it
        changed since the last one shown (or ``upload``: a new message)."""
        async with i18n.public(self.client, view.guild_id):
            board = board_of(view)
            content: dict[str, Any] = {
                "embed": table_embed(view, self._recent(lane)),
                "view": table_components(view),
            }
            if upload or board is None or board != lane.board:
                content["attachments"] = await board_files(board)
        content["board"] = board  # what the message shows once this is sent
        return content

    async def _show(self, lane: _Lane) -> None:
        try:
            view = self.manager.view(lane.channel_id)  # the state now, not the event's
        except Refused:
            return  # the table is gone
        old = lane.message_id
        if old is None or lane.repost or self._too_old(old):
            await self._post(lane, view, await self._content(lane, view, upload=True))
            return
        content = await self._content(lane, view)
        board = content.pop("board")
        channel = self.client.get_partial_messageable(lane.channel_id)
        try:
            if not await self._edit_by_token(lane, content):
                await self._timed(channel.get_partial_message(old).edit(**content))
            self.edits += 1
            lane.board = board
        except discord.NotFound:
            await self._post(lane, view, await self._content(lane, view, upload=True))
        except discord.HTTPException as exc:
            if exc.code != EDITS_TOO_OLD:
                raise
            await self._post(lane, view, await self._content(lane, view, upload=True))
        finally:
            let_go(content["view"])

    async def _edit_by_token(self, lane: _Lane, content: dict[str, Any]) -> bool:
        """Edit the table message through the token of the latest click that carried it (an
        interaction endpoint, outside the global limit), while that token lasts; False if
        there is none or it failed (the caller edits through the channel)."""
        voice = lane.voice
        if not self.reuse_tokens or voice is None:
            return False
        message = voice.interaction.message
        if message is None or message.id != lane.message_id or not voice.usable(self.clock()):
            lane.voice = None
            return False
        try:
            await self._timed(voice.interaction.edit_original_response(**content))
        except (discord.HTTPException, *TRANSIENT) as exc:
            log.info("token edit of table %s failed (%r): through the channel", lane.channel_id,
                     exc)  # fmt: skip
            lane.voice = None
            return False
        self.token_edits += 1
        return True

    def _too_old(self, message_id: int) -> bool:
        posted = discord.utils.snowflake_time(message_id).timestamp()
        return self.clock() - posted > self.repost_age

    async def _post(self, lane: _Lane, view: TableView, content: dict[str, Any]) -> None:
        """A new table message; the old one keeps its content, its buttons disabled."""
        channel = self.client.get_partial_messageable(lane.channel_id)
        files, board = content.pop("attachments"), content.pop("board")
        try:
            message = await self._timed(channel.send(files=files, **content))
        finally:
            let_go(content["view"])
        self.edits += 1
        lane.board = board
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
            if lane.retired and lane.sends.empty():
                self._end(lane)
                return

    def _end(self, lane: _Lane) -> None:
        """Free a closed table's lane: its editor stops, nothing keeps it."""
        self._retired.discard(lane)
        for task in lane.tasks:
            if task is not asyncio.current_task():
                task.cancel()
        lane.tasks.clear()

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

    async def _result(self, event: TableEvent, carrier: _Carrier | None = None) -> None:
        """The public result; a public followup of the click that ended the hand (outside
        the global rate limit), else a channel message."""
        async with i18n.public(self.client, event.view.guild_id):
            embed = result_embed(event)
        if carrier is not None:
            await carrier.answered.wait()
            if carrier.usable(self.clock()):
                await carrier.interaction.followup.send(embed=embed)
                return
        channel = self.client.get_partial_messageable(event.view.channel_id)
        await channel.send(embed=embed)

    async def _dm_hand(self, lane: _Lane, user_id: int, seat: SeatView, event: TableEvent) -> None:
        # each player's cards in their own language (the table's if the bot has not heard it)
        public = await i18n.server_language(self.client, event.view.guild_id)
        with i18n.using(i18n.reader(user_id, public)):
            note = t("hand.dm.dealt") if event.kind == "dealt" else t("hand.dm.drawn")
            embed, files = await hand_embed(seat, note, where(lane.channel_id, event.hand_id))
        await self.send_dm(user_id, embed=embed, files=files)

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
        """The user's DM channel, created (one request) only the first time ever."""
        known = self._dm_channels.get(user_id)
        if known is None:
            dm = await self.client.create_dm(discord.Object(user_id))
            known = self._dm_channels[user_id] = DmChannel(user_id, dm.id)
            await self.manager.set_dm_channel(known)
        return self.client.get_partial_messageable(
            known.channel_id, type=discord.ChannelType.private
        )

    def dms_closed(self, user_id: int) -> bool:
        known = self._dm_channels.get(user_id)
        return known is not None and known.closed

    def dms_known(self, user_id: int) -> bool:
        """A DM channel is known and was not found closed."""
        known = self._dm_channels.get(user_id)
        return known is not None and not known.closed

    async def send_dm(self, user_id: int, **content: Any) -> bool:
        """Send a DM unless the user's DMs are known to be closed; a refusal (403) marks them
        closed until ``reopen_dms``. True if it was sent."""
        if self.dms_closed(user_id):
            return False
        dm = await self.dm_channel(user_id)
        try:
            await dm.send(**content)
        except discord.Forbidden:
            await self._mark_dms(user_id, closed=True)
            return False
        return True

    async def reopen_dms(self, user_id: int) -> None:
        """Try the user's DMs again from now on (they joined again, or asked to)."""
        if self.dms_closed(user_id):
            await self._mark_dms(user_id, closed=False)

    async def _mark_dms(self, user_id: int, *, closed: bool) -> None:
        known = self._dm_channels.get(user_id)
        if known is None or known.closed == closed:
            return
        known = self._dm_channels[user_id] = replace(known, closed=closed)
        await self.manager.set_dm_channel(known)

    def _delay(self, failures: int) -> float:
        return self.retry_delays[min(failures, len(self.retry_delays) - 1)]

    async def _timed(self, call: Awaitable[Any]) -> Any:
        return await asyncio.wait_for(call, self.request_timeout)
