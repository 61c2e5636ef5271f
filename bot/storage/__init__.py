"""Durable state of the bot (SQLite, or PostgreSQL by URL): ``api.Storage`` is the API,
``store.Store`` implements it on both backends over the repositories of this package.

The errors are imported from ``bot.storage.errors``, the one module that defines them;
this package re-exports its front door: ``Store``, ``Storage``, the row types, the migrations."""

from bot.storage.api import Storage
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
    "GuildSettings",
    "HandSummary",
    "LeaderboardRow",
    "LiveHand",
    "PlayerData",
    "SeatRow",
    "Storage",
    "Store",
    "TableRow",
    "open_database",
]
