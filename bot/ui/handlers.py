"""Interaction handlers shared by slash commands and buttons.

They translate a Discord interaction into one table-manager call and answer
the caller. Private cards are only ever answered ephemerally.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, ParamSpec

import discord

from bot.tables.manager import TableManager
from bot.tables.models import Refused

from .render import hand_embed, table_embed, table_files

if TYPE_CHECKING:
    from bot.client import PokerBot

BUY_ACTIONS = ("left", "right", "blind")
log = logging.getLogger(__name__)
P = ParamSpec("P")


def manager_of(interaction: discord.Interaction) -> TableManager:
    client: PokerBot = interaction.client  # type: ignore[assignment]
    return client.manager


async def reply(interaction: discord.Interaction, text: str, **kwargs) -> None:
    """Answer ephemerally, whether or not the interaction was answered before."""
    if interaction.response.is_done():
        await interaction.followup.send(text, ephemeral=True, **kwargs)
    else:
        await interaction.response.send_message(text, ephemeral=True, **kwargs)


def legal_now(manager: TableManager, channel_id: int, user_id: int) -> str:
    """What the caller can do now, for refusals."""
    try:
        view = manager.view(channel_id)
    except Refused:
        return ""
    hand = view.hand
    if hand is None or hand.complete:
        return "No hand is running: `deal` starts one."
    if view.to_act_user != user_id:
        return f"Waiting for {view.name(hand.to_act or '')} to act."
    names = {"discard": "discard (or stand pat)", "buy": "buy left, right or blind"}
    return "Legal now: " + ", ".join(names.get(a, a) for a in hand.legal) + "."


async def refuse(interaction: discord.Interaction, exc: Refused, channel_id: int) -> None:
    message = str(exc)
    if "legal now" not in message.lower() and interaction.guild_id is not None:
        extra = legal_now(manager_of(interaction), channel_id, interaction.user.id)
        message = f"{message} {extra}".strip()
    await reply(interaction, message)


def guarded(handler: Callable[P, Awaitable[None]]) -> Callable[P, Awaitable[None]]:
    """Log an unexpected error with its context and apologise, privately and briefly."""

    @functools.wraps(handler)
    async def run(*args: P.args, **kwargs: P.kwargs) -> None:
        try:
            await handler(*args, **kwargs)
        except Exception:
            interaction = next(a for a in args if isinstance(a, discord.Interaction))
            log.exception(
                "component %s failed (guild %s, channel %s, user %s)",
                (interaction.data or {}).get("custom_id"),
                interaction.guild_id,
                interaction.channel_id,
                interaction.user.id,
            )
            await apologize(interaction)

    return run


async def apologize(interaction: discord.Interaction) -> None:
    text = "Sorry, something went wrong on my side. Nothing was changed; please try again."
    try:
        await reply(interaction, text)
    except discord.HTTPException:
        log.warning("could not send the apology for interaction %s", interaction.id)


@guarded
async def act(
    interaction: discord.Interaction,
    channel_id: int,
    action: str,
    *,
    cards: str | Sequence[str] | None = None,
    source: str | None = None,
    hand_id: int | None = None,
    turn: int | None = None,
) -> None:
    manager = manager_of(interaction)
    try:
        result = await manager.act(
            channel_id,
            interaction.user.id,
            action,
            cards=cards,
            source=source,
            hand_id=hand_id,
            turn=turn,
        )
    except Refused as exc:
        await refuse(interaction, exc, channel_id)
        return
    if result.seat is None:
        await reply(interaction, result.text)
        return
    embed, files = hand_embed(result.seat, note=f"✅ {result.text}")
    if interaction.response.is_done():
        await interaction.followup.send(embed=embed, files=files, ephemeral=True)
    else:
        await interaction.response.send_message(embed=embed, files=files, ephemeral=True)


async def show_hand(interaction: discord.Interaction, channel_id: int, note: str = "") -> None:
    manager = manager_of(interaction)
    try:
        seat = manager.my_hand(channel_id, interaction.user.id)
    except Refused as exc:
        await reply(interaction, str(exc))
        return
    if seat is None:
        await reply(interaction, "You are not dealt into the current hand.")
        return
    embed, files = hand_embed(seat, note)
    await interaction.response.send_message(embed=embed, files=files, ephemeral=True)


async def open_picker(
    interaction: discord.Interaction, channel_id: int, hand_id: int | None, turn: int | None
) -> None:
    """The draw button: the player to act gets their cards and a discard menu, privately."""
    from .components import discard_picker

    manager = manager_of(interaction)
    try:
        view = manager.view(channel_id)
        seat = manager.my_hand(channel_id, interaction.user.id)
        if seat is None or seat.decision is None or seat.decision.phase != "draw":
            raise Refused("It is not your turn to draw.")
        if hand_id != view.hand_id or turn != view.turn:
            raise Refused("That button is from an earlier turn; use the current table message.")
    except Refused as exc:
        await refuse(interaction, exc, channel_id)
        return
    embed, files = hand_embed(seat, "Pick the cards to throw away, or stand pat.")
    picker = discard_picker(channel_id, view.hand_id or 0, view.turn, list(seat.cards))
    await interaction.response.send_message(embed=embed, files=files, view=picker, ephemeral=True)


@guarded
async def button(
    interaction: discord.Interaction,
    channel_id: int,
    action: str,
    hand_id: int | None,
    turn: int | None,
) -> None:
    if action == "hand":
        await show_hand(interaction, channel_id)
    elif action == "draw":
        await open_picker(interaction, channel_id, hand_id, turn)
    elif action == "pat":
        await act(interaction, channel_id, "discard", cards=[], hand_id=hand_id, turn=turn)
    elif action in BUY_ACTIONS:
        await act(interaction, channel_id, "buy", source=action, hand_id=hand_id, turn=turn)
    elif action == "join":
        await join(interaction, channel_id)
    elif action == "deal":
        await deal(interaction, channel_id)
    else:
        await act(interaction, channel_id, action, hand_id=hand_id, turn=turn)


async def join(interaction: discord.Interaction, channel_id: int) -> None:
    try:
        text = await manager_of(interaction).join(
            channel_id, interaction.user.id, interaction.user.display_name
        )
    except Refused as exc:
        await refuse(interaction, exc, channel_id)
        return
    await reply(interaction, text)


async def deal(interaction: discord.Interaction, channel_id: int) -> None:
    manager = manager_of(interaction)
    try:
        await manager.deal(channel_id, interaction.user.id)
    except Refused as exc:
        await refuse(interaction, exc, channel_id)
        return
    await show_hand(interaction, channel_id, "🃏 The cards are dealt.")


async def post_table(interaction: discord.Interaction, channel_id: int, log: list[str]) -> int:
    """Send the table message as the public answer; return its message id."""
    view = manager_of(interaction).view(channel_id)
    from .components import table_components

    response = await interaction.response.send_message(
        embed=table_embed(view, log), files=table_files(view), view=table_components(view)
    )
    return int(response.message_id or 0)
