"""Durable state of the bot (SQLite, or PostgreSQL by URL): ``api.Storage`` is the API,
``store.Store`` implements it on both backends."""

from bot.storage.api import Storage
from bot.storage.db import MIGRATIONS, open_database
from bot.storage.store import (
    Account,
    BadSettlement,
    HandNotLive,
    HandSummary,
    InsufficientChips,
    LeaderboardRow,
    LiveHand,
    OutOfSequence,
    RefillRefused,
    SeatRow,
    StorageError,
    Store,
    TableRow,
    UnknownAccount,
    UnknownHand,
    UnknownTable,
)

__all__ = [
    "MIGRATIONS",
    "Account",
    "BadSettlement",
    "HandNotLive",
    "HandSummary",
    "InsufficientChips",
    "LeaderboardRow",
    "LiveHand",
    "OutOfSequence",
    "RefillRefused",
    "SeatRow",
    "Storage",
    "StorageError",
    "Store",
    "TableRow",
    "UnknownAccount",
    "UnknownHand",
    "UnknownTable",
    "open_database",
]
