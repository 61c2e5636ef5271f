"""A server for multi-table tournaments through the fake Discord: twenty members (one a
moderator), the bot on a clock the test moves, short levels, and reading the
registration message."""

from __future__ import annotations

import random
import time
from pathlib import Path
from typing import Any

import discord

from bot.client import PokerBot
from bot.settings import Settings
from bot.tournaments.structures import Speed
from fakediscord.harness import DiscordHarness, Msg, make_member, users
from fakediscord.poker import TABLE

LEVEL = 60.0  # seconds of the bot's clock a level lasts here
PEOPLE = users(20)
MANAGER = discord.Permissions(
    view_channel=True, send_messages=True, use_application_commands=True, manage_channels=True
)
MOD = PEOPLE[3]
MEMBERS = [make_member(u, permissions=MANAGER) if u is MOD else u for u in PEOPLE]


class Clock:
    """The bot's clock: the time the test began, moved forward by the test only (levels
    and rate limits follow it), so every table read at one step reads the same moment."""

    def __init__(self) -> None:
        self.start, self.ahead = time.time(), 0.0

    def __call__(self) -> float:
        return self.start + self.ahead


def mtt_bot(path: Path, clock: Clock, **chosen: Any) -> PokerBot:
    """The bot on ``clock`` with short levels (``chosen``: other settings)."""
    settings = Settings(  # type: ignore[call-arg]
        _env_file=None,
        database_path=path,
        **({"turn_timeout": 3600, "next_hand_delay": 0} | chosen),
    )
    return PokerBot(
        settings, rng=random.Random(5), clock=clock, level_seconds={s: LEVEL for s in Speed}
    )


def registration(h: DiscordHarness, tournament_id: int) -> Msg:
    return next(
        m
        for m in h.messages(TABLE, include_ephemeral=False)
        if f"Tournament #{tournament_id}:" in m.text
    )


def grant(h: DiscordHarness) -> int:
    return int(h.bot.settings.starting_grant)  # type: ignore[attr-defined]
