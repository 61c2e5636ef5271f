"""Persistent buttons and menus of the table message.

Each component is a ``DynamicItem``: its custom_id names the table (channel),
the action and, for turn actions, the hand and turn it was drawn for. Nothing
is kept in memory, so the buttons work after a restart, and a click on a
button drawn for an earlier turn is refused by the manager.
"""

from __future__ import annotations

import re
from enum import StrEnum
from typing import Any

import discord

from bot.engine import ActionKind, BuySource, Phase
from bot.engine.cards import format_card, parse_card
from bot.render.plain_text import card_text
from bot.tables.models import TableView

from . import i18n
from .answering import Ack, Answered
from .app import app_of
from .catalog import t
from .hand_names import card_name
from .limits import allow_click
from .mixed_menu import add_choice_menu

__all__ = [
    "Button",
    "DiscardSelect",
    "TableButton",
    "discard_picker",
    "dms_retry",
    "table_components",
]

BUTTON_TEMPLATE = r"pk:(?P<channel>\d+):(?P<action>[a-z]+)(?::(?P<hand>\d+):(?P<turn>\d+))?"
SELECT_TEMPLATE = r"pkd:(?P<channel>\d+):(?P<hand>\d+):(?P<turn>\d+)"
BET_STYLE: dict[str, discord.ButtonStyle] = {
    ActionKind.CHECK: discord.ButtonStyle.secondary,
    ActionKind.CALL: discord.ButtonStyle.primary,
    ActionKind.BET: discord.ButtonStyle.success,
    ActionKind.RAISE: discord.ButtonStyle.success,
    ActionKind.FOLD: discord.ButtonStyle.danger,
}


class Button(StrEnum):
    """What a table button asks for (its custom_id's action part), when it is not a
    betting action (``ActionKind``) or a buy's source (``BuySource``)."""

    HAND = "hand"  # My hand (and a practice table's review)
    DRAW = "draw"  # the discard menu
    PAT = "pat"  # stand pat (in the discard menu)
    JOIN = "join"
    DEAL = "deal"
    DMS = "dms"  # try DMs again


def _int(value: str | None) -> int | None:
    return int(value) if value is not None else None


class TableButton(
    Answered, discord.ui.DynamicItem[discord.ui.Button[Any]], template=BUTTON_TEMPLATE
):
    """A button of the table message (or of a private message about the table): the
    controller says how its click is acknowledged (``bot/ui/answering.py``)."""

    def __init__(
        self,
        channel_id: int,
        action: str,
        hand_id: int | None = None,
        turn: int | None = None,
        *,
        label: str | None = None,
        style: discord.ButtonStyle = discord.ButtonStyle.secondary,
        row: int | None = None,
    ) -> None:
        custom_id = f"pk:{channel_id}:{action}"
        if hand_id is not None and turn is not None:
            custom_id += f":{hand_id}:{turn}"
        button: discord.ui.Button[Any] = discord.ui.Button(
            label=label or action.title(), style=style, custom_id=custom_id, row=row
        )
        super().__init__(button)
        self.channel_id, self.action, self.hand_id, self.turn = channel_id, action, hand_id, turn

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> TableButton:
        assert isinstance(item, discord.ui.Button)  # the template matches buttons only
        return cls(
            int(match["channel"]),
            match["action"],
            _int(match["hand"]),
            _int(match["turn"]),
            label=item.label,
            style=item.style,
        )

    async def interaction_check(self, interaction: discord.Interaction) -> bool:
        i18n.for_interaction(interaction)  # answer in the clicker's language
        return await allow_click(interaction)  # one user's spam never slows the others

    def ack_for(self, interaction: discord.Interaction) -> Ack:
        return app_of(interaction).controller.ack(interaction, self.channel_id, self.action)

    async def answer(self, interaction: discord.Interaction) -> None:
        controller = app_of(interaction).controller
        await controller.button(interaction, self.channel_id, self.action, self.hand_id, self.turn)


class DiscardSelect(
    Answered, discord.ui.DynamicItem[discord.ui.Select[Any]], template=SELECT_TEMPLATE
):
    """The discard picker; it is only ever sent in an ephemeral message to its owner, which
    its answer updates in place (the new cards)."""

    ack = Ack.UPDATE

    def __init__(
        self, channel_id: int, hand_id: int, turn: int, cards: list[tuple[str, str]] | None = None
    ) -> None:
        options = [  # the card as drawn, and spelled out in the reader's language
            discord.SelectOption(label=label, value=value, description=card_name(parse_card(value)))
            for value, label in cards or []
        ]
        select: discord.ui.Select[Any] = discord.ui.Select(
            custom_id=f"pkd:{channel_id}:{hand_id}:{turn}",
            placeholder=t("picker.placeholder"),
            min_values=1,
            max_values=max(1, len(options)),
            options=options or [discord.SelectOption(label="-", value="-")],
        )
        super().__init__(select)
        self.channel_id, self.hand_id, self.turn = channel_id, hand_id, turn

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> DiscardSelect:
        return cls(int(match["channel"]), int(match["hand"]), int(match["turn"]))

    async def interaction_check(self, interaction: discord.Interaction) -> bool:
        i18n.for_interaction(interaction)
        return await allow_click(interaction)

    async def answer(self, interaction: discord.Interaction) -> None:
        data: Any = interaction.data or {}
        values = list(data.get("values", []))
        controller = app_of(interaction).controller
        await controller.discard(interaction, self.channel_id, values, self.hand_id, self.turn)


#: the rows of the table message: a phone shows a row of at most four short buttons without
#: cropping, so the actions (at most three at once) have a row and "My hand" its own
ACTIONS_ROW, MINE_ROW = 0, 1


def table_components(view: TableView) -> discord.ui.View:
    """Buttons for the legal actions of the player to act, plus "My hand" and seating."""
    ui = discord.ui.View(timeout=None)
    ch, hand = view.channel_id, view.hand
    if view.closed:
        return ui  # a closed table's message keeps no buttons
    if hand and not hand.complete and view.hand_id is not None:
        key = (view.hand_id, view.turn)
        if hand.phase == Phase.BET:
            for action in hand.legal:
                label = t(f"button.{action}", cost=hand.costs.get(action))
                ui.add_item(
                    TableButton(
                        ch, action, *key, label=label, style=BET_STYLE[action], row=ACTIONS_ROW
                    )
                )
        elif hand.phase == Phase.DRAW:
            draw, pat = t("button.draw"), t("button.pat")
            style = discord.ButtonStyle.primary
            ui.add_item(
                TableButton(ch, Button.DRAW, *key, label=draw, style=style, row=ACTIONS_ROW)
            )
            ui.add_item(TableButton(ch, Button.PAT, *key, label=pat, row=ACTIONS_ROW))
        else:
            offers = hand.market
            if hand.to_act in hand.all_in:  # all-in: the stub's top card, free (RULES.md §8.4)
                offers = tuple(o for o in offers if o.source == BuySource.BLIND)
            for offer in offers:
                label = (
                    t(
                        "button.offer",
                        source=t(f"source.{offer.source}").capitalize(),
                        card=card_text(offer.card),
                        price=offer.price,
                    )
                    if offer.card is not None
                    else t("button.blind")
                )
                ui.add_item(
                    TableButton(
                        ch,
                        offer.source,
                        *key,
                        label=label,
                        style=discord.ButtonStyle.primary,
                        row=ACTIONS_ROW,
                    )
                )
        mine = t("button.my_hand")
        ui.add_item(
            TableButton(
                ch, Button.HAND, label=mine, style=discord.ButtonStyle.secondary, row=MINE_ROW
            )
        )
    else:
        join, deal = t("button.join"), t("button.deal")
        ui.add_item(TableButton(ch, Button.JOIN, label=join, style=discord.ButtonStyle.primary))
        ui.add_item(TableButton(ch, Button.DEAL, label=deal, style=discord.ButtonStyle.success))
        if view.review_hand_id is not None and any(s.bot for s in view.seats):
            # a practice table: your decisions in the last hand next to the computer's
            review = t("button.review")
            style = discord.ButtonStyle.secondary
            ui.add_item(TableButton(ch, Button.HAND, label=review, style=style))
        add_choice_menu(ui, view)  # a mixed table's dealer's choice
    return ui


def discard_picker(channel_id: int, hand_id: int, turn: int, cards: list[int]) -> discord.ui.View:
    """Ephemeral: a menu of the player's own cards and a stand-pat button."""
    ui = discord.ui.View(timeout=None)
    options = [(format_card(c), card_text(c)) for c in cards]
    ui.add_item(DiscardSelect(channel_id, hand_id, turn, options))
    ui.add_item(TableButton(channel_id, Button.PAT, hand_id, turn, label=t("button.pat")))
    return ui


def dms_retry(channel_id: int) -> discord.ui.View:
    """Ephemeral, in the warning about closed DMs: try sending DMs again."""
    ui = discord.ui.View(timeout=None)
    ui.add_item(TableButton(channel_id, Button.DMS, label=t("button.dms_retry")))
    return ui
