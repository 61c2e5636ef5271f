"""Durable state of the bot (SQLite, or PostgreSQL by URL): ``store.Store`` composes the
repositories of this package over one database, on both backends.

The errors are imported from ``bot.storage.errors``, the one module that defines them;
this package re-exports its front door: ``Store``, the row types, the migrations."""

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
    "Store",
    "TableRow",
    "open_database",
]
