"""Keeps each table's public message current and sends players their cards.

Listens to the table manager: every event re-renders the table message in
place; dealt or changed cards go to their owner by DM; a finished hand posts
its result publicly. Nothing here decides anything about the game.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import defaultdict, deque

import discord
from discord.ext import commands

from bot.engine import VARIANTS
from bot.tables.models import TableEvent
from bot.ui import i18n
from bot.ui.catalog import t
from bot.ui.components import table_components
from bot.ui.handlers import where
from bot.ui.render import hand_embed, result_embed, table_embed, table_files
from bot.ui.text import event_line

log = logging.getLogger(__name__)


class TableEvents(commands.Cog):
    def __init__(self, bot: commands.Bot) -> None:
        self.bot = bot
        self.messages: dict[int, int] = {}  # channel id -> table message id
        self.logs: dict[int, deque[str]] = defaultdict(lambda: deque(maxlen=6))
        self._tasks: set[asyncio.Task[None]] = set()

    @property
    def manager(self):
        return self.bot.manager  # type: ignore[attr-defined]

    async def cog_load(self) -> None:
        self.messages = await self.manager.store.table_messages()
        self.manager.subscribe(self.on_table_event)

    def log_of(self, channel_id: int) -> list[str]:
        return list(self.logs[channel_id])

    async def remember_message(self, channel_id: int, message_id: int) -> None:
        self.messages[channel_id] = message_id
        await self.manager.store.set_table_message(channel_id, message_id)

    async def on_table_event(self, event: TableEvent) -> None:
        channel_id = event.view.channel_id
        # what everyone sees is in the server's language; each player's cards in their own
        async with i18n.public(self.bot, event.view.guild_id) as language:
            self.logs[channel_id].append(event_line(event))
            if event.kind == "opened":
                return  # the open command posts the table message itself
            if event.kind == "closed":
                await self._closed(event)
                return
            if event.kind == "finished":
                await self._send(channel_id, embed=result_embed(event))
            if channel_id not in self.manager.tables:
                return  # closed since: its "closed" event shows the table's last state
            await self.refresh(channel_id)
            if event.cards_changed and not VARIANTS[event.view.variant].split:
                for user_id in event.cards_changed:
                    await self._dm_hand(channel_id, user_id, event.kind, language)

    async def _closed(self, event: TableEvent) -> None:
        """The last word on a closed table: its message without buttons, and a notice
        for a cancelled hand. Nothing when its thread is gone (archived or deleted)."""
        channel_id = event.view.channel_id
        message_id = self.messages.pop(channel_id, None)
        self.logs.pop(channel_id, None)
        if event.params.get("gone"):
            return
        if event.hand_id is not None:
            await self._send(channel_id, content=t("close.cancelled", hand_id=event.hand_id))
        if message_id is not None:
            message = self.bot.get_partial_messageable(channel_id).get_partial_message(message_id)
            content = {"embed": table_embed(event.view, []), "view": table_components(event.view)}
            with contextlib.suppress(discord.NotFound):  # deleted: nothing left to turn off
                await message.edit(attachments=[], **content)

    async def refresh(self, channel_id: int) -> None:
        """Edit the table message in place (or post a new one if it is gone)."""
        view = self.manager.view(channel_id)
        content = {
            "embed": table_embed(view, self.log_of(channel_id)),
            "view": table_components(view),
        }
        files = table_files(view)
        channel = self.bot.get_partial_messageable(channel_id)
        message_id = self.messages.get(channel_id)
        if message_id is not None:
            try:
                await channel.get_partial_message(message_id).edit(attachments=files, **content)
                return
            except discord.NotFound:
                pass
        message = await channel.send(files=files, **content)
        await self.remember_message(channel_id, message.id)

    async def _send(self, channel_id: int, **kwargs) -> None:
        await self.bot.get_partial_messageable(channel_id).send(**kwargs)

    async def _dm_hand(self, channel_id: int, user_id: int, kind: str, public: str) -> None:
        """DM a player their cards, in their language (``public``: the table's)."""
        seat = self.manager.my_hand(channel_id, user_id)
        if seat is None:
            return
        hand_id = self.manager.view(channel_id).hand_id
        with i18n.using(i18n.reader(user_id, public)):
            note = t("hand.dm.dealt") if kind == "dealt" else t("hand.dm.drawn")
            embed, files = hand_embed(seat, note, where(channel_id, hand_id))
        try:
            dm = await self.bot.create_dm(discord.Object(user_id))
            await dm.send(embed=embed, files=files)
        except discord.HTTPException:
            pass  # closed DMs: the player was told privately when they joined


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(TableEvents(bot))
