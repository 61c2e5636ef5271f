"""Slash commands in the reader's language: discord.py's ``app_commands.Translator``.

Installed in ``setup_hook`` before the tree is synced, so the synced schema carries
``name_localizations`` / ``description_localizations`` for every command, option and
choice in Brazilian Portuguese and Vietnamese (English is the source, for ``en-US`` and
``en-GB`` alike). The strings come from the gettext catalogs (msgctxt
``command:<where>``, msgid the English). The games' group names are their variant ids
in every language (``/a5-draw``): they are names, not words; other groups are translated.
Its command tree, ``LocaleTree``, also acknowledges every slash command before it runs
(the rule is ``bot/ui/answering.py``'s).
"""

from __future__ import annotations

from discord import Interaction, Locale, app_commands
from discord.app_commands import TranslationContextLocation as Where

from bot.engine import VARIANTS

from . import i18n
from .answering import acknowledge, command_ack


class LocaleTree(app_commands.CommandTree):
    """Every slash command and autocomplete is answered in its reader's language, and every
    slash command is acknowledged before its checks and its callback run (see
    ``bot/ui/answering.py``): nothing it awaits can make it miss Discord's 3 s."""

    async def interaction_check(self, interaction: Interaction, /) -> bool:
        i18n.for_interaction(interaction)
        ack = command_ack(interaction)
        if ack is not None:
            await acknowledge(interaction, ack)
        return True


class CatalogTranslator(app_commands.Translator):
    async def translate(
        self,
        string: app_commands.locale_str,
        locale: Locale,
        context: app_commands.TranslationContextTypes,
    ) -> str | None:
        ours = i18n.DISCORD_LOCALES.get(locale.value)
        game_group = context.location is Where.group_name and string.message in VARIANTS
        if ours is None or ours == i18n.SOURCE or game_group:
            return None  # Discord shows the English source (or the game's id)
        where = i18n.command_where(context.location.name, string.extras)
        return i18n.command_text(ours, where, string.message)
