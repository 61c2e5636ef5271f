"""The table message: one table's message on Discord, the only owner of its state.

A ``TableMessage`` keeps everything about the message (its id, its Recent log, the lock
that keeps one edit in flight, the version of what it shows, its dirty flag, the board its
attachment shows, the latest click whose token can edit it) and is the only code that
changes them. Its callers use its methods:

* ``record``/``refresh``/``ask_repost``: something changed (the presenter, taking events);
* ``run``: the edit worker. It renders the manager's *current* view (the stored state is
  the truth), so a burst of events becomes one edit; it edits through the token of the
  latest click that carried the table while that lasts, re-posts the message when the old
  one is gone, too old to edit (error 30046), or asked for again, and disables the old
  message's buttons;
* ``answer_with``: a click on the message is answered with the table after its step
  (``UPDATE_MESSAGE``, or a deferral and an edit of the original response);
* ``close``: the closed table's last look, under the same lock, so it comes after any edit
  or click's answer in flight.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from collections.abc import Awaitable, Callable, Iterable
from typing import Any, TypeVar

import discord

from bot.tables.models import Refused, TableEvent, TableView

from .components import table_components
from .cycles import let_go
from .lane import RECENT_LINES, Carrier, Host, Line, Voice
from .render import Board, board_files, board_of, table_embed
from .sends import TRANSIENT, backoff, timed
from .text import event_line

# the presenter's log (docs/operations.md names it), whichever of its parts writes
log = logging.getLogger("bot.ui.presenter")

EDITS_TOO_OLD = 30046  # "maximum number of edits to messages older than 1 hour reached"

T = TypeVar("T")


class _Original:
    """The message id ``@original`` (an interaction's original response: the clicked table
    message) for ``Webhook.edit_message``: discord.py percent-quotes an id given as a str
    ("%40original"), not one it formats."""

    def __format__(self, spec: str) -> str:
        return "@original"


ORIGINAL: Any = _Original()


def too_old(host: Host, message_id: int) -> bool:
    """Whether the message is past the host's ``repost_age``: re-post it, do not edit it."""
    posted = discord.utils.snowflake_time(message_id).timestamp()
    return host.clock() - posted > host.repost_age


class TableMessage:
    """One table's message on Discord: its id, Recent log, lock, version and dirty flag are
    changed here only."""

    def __init__(self, host: Host, channel_id: int, message_id: int | None) -> None:
        self._host = host
        self.channel_id = channel_id
        self._message_id = message_id
        #: the Recent log: each event is worded when first shown, in the server's language
        #: then, and keeps those words (it is history)
        self._log: deque[Line] = deque(maxlen=RECENT_LINES)
        self._dirty = asyncio.Event()
        self._repost = False
        self._editing = False
        self._failures = 0  # edit failures in a row, for the backoff
        #: one edit of the message in flight, by the editor, a click's answer or the close
        self._lock = asyncio.Lock()
        self._version = 0  # events recorded: a carried view is the latest if none came since
        self._held = 0  # clicks whose answers will carry the table
        self._unheld = asyncio.Event()
        self._unheld.set()
        self._carrier: Carrier | None = None
        #: the board the message's attachment shows: an edit that shows the same board keeps
        #: the attachment instead of uploading it again
        self._board: Board | None = None
        #: the latest click whose answer carried the table: for 15 minutes its token can edit
        #: the message (its original response) outside the global limit
        self._voice: Voice | None = None
        self._closed = False  # its table closed: never look the channel's table up again

    # ----- what others read --------------------------------------------------------

    @property
    def message_id(self) -> int | None:
        """The message shown now (None before the first one is posted, and once closed)."""
        return self._message_id

    @property
    def carrier(self) -> Carrier | None:
        """The click now carrying the table, if any: a result it causes is its followup."""
        return self._carrier

    @property
    def voice(self) -> Voice | None:
        """The latest click whose token can still edit the message, if any."""
        return self._voice

    def wanted(self) -> bool:
        """An edit is wanted (something changed since the message last showed the table)."""
        return self._dirty.is_set()

    def busy(self) -> bool:
        """An edit is wanted, under way, or left to a click's answer."""
        return self._dirty.is_set() or self._editing or self._held > 0

    def recent(self) -> list[str]:
        """The Recent log's lines (new ones worded in the language being built now)."""
        lines = self._log
        for line in lines:
            if line.event is not None:
                line.text, line.event = event_line(line.event), None
        return [line.text or "" for line in lines]

    def carries(self, interaction: discord.Interaction) -> bool:
        """Whether a click's answer can carry the table: it was on the message now shown,
        one that can still be edited in place."""
        message = interaction.message
        return (
            message is not None
            and message.id == self._message_id
            and not self._repost
            and not too_old(self._host, message.id)
        )

    # ----- what changes it -----------------------------------------------------------

    def restore(self, events: Iterable[TableEvent]) -> None:
        """The Recent log of a table restored at start-up (nothing to show yet)."""
        self._log.extend(Line(event) for event in events)

    def record(self, event: TableEvent) -> None:
        """An event: a line of the Recent log, and the message is to show the table now."""
        self._log.append(Line(event))
        self._version += 1
        self._dirty.set()

    def refresh(self) -> None:
        """Show the table as it is now (reloaded: no log line)."""
        self._dirty.set()

    def ask_repost(self) -> None:
        """Post the message again at the bottom of the channel (the old one goes stale)."""
        self._repost = True
        self._dirty.set()

    # ----- the edit worker -----------------------------------------------------------

    async def run(self) -> None:
        """Keep the message showing the table's current view, until cancelled."""
        while True:
            await self._dirty.wait()
            if self._held:  # a click's answer will carry the table: see what is left after
                await self._unheld.wait()
                continue
            self._editing = True
            try:
                async with self._lock:
                    if not self._dirty.is_set():
                        continue  # carried by a click meanwhile
                    self._dirty.clear()
                    await self._show()
                self._failures = 0
            except TRANSIENT as exc:
                delay = backoff(self._host, self._failures)
                self._failures += 1
                log.warning(
                    "table message of %s not updated (%r); trying again in %.2f s",
                    self.channel_id,
                    exc,
                    delay,
                )
                await asyncio.sleep(delay)
                self._dirty.set()  # the next try shows the state as it is then
            except discord.HTTPException as exc:
                log.error(
                    "table message of %s (message %s) not updated: %s %s %s",
                    self.channel_id,
                    self._message_id,
                    exc.status,
                    exc.code,
                    exc.text,
                )
            except Exception:
                log.exception("presenting table %s failed", self.channel_id)
            finally:
                self._editing = False

    # ----- a click that carries the table ---------------------------------------------

    async def answer_with(
        self, interaction: discord.Interaction, step: Callable[[], Awaitable[T]]
    ) -> T:
        """Run the step a click on the message asked for, and answer the click with the
        table after it: ``UPDATE_MESSAGE`` when the step and the table's content are ready
        within the host's ``answer_within``, else a deferral at that deadline and then an
        edit of the original response. A refusal leaves the click unanswered for the caller
        to answer privately; a table the answer could not carry is left to the editor."""
        loop = asyncio.get_running_loop()
        within = self._host.answer_within
        carrier = Carrier(interaction, answer_by=loop.time() + within)
        self._hold(carrier)
        try:
            task = asyncio.ensure_future(step())
            done, _ = await asyncio.wait({task}, timeout=within)
            if not done:
                await interaction.response.defer()  # type 6: the message stays for now
            result = await task
            if not interaction.response.is_done() and self._lock.locked():
                await interaction.response.defer()  # an edit is in flight: do not wait for it
            async with self._lock:
                await self._carry(carrier)
            return result
        finally:
            self._release(carrier)

    def _hold(self, carrier: Carrier) -> None:
        """A click whose answer will carry the table: the editor leaves the message to it."""
        self._held += 1
        self._unheld.clear()
        self._carrier = carrier

    def _release(self, carrier: Carrier) -> None:
        """The click is answered (or failed): the editor shows whatever is left after it."""
        carrier.answered.set()
        if self._carrier is carrier:
            self._carrier = None
        self._held -= 1
        if self._held == 0:
            self._unheld.set()

    async def _carry(self, carrier: Carrier) -> None:
        """Answer the carrier's click with the table as it is now (an update of the message,
        or an edit of the original response after a deferral); on failure the editor shows
        it."""
        host, interaction = self._host, carrier.interaction
        view = self._table()
        if view is None:  # the step closed the table: its closing edit shows the last of it
            if not interaction.response.is_done():
                try:
                    await interaction.response.defer()  # type 6: answered, nothing new shown
                except (discord.HTTPException, *TRANSIENT) as exc:
                    log.warning("the click at %s could not be deferred (%r)", self.channel_id,
                                exc)  # fmt: skip
            return
        version = self._version
        making = asyncio.ensure_future(self._content(view))
        if not interaction.response.is_done():
            # the table's content (its board drawn on a render thread that other tables
            # share) may not be ready by the click's deadline: then acknowledge it first
            remaining = carrier.answer_by - asyncio.get_running_loop().time()
            done, _ = await asyncio.wait({making}, timeout=max(0.0, remaining))
            if not done:
                try:
                    await interaction.response.defer()  # type 6: the message stays for now
                except (discord.HTTPException, *TRANSIENT) as exc:
                    log.warning("the click at %s could not be deferred (%r)", self.channel_id,
                                exc)  # fmt: skip
        content = await making
        board = content.pop("board")
        try:
            if interaction.response.is_done():
                await timed(host, interaction.edit_original_response(**content))
                host.carried_late += 1
            else:
                await timed(host, interaction.response.edit_message(**content))
        except (discord.HTTPException, *TRANSIENT) as exc:
            log.warning("the answer to a click at %s did not carry the table (%r): editing it",
                        self.channel_id, exc)  # fmt: skip
            return
        finally:
            let_go(content["view"])
        carrier.ok = True
        self._board = board
        if interaction.message is not None:  # always: carries() checked it
            self._voice = Voice.of(interaction, interaction.message.id)
        host.carried += 1
        if self._version == version:  # nothing happened since: the message shows the latest
            self._dirty.clear()

    # ----- the close -------------------------------------------------------------------

    def retire(self) -> None:
        """Its table closed: the message never shows the channel's table again (a table
        opened there since is another table, with a message of its own)."""
        self._closed = True

    async def close(self, content: dict[str, Any] | None) -> None:
        """The closed table's last look on the message (``content``; None: its thread is
        gone), after any edit or click's answer in flight (the lock), and the message let
        go."""
        self.retire()
        async with self._lock:
            if content is not None and self._message_id is not None:
                channel = self._host.client.get_partial_messageable(self.channel_id)
                message = channel.get_partial_message(self._message_id)
                with contextlib.suppress(discord.NotFound):  # deleted: no buttons to turn off
                    await message.edit(attachments=[], **content)
            self._message_id = None  # after the edit: a retried close edits again
            self._log.clear()

    # ----- showing the table -----------------------------------------------------------

    async def _content(self, view: TableView, *, upload: bool = False) -> dict[str, Any]:
        """The message, in the server's language. Its board is attached only when it changed
        since the last one shown (or ``upload``: a new message)."""
        async with self._host.languages.public(view.guild_id):
            board = board_of(view)
            content: dict[str, Any] = {
                "embed": table_embed(view, self.recent()),
                "view": table_components(view),
            }
            if upload or board is None or board != self._board:
                content["attachments"] = await board_files(board)
        content["board"] = board  # what the message shows once this is sent
        return content

    def _table(self) -> TableView | None:
        """The table as it is now, not as the event saw it; None once it closed."""
        if self._closed:
            return None
        try:
            return self._host.manager.view(self.channel_id)
        except Refused:
            return None

    async def _show(self) -> None:
        host = self._host
        view = self._table()
        if view is None:
            return  # the table is gone: the closing edit shows its last look
        old = self._message_id
        if old is None or self._repost or too_old(host, old):
            await self._post(view, await self._content(view, upload=True))
            return
        content = await self._content(view)
        board = content.pop("board")
        channel = host.client.get_partial_messageable(self.channel_id)
        try:
            if not await self._edit_by_token(content):
                await timed(host, channel.get_partial_message(old).edit(**content))
            host.edits += 1
            self._board = board
        except discord.NotFound:
            await self._post(view, await self._content(view, upload=True))
        except discord.HTTPException as exc:
            if exc.code != EDITS_TOO_OLD:
                raise
            await self._post(view, await self._content(view, upload=True))
        finally:
            let_go(content["view"])

    async def _edit_by_token(self, content: dict[str, Any]) -> bool:
        """Edit the message through the token of the latest click that carried it (an
        interaction endpoint, outside the global limit), while that token lasts; False if
        there is none or it failed (the caller edits through the channel)."""
        host, voice = self._host, self._voice
        if not host.reuse_tokens or voice is None:
            return False
        if voice.message_id != self._message_id or not voice.usable(host.clock()):
            self._voice = None
            return False
        try:
            await timed(host, voice.webhook.edit_message(ORIGINAL, **content))
        except (discord.HTTPException, *TRANSIENT) as exc:
            log.info("token edit of table %s failed (%r): through the channel", self.channel_id,
                     exc)  # fmt: skip
            self._voice = None
            return False
        host.token_edits += 1
        return True

    async def _post(self, view: TableView, content: dict[str, Any]) -> None:
        """A new message; the old one keeps its content, its buttons disabled."""
        host = self._host
        channel = host.client.get_partial_messageable(self.channel_id)
        files, board = content.pop("attachments"), content.pop("board")
        try:
            message = await timed(host, channel.send(files=files, **content))
        finally:
            let_go(content["view"])
        host.edits += 1
        self._board = board
        old, self._message_id, self._repost = self._message_id, message.id, False
        await host.messages.set_table_message(self.channel_id, message.id)
        if old is None or old == message.id:
            return
        async with host.languages.public(view.guild_id):
            stale = table_components(view)
        for item in stale.children:
            button: Any = getattr(item, "item", item)  # a DynamicItem wraps its button
            button.disabled = True
        try:
            await timed(host, channel.get_partial_message(old).edit(view=stale))
        except (discord.HTTPException, *TRANSIENT) as exc:
            log.warning("old table message %s keeps its buttons (%r)", old, exc)
        finally:
            let_go(stale)
