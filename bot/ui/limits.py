"""Abuse limits: one budget per user over every table command and button, cooldowns on
costly commands, and a click rate.

As RoboDanny's ``spam_control``: every table command and every table button a user
uses spends from one budget (``TABLE_BUDGET``), so join, leave, sit out, deal, hand
and the bets cannot be spammed either; past it they are refused, privately, with
when to try again. Buckets are per user, so one user hitting a limit never slows
anyone else at the table. The clock is the bot's, so tests can move time.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TypeVar

import discord
from discord import app_commands

from bot.ui.catalog import t

from .app import app_of
from .rates import BUDGET_BUCKET, CLICKS, COOLDOWNS, TABLE_BUDGET

T = TypeVar("T")

TABLE_REPOST = 60.0  # seconds during which /<game> table points to the message instead


def wait_seconds(retry_after: float) -> int:
    return max(1, math.ceil(retry_after))


def cooldown(bucket: str, *, count: bool = True) -> Callable[[T], T]:
    """An app command check: at most COOLDOWNS[bucket] uses per user; CommandOnCooldown after.

    ``count=False``: the check only looks; the command counts a use itself with
    ``note`` (so that a refused ``open``, which posts nothing, costs nothing)."""
    uses, per = COOLDOWNS[bucket]

    async def predicate(interaction: discord.Interaction) -> bool:
        limiter = app_of(interaction).limits
        if count:
            wait = limiter.retry_after(bucket, interaction.user.id, uses, per)
        else:
            wait = limiter.wait(bucket, interaction.user.id, uses, per)
        if wait:
            raise app_commands.CommandOnCooldown(app_commands.Cooldown(uses, per), wait)
        return True

    return app_commands.check(predicate)


async def allow_click(interaction: discord.Interaction) -> bool:
    """A table component's interaction_check: refuse (privately) a user clicking too fast."""
    uses, per = CLICKS
    wait = app_of(interaction).limits.retry_after("click", interaction.user.id, uses, per)
    if not wait:
        return await within_budget(interaction)
    text = t("limit.clicks", seconds=wait_seconds(wait))
    await interaction.response.send_message(text, ephemeral=True)
    return False


async def within_budget(interaction: discord.Interaction) -> bool:
    """Spend one use of the user's table budget; past it, refuse privately with when
    to try again (False)."""
    uses, per = TABLE_BUDGET
    wait = app_of(interaction).limits.retry_after(BUDGET_BUCKET, interaction.user.id, uses, per)
    if not wait:
        return True
    text = t("limit.cooldown", seconds=wait_seconds(wait))
    if interaction.response.is_done():
        await interaction.followup.send(text, ephemeral=True)
    else:
        await interaction.response.send_message(text, ephemeral=True)
    return False
