"""The bot's extensions: the cog modules ``PokerBot`` loads, in this order.

Named ``cogs.<name>`` (``bot.extensions.extension_name`` resolves them where the cogs are
installed). Here, not in ``bot/client.py``, so ``i18n_build extract`` reads the cogs'
command strings without importing the bot it would wire.
"""

from __future__ import annotations

EXTENSIONS = (
    "cogs.a6_draw",
    "cogs.a5_draw",
    "cogs.a5_triple",
    "cogs.abyssinia",
    "cogs.general",
    "cogs.settings",
    "cogs.privacy",
    "cogs.lifecycle",
    "cogs.history",
    "cogs.table_admin",
    "cogs.mixed",
    "cogs.seasons",
    "cogs.season_admin",
    "cogs.sitngo",
    "cogs.mtt",
)
