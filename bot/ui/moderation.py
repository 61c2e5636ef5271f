"""Who is a moderator: Manage Channels in this channel, or the server's moderator role.

Discord hides moderator commands from others (``default_permissions``), but a
server admin can change who sees them, so every moderator command asks again here.
"""

from __future__ import annotations

import discord

from bot.storage.rows import GuildSettings
from bot.tables.guild_settings import GuildSettingsBook, allows_channel

from . import handlers
from .catalog import t


def is_moderator(interaction: discord.Interaction, settings: GuildSettings) -> bool:
    if interaction.permissions.manage_channels:  # computed by Discord for this channel
        return True
    role = settings.moderator_role
    user = interaction.user
    return (
        role is not None
        and isinstance(user, discord.Member)
        and any(r.id == role for r in user.roles)
    )


def open_refusal(interaction: discord.Interaction, settings: GuildSettings) -> str | None:
    """Why this member may not open a table or a tournament here (None: they may): the
    server's who-opens setting and its allowed channels (a thread counts as its parent)."""
    if settings.open_by == "moderators" and not is_moderator(interaction, settings):
        return t("mod.open_only")
    parent = getattr(interaction.channel, "parent_id", None)
    if not allows_channel(settings, interaction.channel_id or 0, parent):
        channels = ", ".join(f"<#{c}>" for c in settings.allowed_channels)
        return t("mod.channel_not_allowed", channels=channels)
    return None


async def moderators_only(interaction: discord.Interaction, book: GuildSettingsBook) -> bool:
    """A moderator group's ``interaction_check``: True for a moderator of this server;
    anyone else is told so privately (False: the command does not run)."""
    if interaction.guild_id is None:
        return False  # guild-only: Discord does not offer it elsewhere
    if not is_moderator(interaction, await book.get(interaction.guild_id)):
        await handlers.reply(interaction, t("mod.only"))
        return False
    return True


def jump_url(guild_id: int, channel_id: int, message_id: int) -> str:
    return f"https://discord.com/channels/{guild_id}/{channel_id}/{message_id}"
