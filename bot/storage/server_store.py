"""The names code above the storage layer imported from here before the split (issue 17).

New code imports them from ``bot.storage``; this module only re-exports them.
"""

from bot.storage.errors import PlayerInHand
from bot.storage.rows import DELETED_NAME, LANGUAGES, OPEN_BY, GuildSettings, PlayerData

__all__ = ["DELETED_NAME", "LANGUAGES", "OPEN_BY", "GuildSettings", "PlayerData", "PlayerInHand"]
