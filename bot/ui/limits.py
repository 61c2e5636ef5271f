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
from collections import deque
from collections.abc import Callable
from typing import Protocol, TypeVar, runtime_checkable

import discord
from discord import app_commands

from bot.ui.catalog import t

T = TypeVar("T")

# command -> (uses, per seconds) for each user
COOLDOWNS: dict[str, tuple[int, float]] = {
    "open": (2, 60.0),
    "table": (2, 20.0),
    "leaderboard": (3, 20.0),
    "history": (3, 20.0),
    "replay": (5, 20.0),  # issue 21: /replay, /stats, /export
    "stats": (3, 20.0),
    "export": (3, 60.0),  # each builds files: fewer
}
TABLE_BUDGET = (20, 15.0)  # table commands and buttons per user: a person plays slower
#: the bucket of ``TABLE_BUDGET``: not "table", which is the ``/<game> table`` cooldown's
BUDGET_BUCKET = "table-budget"
CLICKS = (15, 5.0)  # table clicks per user: faster than a person clicks; a script or spammer does
TABLE_REPOST = 60.0  # seconds during which /<game> table points to the message instead


class RateLimiter:
    """Sliding windows of recent uses per (bucket, user)."""

    def __init__(self, clock: Callable[[], float]) -> None:
        self.clock = clock
        self._uses: dict[tuple[str, int], deque[float]] = {}

    def wait(self, bucket: str, user_id: int, uses: int, per: float) -> float:
        """Seconds before the user may use ``bucket`` again (0: now); counts nothing."""
        now = self.clock()
        window = self._uses.get((bucket, user_id))
        if window is None:
            return 0.0
        while window and window[0] <= now - per:
            window.popleft()
        return window[0] + per - now if len(window) >= uses else 0.0

    def note(self, bucket: str, user_id: int) -> None:
        """Count one use now."""
        now = self.clock()
        self._uses.setdefault((bucket, user_id), deque()).append(now)
        if len(self._uses) > 10_000:  # forget users whose windows have all expired
            longest = max(per for _, per in (*COOLDOWNS.values(), CLICKS, TABLE_BUDGET))
            self._uses = {k: w for k, w in self._uses.items() if w and w[-1] > now - longest}

    def retry_after(self, bucket: str, user_id: int, uses: int, per: float) -> float:
        """0 if the user may go ahead now (the use is counted), else seconds to wait."""
        wait = self.wait(bucket, user_id, uses, per)
        if not wait:
            self.note(bucket, user_id)
        return wait


@runtime_checkable
class _Limited(Protocol):
    @property
    def limits(self) -> RateLimiter: ...


def limiter_of(interaction: discord.Interaction) -> RateLimiter:
    """The bot's limiter (``PokerBot.limits``, also ``App.limits``)."""
    client = interaction.client
    if not isinstance(client, _Limited):
        raise RuntimeError("this client keeps no rate limits")
    return client.limits


def wait_seconds(retry_after: float) -> int:
    return max(1, math.ceil(retry_after))


def cooldown(bucket: str, *, count: bool = True) -> Callable[[T], T]:
    """An app command check: at most COOLDOWNS[bucket] uses per user; CommandOnCooldown after.

    ``count=False``: the check only looks; the command counts a use itself with
    ``note`` (so that a refused ``open``, which posts nothing, costs nothing)."""
    uses, per = COOLDOWNS[bucket]

    async def predicate(interaction: discord.Interaction) -> bool:
        limiter = limiter_of(interaction)
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
    wait = limiter_of(interaction).retry_after("click", interaction.user.id, uses, per)
    if not wait:
        return await within_budget(interaction)
    text = t("limit.clicks", seconds=wait_seconds(wait))
    await interaction.response.send_message(text, ephemeral=True)
    return False


async def within_budget(interaction: discord.Interaction) -> bool:
    """Spend one use of the user's table budget; past it, refuse privately with when
    to try again (False)."""
    uses, per = TABLE_BUDGET
    wait = limiter_of(interaction).retry_after(BUDGET_BUCKET, interaction.user.id, uses, per)
    if not wait:
        return True
    text = t("limit.cooldown", seconds=wait_seconds(wait))
    if interaction.response.is_done():
        await interaction.followup.send(text, ephemeral=True)
    else:
        await interaction.response.send_message(text, ephemeral=True)
    return False
