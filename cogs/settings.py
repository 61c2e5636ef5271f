"""/settings: a server's own rules for its tables (moderators only).

Hidden from members without Manage Channels by ``default_permissions``; since a
server admin can change that, every command checks again at run time. Changes
are stored first, then used at once by every command (no restart).
"""

from __future__ import annotations

from collections.abc import Awaitable
from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot.storage.rows import GuildSettings
from bot.tables.guild_settings import BadSetting, GuildSettingsBook
from bot.ui.catalog import t
from bot.ui.choices import Language, OpenBy, RemindBy
from bot.ui.handlers import reply
from bot.ui.moderation import is_moderator

if TYPE_CHECKING:
    from bot.client import PokerBot


def channels_text(settings: GuildSettings) -> str:
    allowed = settings.allowed_channels
    return ", ".join(f"<#{c}>" for c in allowed) if allowed else t("settings.channels.any")


def settings_fields(
    book: GuildSettingsBook, settings: GuildSettings, locale: str
) -> list[tuple[str, str]]:
    """(name, value) of every setting, as /settings show lists them."""
    role = settings.moderator_role
    seconds = int(book.turn_timeout(settings))
    turn = (
        t("settings.turn_time.value", seconds=seconds)
        if settings.turn_timeout is not None
        else t("settings.turn_time.default", seconds=seconds)
    )
    auto = t("settings.on") if book.auto_deal(settings) else t("settings.off")
    if settings.auto_deal is None:
        auto = t("settings.default_suffix", value=auto)
    hours = book.idle_close_hours(settings)
    idle = t("settings.idle_close.value", hours=f"{hours:g}") if hours > 0 else t("settings.never")
    if settings.idle_close_hours is None:
        idle = t("settings.default_suffix", value=idle)
    language = (
        t("settings.language.auto", locale=locale)
        if settings.language == "auto"
        else settings.language
    )
    return [
        (t("settings.channels"), channels_text(settings)),
        (t("settings.role"), f"<@&{role}>" if role else t("settings.role.none")),
        (t("settings.turn_time"), turn),
        (t("settings.auto_deal"), auto),
        (t("settings.open_by"), t(f"settings.open_by.{settings.open_by}")),
        (t("settings.language"), language),
        (t("settings.idle_close"), idle),
        (t("settings.mtt_remind"), t(f"settings.mtt_remind.{settings.mtt_remind}")),
    ]


@app_commands.guild_only()
@app_commands.default_permissions(manage_channels=True)
class SettingsCog(
    commands.GroupCog, group_name="settings", group_description="This server's table settings"
):
    def __init__(self, bot: PokerBot) -> None:
        self.bot = bot

    @property
    def book(self) -> GuildSettingsBook:
        return self.bot.app.guild_settings

    async def interaction_check(self, interaction: discord.Interaction) -> bool:
        if interaction.guild_id is None:
            return False  # guild-only: Discord does not offer it elsewhere
        settings = await self.book.get(interaction.guild_id)
        if not is_moderator(interaction, settings):
            await reply(interaction, t("mod.only"))
            return False
        return True

    def _guild(self, interaction: discord.Interaction) -> int:
        assert interaction.guild_id is not None  # interaction_check let it through
        return interaction.guild_id

    def _field(self, interaction: discord.Interaction, settings: GuildSettings, index: int) -> str:
        name, value = settings_fields(self.book, settings, str(interaction.guild_locale))[index]
        return t("settings.changed", name=name, value=value)

    async def _change(
        self, interaction: discord.Interaction, change: Awaitable[GuildSettings], index: int
    ) -> None:
        """Apply one change; acknowledge it with the new value, or say what is allowed."""
        try:
            settings = await change
        except BadSetting as exc:
            params = dict(exc.params)
            if "allowed" in params:
                params["allowed"] = ", ".join(params["allowed"])
            if "channel" in params:
                params["channel"] = f"<#{params['channel']}>"
            await reply(interaction, t(f"settings.bad.{exc.code}", **params))
            return
        await reply(interaction, self._field(interaction, settings, index))

    @app_commands.command(name="show", description="Show this server's table settings")
    async def show(self, interaction: discord.Interaction) -> None:
        settings = await self.book.get(self._guild(interaction))
        embed = discord.Embed(title=t("settings.title"), colour=discord.Colour.dark_green())
        for name, value in settings_fields(self.book, settings, str(interaction.guild_locale)):
            embed.add_field(name=name, value=value[:1024], inline=False)
        await reply(interaction, "", embed=embed)

    @app_commands.command(name="channel-allow", description="Let tables be opened in a channel")
    @app_commands.describe(channel="A channel (its threads count too)")
    async def channel_allow(
        self, interaction: discord.Interaction, channel: discord.TextChannel
    ) -> None:
        await self._change(
            interaction, self.book.allow_channel(self._guild(interaction), channel.id), 0
        )

    @app_commands.command(
        name="channel-remove", description="Take a channel off the list of channels for tables"
    )
    @app_commands.describe(channel="The channel to take off the list")
    async def channel_remove(
        self, interaction: discord.Interaction, channel: discord.TextChannel
    ) -> None:
        await self._change(
            interaction, self.book.remove_channel(self._guild(interaction), channel.id), 0
        )

    @app_commands.command(name="channels-any", description="Let tables be opened in any channel")
    async def channels_any(self, interaction: discord.Interaction) -> None:
        await self._change(interaction, self.book.any_channel(self._guild(interaction)), 0)

    @app_commands.command(
        name="moderator-role", description="The role whose members moderate tables (or none)"
    )
    @app_commands.describe(role="Leave empty: only members with Manage Channels moderate")
    async def moderator_role(
        self, interaction: discord.Interaction, role: discord.Role | None = None
    ) -> None:
        role_id = role.id if role is not None else None
        await self._change(
            interaction, self.book.set_moderator_role(self._guild(interaction), role_id), 1
        )

    @app_commands.command(name="turn-time", description="Seconds to act at new tables")
    @app_commands.describe(seconds="5 to 3600; leave empty for the bot's default")
    async def turn_time(self, interaction: discord.Interaction, seconds: int | None = None) -> None:
        await self._change(
            interaction, self.book.set_turn_timeout(self._guild(interaction), seconds), 2
        )

    @app_commands.command(name="auto-deal", description="Deal the next hand by itself, or not")
    @app_commands.describe(on="On or off; leave empty for the bot's default")
    async def auto_deal(self, interaction: discord.Interaction, on: bool | None = None) -> None:
        await self._change(interaction, self.book.set_auto_deal(self._guild(interaction), on), 3)

    @app_commands.command(
        name="idle-close", description="Hours without play after which a table closes"
    )
    @app_commands.describe(hours="0: never; leave empty for the bot's default")
    async def idle_close(
        self,
        interaction: discord.Interaction,
        hours: app_commands.Range[float, 0, 8760] | None = None,  # IDLE_HOURS
    ) -> None:
        await self._change(
            interaction, self.book.set_idle_close(self._guild(interaction), hours), 6
        )

    @app_commands.command(name="who-opens", description="Who may open tables")
    @app_commands.describe(who="Anyone, or moderators only")
    async def who_opens(self, interaction: discord.Interaction, who: OpenBy) -> None:
        await self._change(interaction, self.book.set_open_by(self._guild(interaction), who), 4)

    @app_commands.command(name="language", description="The language the bot speaks here")
    @app_commands.describe(language="auto: the server's own language")
    async def language(self, interaction: discord.Interaction, language: Language) -> None:
        await self._change(
            interaction, self.book.set_language(self._guild(interaction), language), 5
        )

    @app_commands.command(
        name="tournament-reminders", description="How tournament reminders reach the players"
    )
    @app_commands.describe(how="post: in the tournament's channel, mentioning them; dm: to each")
    async def tournament_reminders(self, interaction: discord.Interaction, how: RemindBy) -> None:
        await self._change(interaction, self.book.set_mtt_remind(self._guild(interaction), how), 7)


async def setup(bot: PokerBot) -> None:
    await bot.add_cog(SettingsCog(bot))
