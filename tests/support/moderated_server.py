"""A server with moderators, for the settings and moderation tests: its members, roles and
channels, and the bot built for it (no automatic deal, a clock the test moves)."""

from __future__ import annotations

import random

import discord

from bot.client import PokerBot
from bot.settings import Settings
from fakediscord.harness import DiscordHarness, Msg, make_member, users
from tests.support.manager_helpers import Clock

GUILD = 1300000000000000001
TABLE = 1310000000000000001
OTHER = 1310000000000000002
MOD_ROLE = 1320000000000000001
ALICE, BOB, CAROL, DAVE = users(4)
MANAGER = discord.Permissions(
    view_channel=True, send_messages=True, use_application_commands=True, manage_channels=True
)
# Alice: Manage Channels. Bob, Carol: ordinary members. Dave: holds the role named below.
MEMBERS = [
    make_member(ALICE, permissions=MANAGER),
    BOB,
    CAROL,
    make_member(DAVE, roles=[MOD_ROLE]),
]
CHANNELS = {TABLE: "poker", OTHER: "other"}


def make_bot(path, clock: Clock | None = None, turn_timeout: float = 60) -> PokerBot:
    settings = Settings(
        _env_file=None, database_path=path, turn_timeout=turn_timeout, next_hand_delay=0
    )  # type: ignore[call-arg]
    return PokerBot(settings, rng=random.Random(3), clock=clock or Clock())


def uid(user: dict) -> int:
    return int(user["id"])


async def started(h: DiscordHarness) -> None:
    h.add_role(MOD_ROLE, "croupiers")
    await h.connect(GUILD, CHANNELS, MEMBERS)


def command(h: DiscordHarness, name: str) -> dict:
    return next(c for c in h.command_schema(GUILD) if c["name"] == name)


def table_of(h: DiscordHarness, channel: int) -> Msg:
    """The table message, which the table's presenter posts (the /open answer is removed)."""
    return h.message(h.bot.presenter.message_id(channel))  # type: ignore[attr-defined]
