"""Two /settings changes of one server at once both stay (issue 34, item 3), on both backends.

Every pair of different changes runs at once on its own server, with the server's
settings already read (cached) or not; then both changes must be in what the book
answers and in what a fresh Store reads from the database. Before the fix, each change
started from the same copy and the second write undid the first.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import pytest

from bot.storage.rows import GuildSettings
from bot.storage.store import Store
from bot.tables.guild_settings import BadSetting, Defaults, GuildSettingsBook
from tests.support.databases import Target

KEPT = (333, 444)  # allowed on every server before the pair runs


@dataclass(frozen=True)
class Change:
    name: str
    apply: Callable[[GuildSettingsBook, int], Awaitable[GuildSettings]]
    holds: Callable[[GuildSettings], bool]


CHANGES = [
    Change("turn-time 30", lambda b, g: b.set_turn_timeout(g, 30), lambda s: s.turn_timeout == 30),
    Change("idle-close 2", lambda b, g: b.set_idle_close(g, 2), lambda s: s.idle_close_hours == 2),
    Change("auto-deal off", lambda b, g: b.set_auto_deal(g, False), lambda s: s.auto_deal is False),
    Change(
        "who-opens moderators",
        lambda b, g: b.set_open_by(g, "moderators"),
        lambda s: s.open_by == "moderators",
    ),
    Change("language vi", lambda b, g: b.set_language(g, "vi"), lambda s: s.language == "vi"),
    Change(
        "moderator-role 555",
        lambda b, g: b.set_moderator_role(g, 555),
        lambda s: s.moderator_role == 555,
    ),
    Change(
        "channel-allow 111",
        lambda b, g: b.allow_channel(g, 111),
        lambda s: 111 in s.allowed_channels,
    ),
    Change(
        "channel-allow 222",
        lambda b, g: b.allow_channel(g, 222),
        lambda s: 222 in s.allowed_channels,
    ),
    Change(
        "channel-remove 333",
        lambda b, g: b.remove_channel(g, 333),
        lambda s: 333 not in s.allowed_channels and 444 in s.allowed_channels,
    ),
]
PAIRS = list(itertools.combinations(CHANGES, 2))


def book_of(store: Store) -> GuildSettingsBook:
    return GuildSettingsBook(store, Defaults(turn_timeout=60, auto_deal=True))


def missing(settings: GuildSettings, *changes: Change) -> list[str]:
    return [c.name for c in changes if not c.holds(settings)]


@pytest.mark.parametrize("cached", [True, False], ids=["cached", "first-read"])
async def test_every_pair_of_changes_at_once_keeps_both(db_path: Target, cached: bool) -> None:
    lost: list[str] = []
    async with await Store.open(db_path) as store:
        setup = book_of(store)
        for guild in range(1, len(PAIRS) + 1):
            for channel in KEPT:
                await setup.allow_channel(guild, channel)
        book = setup if cached else book_of(store)  # a new book has read nothing yet
        for guild, (first, second) in enumerate(PAIRS, start=1):
            await asyncio.gather(first.apply(book, guild), second.apply(book, guild))
            lost += [
                f"{first.name} + {second.name}: book lost {name}"
                for name in missing(await book.get(guild), first, second)
            ]
    async with await Store.open(db_path) as reopened:
        for guild, (first, second) in enumerate(PAIRS, start=1):
            stored = await reopened.server.guild_settings(guild)
            lost += [
                f"{first.name} + {second.name}: database lost {name}"
                for name in missing(stored, first, second)
            ]
    assert lost == []


async def test_a_refused_change_beside_a_good_one_changes_only_the_good_one(
    db_path: Target,
) -> None:
    async with await Store.open(db_path) as store:
        book = book_of(store)
        refused, changed = await asyncio.gather(
            book.remove_channel(7, 999), book.set_language(7, "pt-BR"), return_exceptions=True
        )
        assert isinstance(refused, BadSetting) and refused.code == "not_listed"
        assert isinstance(changed, GuildSettings) and changed.language == "pt-BR"
        assert await store.server.guild_settings(7) == GuildSettings(7, language="pt-BR")
