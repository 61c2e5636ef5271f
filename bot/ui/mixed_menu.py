"""The dealer's choice menu: a persistent select of the next game on a mixed table's message.

Shown while a choice is awaited; anyone may open it, only the chooser's pick counts
(the manager refuses the others with whose turn it is). Nothing is kept in memory:
the menu works after a restart. Like ``components.py`` it reaches the manager through
the client's services, never by importing the handlers (which import the components).
"""

from __future__ import annotations

import re
from typing import Any, Protocol, runtime_checkable

import discord

from bot.tables.models import Refused, TableView

from . import i18n
from .catalog import t
from .cycles import done_with
from .limits import allow_click
from .text import game, refusal

CHOICE_TEMPLATE = r"pkg:(?P<channel>\d+)"


class _Chooses(Protocol):
    async def choose_game(self, channel_id: int, user_id: int, game: str) -> TableView: ...
    def find_view(self, channel_id: int) -> TableView | None: ...


class _Holds(Protocol):
    @property
    def manager(self) -> _Chooses: ...


@runtime_checkable
class _Serves(Protocol):
    @property
    def app(self) -> _Holds: ...


class GameSelect(discord.ui.DynamicItem[discord.ui.Select[Any]], template=CHOICE_TEMPLATE):
    def __init__(self, channel_id: int, games: tuple[str, ...] = ()) -> None:
        options = [discord.SelectOption(label=game(g), value=g) for g in games]
        select: discord.ui.Select[Any] = discord.ui.Select(
            custom_id=f"pkg:{channel_id}",
            placeholder=t("mixed.menu"),
            options=options or [discord.SelectOption(label="-", value="-")],
        )
        super().__init__(select)
        self.channel_id = channel_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> GameSelect:
        return cls(int(match["channel"]))

    async def interaction_check(self, interaction: discord.Interaction) -> bool:
        i18n.for_interaction(interaction)  # answer in the clicker's language
        return await allow_click(interaction)

    async def callback(self, interaction: discord.Interaction) -> None:
        data: Any = interaction.data or {}
        picked = next(iter(data.get("values", [])), "")
        await interaction.response.defer(ephemeral=True, thinking=True)
        client = interaction.client
        if not isinstance(client, _Serves):
            raise RuntimeError("the client serves no table manager (bot.ui.app.App)")
        manager = client.app.manager
        try:
            await manager.choose_game(self.channel_id, interaction.user.id, picked)
        except Refused as exc:
            view = manager.find_view(self.channel_id)
            text = refusal(exc, None, view, interaction.user.id)
        else:
            text = t("mixed.chose", game=game(picked))
        await interaction.followup.send(text, ephemeral=True)
        done_with(interaction, self.view)


def add_choice_menu(ui: discord.ui.View, view: TableView) -> None:
    """Between hands, while a dealer's choice is awaited: the menu of the table's games."""
    mixed = view.mixed
    if mixed is not None and mixed.chooser is not None and view.hand is None and not view.closed:
        ui.add_item(GameSelect(view.channel_id, mixed.games))
