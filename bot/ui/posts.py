"""What a table's send worker posts: a hand's result, a hand DM, a closed table's last word."""

from __future__ import annotations

import logging
from typing import Any

import discord

from bot.engine import SeatView
from bot.tables.models import EventKind, TableEvent

from . import i18n
from .catalog import t
from .components import table_components
from .cycles import let_go
from .dm_book import DmBook
from .lane import Carrier, Host
from .languages import ServerLanguages
from .render import hand_embed, result_embed, table_embed
from .sends import TRANSIENT, timed
from .table_message import TableMessage
from .text import where

log = logging.getLogger(__name__)


async def result(host: Host, event: TableEvent, carrier: Carrier | None = None) -> None:
    """The public result; a public followup of the click that ended the hand (outside
    the global rate limit), else a channel message."""
    async with host.languages.public(event.view.guild_id):
        embed = result_embed(event)
    if carrier is not None:
        await carrier.answered.wait()
        if carrier.usable(host.clock()):
            await carrier.interaction.followup.send(embed=embed)
            return
    channel = host.client.get_partial_messageable(event.view.channel_id)
    await channel.send(embed=embed)


async def hand_dm(
    dms: DmBook, languages: ServerLanguages, user_id: int, seat: SeatView, event: TableEvent
) -> None:
    # each player's cards in their own language (the table's if the bot has not heard it)
    public = await languages.of(event.view.guild_id)
    with i18n.using(i18n.reader(user_id, public)):
        note = t("hand.dm.dealt") if event.kind == EventKind.DEALT else t("hand.dm.drawn")
        embed, files = await hand_embed(seat, note, where(event.view.channel_id, event.hand_id))
    await dms.send(user_id, embed=embed, files=files)


async def closed(host: Host, message: TableMessage, event: TableEvent) -> None:
    """The last word on a closed table: its message without buttons, and a notice for a
    cancelled hand. Nothing when its thread is gone (archived or deleted). The message's
    close comes after an edit or a click's answer in flight (which would otherwise
    overwrite it with the open table)."""
    if event.params.get("gone"):
        await message.close(None)
        return
    channel = host.client.get_partial_messageable(message.channel_id)
    async with host.languages.public(event.view.guild_id):
        notice = t("close.cancelled", hand_id=event.hand_id) if event.hand_id else None
        content: dict[str, Any] = {
            "embed": table_embed(event.view, []),
            "view": table_components(event.view),
        }
    try:
        if notice is not None:
            await channel.send(content=notice)
        await message.close(content)
    finally:
        let_go(content["view"])
    if event.view.tournament_id is not None:  # a tournament's table (broken, or the end): its
        await archive(host, message.channel_id)  # thread leaves the channel's active list


async def archive(host: Host, channel_id: int) -> None:
    """Archive a thread the bot made, after its table's last word: a broken table of a big
    tournament is one of up to 167 threads. Anyone posting in it opens it again."""
    thread = host.client.get_channel(channel_id)
    me = host.client.user
    if not isinstance(thread, discord.Thread) or me is None or thread.owner_id != me.id:
        return
    if thread.archived:
        return
    try:
        await timed(host, thread.edit(archived=True))
    except (discord.HTTPException, *TRANSIENT) as exc:  # it archives itself after a day
        log.info("thread %s not archived: %r", channel_id, exc)
