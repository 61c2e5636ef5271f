"""Practice tables in Discord: seating and naming computer players, and hints (private)."""

from __future__ import annotations

from dataclasses import replace

import discord

from bot.history.stored import StoredHand
from bot.tables.models import Outcome, Refused

from .app import app_of
from .catalog import t
from .coaching import advice_text
from .handlers import answer_first, refuse, reply
from .text import outcome

NICKS = 7  # bot.nick.0 … bot.nick.6 in the catalog


def bot_name(index: int, level: str) -> str:
    return t("bot.name", nick=t(f"bot.nick.{index % NICKS}"), level=t(f"level.{level}"))


def named(stored: StoredHand) -> StoredHand:
    """The stored hand with its computer players named as the table named them (their
    nick by the order they were seated; the level is not stored with a hand)."""
    bots = stored.computers()
    if not bots:
        return stored
    names = {key: t("bot.name.stored", nick=t(f"bot.nick.{i % NICKS}")) for key, i in bots.items()}
    return replace(stored, names={**names, **stored.names})


async def add_bots(
    interaction: discord.Interaction, channel_id: int, count: int, level: str
) -> list[Outcome] | None:
    """Seat ``count`` computer players; None (and the refusal said) if one is refused."""
    manager = app_of(interaction).manager
    done = []
    for _ in range(count):
        seated = sum(1 for s in manager.view(channel_id).seats if s.bot)
        try:
            done.append(
                await manager.add_bot(
                    channel_id, interaction.user.id, level, bot_name(seated, level)
                )
            )
        except Refused as exc:
            await refuse(interaction, exc, channel_id)
            return None
    return done


async def addbot(interaction: discord.Interaction, channel_id: int, level: str) -> None:
    await answer_first(interaction)
    done = await add_bots(interaction, channel_id, 1, level)
    if done:
        variant = app_of(interaction).manager.view(channel_id).variant
        await reply(interaction, outcome(done[0], variant))


async def removebot(interaction: discord.Interaction, channel_id: int) -> None:
    await answer_first(interaction)
    manager = app_of(interaction).manager
    try:
        done = await manager.remove_bot(channel_id, interaction.user.id)
    except Refused as exc:
        await refuse(interaction, exc, channel_id)
        return
    await reply(interaction, outcome(done, manager.view(channel_id).variant))


async def hint(interaction: discord.Interaction, channel_id: int) -> None:
    """What the table's computer level would do at the caller's decision: only to them."""
    try:
        advice = await app_of(interaction).manager.hint(channel_id, interaction.user.id)
    except Refused as exc:
        await refuse(interaction, exc, channel_id)
        return
    await reply(interaction, advice_text(advice))
