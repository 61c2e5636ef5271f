"""The table message: a lane's edit worker keeps it showing the table's current view.

It renders the manager's *current* view (the stored state is the truth), so a burst
of events becomes one edit, with at most one edit in flight per table; it edits
through the token of the latest click that carried the table while that lasts,
re-posts the message when the old one is gone, too old to edit (error 30046), or
asked for again, and disables the old message's buttons. A click's answer can carry
the table instead (``carry``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

import discord

from bot.tables.models import Refused, TableView

from . import i18n
from .components import table_components
from .cycles import let_go
from .lane import Carrier, Host, Lane, Voice
from .render import board_files, board_of, table_embed
from .sends import TRANSIENT, backoff, timed

# the presenter's log (docs/operations.md names it), whichever of its parts writes
log = logging.getLogger("bot.ui.presenter")

EDITS_TOO_OLD = 30046  # "maximum number of edits to messages older than 1 hour reached"


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


async def edit_worker(host: Host, lane: Lane) -> None:
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
                await _show(host, lane)
            lane.failures = 0
        except TRANSIENT as exc:
            delay = backoff(host, lane.failures)
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


async def carry(host: Host, lane: Lane, carrier: Carrier) -> None:
    """Answer the carrier's click with the table as it is now (an update of the message, or
    an edit of the original response after a deferral); on failure the editor shows it."""
    interaction = carrier.interaction
    view = _table_of(host, lane)
    if view is None:  # the step closed the table: its closing edit shows the last of it
        if not interaction.response.is_done():
            try:
                await interaction.response.defer()  # type 6: answered, nothing new shown
            except (discord.HTTPException, *TRANSIENT) as exc:
                log.warning("the click at %s could not be deferred (%r)", lane.channel_id, exc)
        return
    version = lane.version
    making = asyncio.ensure_future(_content(host, lane, view))
    if not interaction.response.is_done():
        # the table's content (its board drawn on a render thread that other tables share)
        # may not be ready by the click's deadline: then acknowledge the click first
        remaining = carrier.answer_by - asyncio.get_running_loop().time()
        done, _ = await asyncio.wait({making}, timeout=max(0.0, remaining))
        if not done:
            try:
                await interaction.response.defer()  # type 6: the message stays for now
            except (discord.HTTPException, *TRANSIENT) as exc:
                log.warning("the click at %s could not be deferred (%r)", lane.channel_id, exc)
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
                    lane.channel_id, exc)  # fmt: skip
        return
    finally:
        let_go(content["view"])
    carrier.ok = True
    lane.board = board
    if interaction.message is not None:  # always: carries() checked it
        lane.voice = Voice.of(interaction, interaction.message.id)
    host.carried += 1
    if lane.version == version:  # nothing happened since: the message shows the latest
        lane.dirty.clear()


async def show_closed(client: discord.Client, lane: Lane, content: dict[str, Any] | None) -> None:
    """The closed table's last look on its message (``content``; None: its thread is gone),
    after any edit or click's answer in flight (the lane's lock), and the lane let go of
    its message."""
    async with lane.lock:
        if content is not None and lane.message_id is not None:
            channel = client.get_partial_messageable(lane.channel_id)
            with contextlib.suppress(discord.NotFound):  # deleted: nothing left to turn off
                await channel.get_partial_message(lane.message_id).edit(attachments=[], **content)
        lane.message_id = None  # after the edit: a retried job edits again
        lane.log.clear()


async def _content(
    host: Host, lane: Lane, view: TableView, *, upload: bool = False
) -> dict[str, Any]:
    """The table message, in the server's language. Its board is attached only when it
    changed since the last one shown (or ``upload``: a new message)."""
    async with i18n.public(host.client, view.guild_id):
        board = board_of(view)
        content: dict[str, Any] = {
            "embed": table_embed(view, lane.recent()),
            "view": table_components(view),
        }
        if upload or board is None or board != lane.board:
            content["attachments"] = await board_files(board)
    content["board"] = board  # what the message shows once this is sent
    return content


def _table_of(host: Host, lane: Lane) -> TableView | None:
    """The lane's table as it is now, not as the event saw it; None once it closed. A
    retired lane never looks its table up by channel: a table opened there again since
    is another table, with a lane of its own."""
    if lane.retired:
        return None
    try:
        return host.manager.view(lane.channel_id)
    except Refused:
        return None


async def _show(host: Host, lane: Lane) -> None:
    view = _table_of(host, lane)
    if view is None:
        return  # the table is gone: the send worker's closing edit shows its last look
    old = lane.message_id
    if old is None or lane.repost or too_old(host, old):
        await _post(host, lane, view, await _content(host, lane, view, upload=True))
        return
    content = await _content(host, lane, view)
    board = content.pop("board")
    channel = host.client.get_partial_messageable(lane.channel_id)
    try:
        if not await _edit_by_token(host, lane, content):
            await timed(host, channel.get_partial_message(old).edit(**content))
        host.edits += 1
        lane.board = board
    except discord.NotFound:
        await _post(host, lane, view, await _content(host, lane, view, upload=True))
    except discord.HTTPException as exc:
        if exc.code != EDITS_TOO_OLD:
            raise
        await _post(host, lane, view, await _content(host, lane, view, upload=True))
    finally:
        let_go(content["view"])


async def _edit_by_token(host: Host, lane: Lane, content: dict[str, Any]) -> bool:
    """Edit the table message through the token of the latest click that carried it (an
    interaction endpoint, outside the global limit), while that token lasts; False if
    there is none or it failed (the caller edits through the channel)."""
    voice = lane.voice
    if not host.reuse_tokens or voice is None:
        return False
    if voice.message_id != lane.message_id or not voice.usable(host.clock()):
        lane.voice = None
        return False
    try:
        await timed(host, voice.webhook.edit_message(ORIGINAL, **content))
    except (discord.HTTPException, *TRANSIENT) as exc:
        log.info("token edit of table %s failed (%r): through the channel", lane.channel_id,
                 exc)  # fmt: skip
        lane.voice = None
        return False
    host.token_edits += 1
    return True


async def _post(host: Host, lane: Lane, view: TableView, content: dict[str, Any]) -> None:
    """A new table message; the old one keeps its content, its buttons disabled."""
    channel = host.client.get_partial_messageable(lane.channel_id)
    files, board = content.pop("attachments"), content.pop("board")
    try:
        message = await timed(host, channel.send(files=files, **content))
    finally:
        let_go(content["view"])
    host.edits += 1
    lane.board = board
    old, lane.message_id, lane.repost = lane.message_id, message.id, False
    await host.messages.set_table_message(lane.channel_id, message.id)
    if old is None or old == message.id:
        return
    async with i18n.public(host.client, view.guild_id):
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
