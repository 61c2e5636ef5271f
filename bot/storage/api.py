"""``Storage``: the storage API that the table manager and the cogs use.

``store.Store`` implements it on both backends (a SQLite path or a
``postgresql://`` URL given to ``Store.open``); code above the storage layer
depends on this Protocol only. ``tests/storage/test_postgres.py`` checks that Store and
Storage list the same public methods with the same signatures, so a method
added to the Store is added here too.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any, Protocol

from bot.storage.dm_channels import DmChannel
from bot.storage.rows import (
    KEEP,
    Account,
    GuildSettings,
    HandSummary,
    LeaderboardRow,
    LiveHand,
    PlayerData,
    SeatRow,
    TableRow,
)


class Storage(Protocol):
    async def close(self) -> None: ...
    async def claim_guild(self, guild_id: int) -> bool: ...
    async def ping(self) -> None: ...
    def claimed_guilds(self) -> frozenset[int]: ...

    # tables & seats
    async def save_table(
        self, table: TableRow, *, seats: Sequence[SeatRow] | None = None
    ) -> int: ...
    async def load_tables(self, include_closed: bool = False) -> list[TableRow]: ...
    async def count_tables(self, guild_id: int, variant: str) -> int: ...
    async def load_table(self, channel_id: int) -> TableRow | None: ...
    async def close_table(self, channel_id: int, *, generation: int | None = None) -> None: ...
    async def set_table_message(self, channel_id: int, message_id: int) -> None: ...
    async def table_messages(self) -> dict[int, int]: ...
    async def dm_channels(self) -> dict[int, DmChannel]: ...
    async def dm_channel(self, user_id: int) -> DmChannel | None: ...
    async def set_dm_channel(self, dm: DmChannel) -> None: ...
    async def save_seats(
        self, channel_id: int, seats: Sequence[SeatRow], *, generation: int | None = None
    ) -> None: ...
    async def load_seats(self, channel_id: int) -> list[SeatRow]: ...
    async def load_seats_of(self, channel_ids: Collection[int]) -> dict[int, list[SeatRow]]: ...

    # accounts
    async def ensure_account(
        self, guild_id: int, user_id: int, display_name: str, grant: int
    ) -> Account: ...
    async def balance(self, guild_id: int, user_id: int) -> Account | None: ...
    async def refill(
        self, guild_id: int, user_id: int, grant: int, smallest_minimum: int
    ) -> int: ...
    async def leaderboard(
        self, guild_id: int, page: int, per_page: int = 10
    ) -> tuple[list[LeaderboardRow], int]: ...

    # hands
    async def start_hand(
        self,
        guild_id: int,
        channel_id: int,
        variant: str,
        header: Mapping[str, Any],
        holds: Mapping[int, int],
        seat_users: Sequence[int],
        names: Mapping[int, str] | None = None,
        *,
        button: int | None = KEEP,
        deadline: float | None = KEEP,
        practice: bool = False,
        seats: Sequence[SeatRow] | None = None,
        settings: Mapping[str, Any] | None = KEEP,
        generation: int | None = None,
    ) -> int: ...
    async def append_action(
        self,
        hand_id: int,
        index: int,
        action: Mapping[str, Any],
        deadline: float | None = KEEP,
        *,
        reshuffles: Sequence[tuple[int, Sequence[str]]] = (),
        seats: Sequence[SeatRow] | None = None,
    ) -> None: ...
    async def finish_hand(
        self, hand_id: int, net: Mapping[int, int], *, seats: Sequence[SeatRow] | None = None
    ) -> bool: ...
    async def drop_reshuffles(self, hand_id: int, first: int) -> int: ...
    async def hand_record(self, hand_id: int) -> dict[str, Any]: ...
    async def load_live_hands(
        self, guilds: Collection[int] | None = None, *, channel_id: int | None = None
    ) -> list[LiveHand]: ...
    async def recent_hands(
        self, guild_id: int, user_id: int, limit: int = 10
    ) -> list[HandSummary]: ...

    # server controls
    async def guild_settings(self, guild_id: int) -> GuildSettings: ...
    async def save_guild_settings(self, settings: GuildSettings) -> None: ...
    async def player_data(self, guild_id: int, user_id: int) -> PlayerData | None: ...
    async def erase_player(self, guild_id: int, user_id: int) -> int: ...
    async def cancel_hand(self, hand_id: int, close_channel: int | None = None) -> bool: ...
