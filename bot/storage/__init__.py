"""Durable state of the bot (SQLite, or PostgreSQL by URL): ``api.Storage`` is the API,
``store.Store`` implements it on both backends over the repositories of this package."""

from bot.storage.api import Storage
from bot.storage.errors import (
    BadSettlement,
    HandNotLive,
    InsufficientChips,
    OutOfSequence,
    PlayerInHand,
    RefillRefused,
    StorageError,
    TableHasLiveHand,
    UnknownAccount,
    UnknownHand,
    UnknownTable,
)
from bot.storage.migrations import MIGRATIONS
from bot.storage.rows import (
    Account,
    GuildSettings,
    HandSummary,
    LeaderboardRow,
    LiveHand,
    PlayerData,
    SeatRow,
    TableRow,
)
from bot.storage.sqlite import open_database
from bot.storage.store import Store

__all__ = [
    "MIGRATIONS",
    "Account",
    "BadSettlement",
    "GuildSettings",
    "HandNotLive",
    "HandSummary",
    "InsufficientChips",
    "LeaderboardRow",
    "LiveHand",
    "OutOfSequence",
    "PlayerData",
    "PlayerInHand",
    "RefillRefused",
    "SeatRow",
    "Storage",
    "StorageError",
    "Store",
    "TableHasLiveHand",
    "TableRow",
    "UnknownAccount",
    "UnknownHand",
    "UnknownTable",
    "open_database",
]
