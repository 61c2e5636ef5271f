"""Durable state of the bot (SQLite): see ``store.Store`` for the API."""

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
    "StorageError",
    "Store",
    "TableRow",
    "UnknownAccount",
    "UnknownHand",
    "UnknownTable",
    "open_database",
]
