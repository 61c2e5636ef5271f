"""Clicks on buttons a message no longer has: answered by the button their custom_id names.

discord.py runs a persistent ``DynamicItem`` only when the clicked message still has
that component (``ViewStore.schedule_dynamic_item_call``), so a client still showing
old buttons (a Sit & Go's registration message, whose Register and Unregister go at the
start) would get no answer: Discord says "This interaction failed". ``StaleClicks``
listens to every interaction and runs such a click through the item its custom_id
names, as if the button were there: its own checks, its acknowledgement, its answer
(for Register, the private "registration is closed"), which changes nothing.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any

import discord

log = logging.getLogger(__name__)


def _custom_ids(components: Iterable[Any]) -> set[str]:
    """Every custom_id of a message's components, nested rows included."""
    found: set[str] = set()
    stack = list(components)
    while stack:
        component = stack.pop()
        if custom_id := getattr(component, "custom_id", None):
            found.add(custom_id)
        stack.extend(getattr(component, "children", None) or ())
    return found


class StaleClicks:
    """Answers a click on a button of ``buttons`` (dynamic items) that its message lost."""

    def __init__(self, *buttons: type[discord.ui.DynamicItem[Any]]) -> None:
        self._buttons = buttons

    async def on_interaction(self, interaction: discord.Interaction) -> None:
        data: Any = interaction.data or {}
        button = discord.ComponentType.button.value
        if interaction.type is not discord.InteractionType.component:
            return
        if data.get("component_type") != button or interaction.message is None:
            return
        custom_id = str(data.get("custom_id", ""))
        if custom_id in _custom_ids(interaction.message.components):
            return  # still there: discord.py runs it
        for factory in self._buttons:
            match = factory.__discord_ui_compiled_template__.fullmatch(custom_id)
            if match is None:
                continue
            log.info("a click on %s, no longer on message %s", custom_id, interaction.message.id)
            base: discord.ui.Button[Any] = discord.ui.Button(custom_id=custom_id)
            item = await factory.from_custom_id(interaction, base, match)
            if await item.interaction_check(interaction):
                await item.callback(interaction)
            return
