"""Tells a multi-table tournament's players what the scheduler says: its reminders and a
cancelled start, as the server chose (``/settings tournament-reminders``).

``post``: a message in the tournament's channel that mentions every registered player
(the mentions split over several messages past :data:`MENTIONS_PER_POST`, Discord's
limits being 2,000 characters and 100 mentioned users a message); ``dm``: a direct
message to each registered player (not to players whose DMs are known closed). Both in
the server's language: outside an interaction the bot does not know a reader's own.
"""

from __future__ import annotations

import logging

import discord

from bot.tables.guild_settings import GuildSettingsBook
from bot.tournaments.schedule import Notice, NoticeKind

from .catalog import t
from .dm_book import DmBook
from .languages import ServerLanguages
from .text import game

log = logging.getLogger(__name__)
MENTIONS_PER_POST = 50  # 50 mentions of 22 characters: well within 2,000 characters


def notice_text(notice: Notice, *, dm: bool) -> str:
    """The words of a notice (in the current language)."""
    row = notice.tournament
    facts = {"number": row.tournament_id, "game": game(row.variant), "count": notice.count}
    if notice.kind is NoticeKind.CANCELLED:
        if not notice.count:
            return t("mtt.remind.cancelled_nobody", **facts)
        return t("mtt.remind.cancelled", **facts)
    if notice.starts_at is not None:  # a reminder is of a scheduled start
        facts["when"] = f"<t:{int(notice.starts_at)}:R>"
    if dm:
        return t("mtt.remind.dm", channel=f"<#{row.channel_id}>", **facts)
    if not notice.count:
        return t("mtt.remind.post_nobody", **facts)
    return t("mtt.remind.post", **facts)


class Reminders:
    """The scheduler's notifier (``bot.tournaments.schedule.Notifier``)."""

    def __init__(
        self,
        client: discord.Client,
        settings: GuildSettingsBook,
        dms: DmBook,
        languages: ServerLanguages,
    ) -> None:
        self.client = client
        self.settings = settings
        self.languages = languages  # the server's, for the public reminder
        self.dms = dms

    async def __call__(self, notice: Notice) -> None:
        row = notice.tournament
        how = (await self.settings.get(row.guild_id)).mtt_remind
        async with self.languages.public(row.guild_id):
            if how == "dm":
                text = notice_text(notice, dm=True)
                for user in notice.players:
                    try:
                        await self.dms.send(user, content=text)
                    except (
                        discord.HTTPException
                    ) as exc:  # one player's DM: the others still get theirs
                        log.warning("a tournament notice to user %d: %r", user, exc)
                return
            text = notice_text(notice, dm=False)
        await self._post(row.channel_id, text, notice.players)

    async def _post(self, channel_id: int, text: str, players: tuple[int, ...]) -> None:
        channel = self.client.get_partial_messageable(channel_id)
        chunks = [
            players[i : i + MENTIONS_PER_POST] for i in range(0, len(players), MENTIONS_PER_POST)
        ] or [()]
        try:
            for i, chunk in enumerate(chunks):
                mentions = " ".join(f"<@{u}>" for u in chunk)
                content = f"{text}\n{mentions}" if i == 0 and mentions else mentions or text
                await channel.send(
                    content,
                    allowed_mentions=discord.AllowedMentions(
                        everyone=False, roles=False, users=[discord.Object(u) for u in chunk]
                    ),
                )
        except (discord.NotFound, discord.Forbidden) as exc:  # the channel gone or closed to us
            log.warning("a tournament notice to channel %d: %r", channel_id, exc)
