"""The presenter: shows each table's outbox on Discord, one lane per table.

The table manager appends every event to its table's outbox and returns at once
(``bot/tables/outbox.py``). Here each table has a lane with two workers:

* its table message (``bot/ui/table_message.py``), the one owner of the message's state:
  it renders the manager's *current* view, so a burst of events becomes one edit, with at
  most one edit in flight per table, and re-posts the message when it cannot be edited;
* its send queue (``bot/ui/sends.py``): the public results, the players' DMs and
  notices (``bot/ui/posts.py``), strictly in the order of the events that caused them.

The players' DM channels are kept in ``bot/ui/dm_book.py``. Failures are retried or
logged (``sends``); nothing here ever blocks the game: the manager never waits on a
presenter.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from functools import partial
from typing import TYPE_CHECKING, Any, TypeVar

import discord

from bot.engine import VARIANTS
from bot.tables import supervise
from bot.tables.models import EventKind
from bot.tables.outbox import Outgoing

from . import posts
from .dm_book import DmBook
from .lane import RECENT_LINES
from .languages import ServerLanguages
from .sends import SendQueue
from .table_message import TableMessage

if TYPE_CHECKING:
    from bot.storage.dm_channels import DmChannels
    from bot.storage.tables import Tables
    from bot.tables.manager import TableManager

log = logging.getLogger(__name__)

T = TypeVar("T")


class Lane:
    """One table's lane: its table message and its send queue, each run by a task."""

    def __init__(self, message: TableMessage, sends: SendQueue) -> None:
        self.channel_id = message.channel_id
        self.message = message
        self.sends = sends
        self.tasks: list[asyncio.Task[None]] = []

    def busy(self) -> bool:
        return self.message.busy() or self.sends.busy()


class Presenter:
    #: re-post a table message this old (seconds) instead of editing it: Discord limits
    #: edits to messages older than an hour
    repost_age: float = 50 * 60
    #: a click whose step and table are not ready this long (seconds) after it is handled
    #: is answered by a deferral first (the table follows as an edit of the original
    #: response): Discord wants an answer within 3 s, and players want the click
    #: acknowledged at once (the initial response's p99 target is 100 ms)
    answer_within = 0.05
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
        messages: Tables,
        dms: DmChannels,
        languages: ServerLanguages,
        clock: Callable[[], float] = time.time,
    ) -> None:
        """``messages``: where each table message's id is kept; ``dms``: the players'
        DM channels (the presenter's own data, in its repositories); ``languages``: each
        server's, for its public messages."""
        self.client = client
        self.languages = languages
        self.manager = manager
        self.messages = messages
        self.clock = clock
        self.lanes: dict[int, Lane] = {}
        self._messages: dict[int, int] = {}
        self._retired: set[Lane] = set()  # lanes of closed tables, finishing their queues
        self.dms = DmBook(client, dms)
        self.edits = 0  # table message edits and posts made, for the benchmark
        self.carried = 0  # table views that went out as the answer to a click
        self.token_edits = 0  # table edits made with an earlier click's token
        self.carried_late = 0  # of the carried views, those sent as an edit after a deferral

    # ----- life cycle ----------------------------------------------------------------

    async def start(self) -> None:
        """Attach to the manager's outbox; show whatever waited there during start-up."""
        self._messages = await self.messages.table_messages()
        for channel_id in self.manager.channels():
            log_ = self.manager.hand_log(channel_id)[-RECENT_LINES:]
            self._lane(channel_id).message.restore(log_)
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

    def backlog(self) -> int:
        """Work waiting at the open tables (for the metrics): queued sends, wanted edits."""
        return sum(lane.sends.waiting() + lane.message.wanted() for lane in self.lanes.values())

    async def close(self, within: float = 10.0) -> None:
        """Stop every table's workers; one that does not stop within ``within`` seconds is
        logged and left (a shutdown never hangs on one table's worker)."""
        lanes = [*self.lanes.values(), *self._retired]
        tasks = [task for lane in lanes for task in lane.tasks]
        for task in tasks:
            task.cancel()
        if not tasks:
            return
        _, left = await asyncio.wait(tasks, timeout=within)
        if left:
            log.warning("%d presenter workers did not stop when cancelled", len(left))

    # ----- what the commands ask for -----------------------------------------------

    def message_id(self, channel_id: int) -> int | None:
        """The table message shown now (None before the first one is posted)."""
        lane = self.lanes.get(channel_id)
        return lane.message.message_id if lane else self._messages.get(channel_id)

    def recent(self, channel_id: int) -> list[str]:
        """The Recent log's lines (new ones worded in the language being built now)."""
        lane = self.lanes.get(channel_id)
        return [] if lane is None else lane.message.recent()

    def repost(self, channel_id: int) -> None:
        """Post the table message again at the bottom of the channel (the old one goes stale)."""
        self._lane(channel_id).message.ask_repost()

    def carries(self, interaction: discord.Interaction, channel_id: int) -> bool:
        """Whether a click's answer can carry this table: it was on the table message now
        shown, one that can still be edited in place."""
        lane = self.lanes.get(channel_id)
        return lane is not None and lane.message.carries(interaction)

    async def answer_with_table(
        self,
        interaction: discord.Interaction,
        channel_id: int,
        step: Callable[[], Awaitable[T]],
    ) -> T:
        """Run the step a click on the table message asked for, and answer the click with the
        table after it: ``UPDATE_MESSAGE`` (one interaction call, outside the global rate
        limit) when the step and the table's content are ready within ``answer_within``,
        else a deferral at that deadline and then an edit of the original response (the
        table message). A refusal leaves the
        click unanswered for the caller to answer privately; a table the answer could not
        carry is left to the editor."""
        return await self._lane(channel_id).message.answer_with(interaction, step)

    # ----- taking events from the outbox -------------------------------------------

    def _lane(self, channel_id: int) -> Lane:
        lane = self.lanes.get(channel_id)
        if lane is None:
            message = TableMessage(self, channel_id, self._messages.get(channel_id))
            lane = Lane(message, SendQueue(self, channel_id))
            self.lanes[channel_id] = lane
            loop = asyncio.get_running_loop()
            lane.tasks = [
                loop.create_task(message.run(), name=f"table-edits-{channel_id}"),
                loop.create_task(self._sends(lane), name=f"table-sends-{channel_id}"),
            ]
            for task in lane.tasks:  # a worker that ever dies is never silent
                supervise.watch(task, f"{task.get_name()} (the table's lane)")
        return lane

    def _wake(self, channel_id: int) -> None:
        """Called by the outbox as an event is appended: take it without waiting."""
        lane = self._lane(channel_id)
        for item in self.manager.outbox.take(channel_id):
            self._absorb(lane, item)

    def _absorb(self, lane: Lane, item: Outgoing) -> None:
        event, message, sends = item.event, lane.message, lane.sends
        if event.kind == EventKind.CLOSED:
            sends.put("closed table", partial(posts.closed, self, message, event))
            # the lane is retired: it finishes its queue and ends (a table opened here again
            # gets a lane of its own)
            if self.lanes.get(lane.channel_id) is lane:
                del self.lanes[lane.channel_id]
                self._messages.pop(lane.channel_id, None)
                self._retired.add(lane)
            message.retire()
            sends.close()
            return
        if event.kind == EventKind.REFRESHED:  # reloaded: show the table as stored, no log line
            message.refresh()
            return
        carrier = message.carrier
        if event.kind == EventKind.FINISHED and event.result is not None:
            job = partial(posts.result, self, event, carrier)
            sends.put(f"result of hand {event.hand_id}", job)
        # A DM at the deal only: after a draw the player's answer shows the new cards, and
        # everything else is a click on My hand away (Abyssinia's cards are all open)
        if event.kind == EventKind.DEALT and not VARIANTS[event.view.variant].split:
            for user_id in event.cards_changed:
                seat = item.hands.get(user_id)
                if seat is not None:
                    job = partial(posts.hand_dm, self.dms, self.languages, user_id, seat, event)
                    sends.put(f"hand DM to {user_id}", job)
        message.record(event)

    async def _sends(self, lane: Lane) -> None:
        await lane.sends.run()
        self._end(lane)

    def _end(self, lane: Lane) -> None:
        """Free a closed table's lane: its editor stops, nothing keeps it."""
        self._retired.discard(lane)
        for task in lane.tasks:
            if task is not asyncio.current_task():
                task.cancel()
        lane.tasks.clear()

    # ----- the players' DMs (bot/ui/dm_book.py) ----------------------------------------

    async def dm_channel(self, user_id: int) -> discord.PartialMessageable:
        """The user's DM channel, created (one request) only the first time ever."""
        return await self.dms.channel(user_id)

    async def dms_closed(self, user_id: int) -> bool:
        return await self.dms.closed(user_id)

    async def dms_known(self, user_id: int) -> bool:
        """A DM channel is known and was not found closed."""
        return await self.dms.known(user_id)

    async def send_dm(self, user_id: int, **content: Any) -> bool:
        """Send a DM unless the user's DMs are known to be closed; a refusal (403) marks them
        closed until ``reopen_dms``. True if it was sent."""
        return await self.dms.send(user_id, **content)

    async def reopen_dms(self, user_id: int) -> None:
        """Try the user's DMs again from now on (they joined again, or asked to)."""
        await self.dms.reopen(user_id)
