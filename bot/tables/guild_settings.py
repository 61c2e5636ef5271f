"""Per-server settings: validated changes, cached reads, applied without a restart.

The store holds the truth (``guild_settings`` table); this keeps a copy per
server so every command can consult it without a query, and replaces the copy
when a change is committed. A change reads the copy, writes the whole row and
then replaces the copy, so one server's changes run one at a time (a lock per
server): two at once would both start from the same copy, and the second write
would undo the first. No English here: a bad value is refused with a code and
the allowed values, and ``bot/ui`` says it.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, replace
from typing import Any

from bot.storage.rows import LANGUAGES, OPEN_BY, REMIND_BY, GuildSettings
from bot.storage.store import Store

__all__ = [
    "IDLE_HOURS",
    "TURN_TIME",
    "BadSetting",
    "GuildSettingsBook",
    "allows_channel",
]

TURN_TIME = (5, 3600)  # seconds, as /<game> open accepts
IDLE_HOURS = (0, 24 * 365)  # a server's idle time before a table closes; 0: never
MAX_CHANNELS = 25  # allowed channels a server may list


class BadSetting(Exception):
    """A value outside what the setting allows; ``code`` says which rule, ``params`` the facts."""

    def __init__(self, code: str, **params: Any) -> None:
        super().__init__(code)
        # turn_time | idle_close | open_by | language | too_many_channels | not_listed
        # | mtt_remind
        self.code = code
        self.params = params


@dataclass(frozen=True)
class Defaults:
    """The bot-wide values a server gets while its own setting is None."""

    turn_timeout: float
    auto_deal: bool
    idle_close_hours: float = 0.0  # 0: tables never close for want of play


def allows_channel(settings: GuildSettings, channel_id: int, parent_id: int | None) -> bool:
    """May a table be opened here? A thread counts as its parent channel."""
    allowed = settings.allowed_channels
    return not allowed or channel_id in allowed or (parent_id is not None and parent_id in allowed)


class GuildSettingsBook:
    """Reads and changes servers' settings; one cached copy per server."""

    def __init__(self, store: Store, defaults: Defaults) -> None:
        self.store = store
        self.defaults = defaults
        self._cache: dict[int, GuildSettings] = {}
        self._changing: dict[int, asyncio.Lock] = {}  # per server: one change at a time

    async def get(self, guild_id: int) -> GuildSettings:
        cached = self._cache.get(guild_id)
        if cached is None:
            loaded = await self.store.server.guild_settings(guild_id)
            # a change saved while this read waited is newer than what it read
            cached = self._cache.setdefault(guild_id, loaded)
        return cached

    def turn_timeout(self, settings: GuildSettings) -> float:
        return (
            self.defaults.turn_timeout if settings.turn_timeout is None else settings.turn_timeout
        )

    def auto_deal(self, settings: GuildSettings) -> bool:
        return self.defaults.auto_deal if settings.auto_deal is None else settings.auto_deal

    def idle_close_hours(self, settings: GuildSettings) -> float:
        """Hours without play after which the server's tables close; 0: never."""
        own = settings.idle_close_hours
        return self.defaults.idle_close_hours if own is None else own

    async def idle_after(self, guild_id: int) -> float | None:
        """Seconds without a step after which a table of this server closes (None: never)."""
        hours = self.idle_close_hours(await self.get(guild_id))
        return hours * 3600 if hours > 0 else None

    @contextlib.asynccontextmanager
    async def _change(self, guild_id: int) -> AsyncIterator[GuildSettings]:
        """The server's settings, read under its lock, which the change holds until written."""
        # kept like the cached copy: one per server that changed something
        async with self._changing.setdefault(guild_id, asyncio.Lock()):
            yield await self.get(guild_id)

    async def _save(self, settings: GuildSettings) -> GuildSettings:
        try:
            await self.store.server.save_guild_settings(settings)
        except BaseException:
            # A write cut off in its COMMIT may be on disk or not: read it again next time.
            self._cache.pop(settings.guild_id, None)
            raise
        self._cache[settings.guild_id] = settings  # only once it is on disk
        return settings

    async def _update(
        self, guild_id: int, change: Callable[[GuildSettings], GuildSettings | None]
    ) -> GuildSettings:
        """Apply ``change`` to the server's current settings and save the result, all under
        the server's lock; ``change`` returns None for "nothing to change" (or raises
        BadSetting, which changes nothing)."""
        async with self._change(guild_id) as settings:
            changed = change(settings)
            return settings if changed is None else await self._save(changed)

    async def set_turn_timeout(self, guild_id: int, seconds: float | None) -> GuildSettings:
        low, high = TURN_TIME
        if seconds is not None and not low <= seconds <= high:
            raise BadSetting("turn_time", min=low, max=high, given=seconds)
        return await self._update(guild_id, lambda s: replace(s, turn_timeout=seconds))

    async def set_idle_close(self, guild_id: int, hours: float | None) -> GuildSettings:
        low, high = IDLE_HOURS
        if hours is not None and not low <= hours <= high:
            raise BadSetting("idle_close", min=low, max=high, given=hours)
        return await self._update(guild_id, lambda s: replace(s, idle_close_hours=hours))

    async def set_auto_deal(self, guild_id: int, on: bool | None) -> GuildSettings:
        return await self._update(guild_id, lambda s: replace(s, auto_deal=on))

    async def set_open_by(self, guild_id: int, who: str) -> GuildSettings:
        if who not in OPEN_BY:
            raise BadSetting("open_by", given=who, allowed=OPEN_BY)
        return await self._update(guild_id, lambda s: replace(s, open_by=who))

    async def set_language(self, guild_id: int, language: str) -> GuildSettings:
        if language not in LANGUAGES:
            raise BadSetting("language", given=language, allowed=LANGUAGES)
        return await self._update(guild_id, lambda s: replace(s, language=language))

    async def set_mtt_remind(self, guild_id: int, how: str) -> GuildSettings:
        """How the server's tournament reminders go out: ``post`` or ``dm``."""
        if how not in REMIND_BY:
            raise BadSetting("mtt_remind", given=how, allowed=REMIND_BY)
        return await self._update(guild_id, lambda s: replace(s, mtt_remind=how))

    async def set_moderator_role(self, guild_id: int, role_id: int | None) -> GuildSettings:
        return await self._update(guild_id, lambda s: replace(s, moderator_role=role_id))

    async def allow_channel(self, guild_id: int, channel_id: int) -> GuildSettings:
        def allow(settings: GuildSettings) -> GuildSettings | None:
            if channel_id in settings.allowed_channels:
                return None
            if len(settings.allowed_channels) >= MAX_CHANNELS:
                raise BadSetting("too_many_channels", max=MAX_CHANNELS)
            return replace(settings, allowed_channels=(*settings.allowed_channels, channel_id))

        return await self._update(guild_id, allow)

    async def remove_channel(self, guild_id: int, channel_id: int) -> GuildSettings:
        def remove(settings: GuildSettings) -> GuildSettings:
            if channel_id not in settings.allowed_channels:
                raise BadSetting("not_listed", channel=channel_id)
            channels = tuple(c for c in settings.allowed_channels if c != channel_id)
            return replace(settings, allowed_channels=channels)

        return await self._update(guild_id, remove)

    async def any_channel(self, guild_id: int) -> GuildSettings:
        return await self._update(guild_id, lambda s: replace(s, allowed_channels=()))
