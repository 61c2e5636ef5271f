"""What a server runs on top of the games: its settings, a player's data, cancelled hands.

A mixin of ``Store`` (same connection, same lock, same one-transaction-per-call
rule), kept in its own module so the hand and ledger code stays apart. Every
method is plain SQL over the tables of migration v3; the PostgreSQL mirror
implements the same signatures.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from bot.storage import stats
from bot.storage.connection import Connection, Row

if TYPE_CHECKING:
    from bot.storage.store import Account

OPEN_BY = ("anyone", "moderators")
LANGUAGES = ("auto", "en-US", "pt-BR", "vi")  # auto: the server's own locale
DELETED_NAME = "deleted player"  # the accounts row that keeps an erased player's chips adding up


class PlayerInHand(Exception):
    """The player has chips held in a hand still being played; nothing was erased."""

    def __init__(self, guild_id: int, user_id: int) -> None:
        super().__init__(f"user {user_id} of guild {guild_id} is in a live hand")
        self.guild_id = guild_id
        self.user_id = user_id


@dataclass(frozen=True, slots=True)
class GuildSettings:
    """One server's settings; the defaults are what a server that never ran /settings gets."""

    guild_id: int
    allowed_channels: tuple[int, ...] = ()  # channels (and their threads) for tables; () = any
    moderator_role: int | None = None  # besides Manage Channels
    turn_timeout: float | None = None  # new tables' turn time; None = the bot's default
    auto_deal: bool | None = None  # new tables deal the next hand by themselves; None = default
    open_by: str = "anyone"  # one of OPEN_BY
    language: str = "auto"  # one of LANGUAGES


@dataclass(frozen=True, slots=True)
class PlayerData:
    """Everything stored about one player on one server (for /privacy)."""

    account: Account
    created_at: float
    ledger_entries: int
    hands: int  # hand records that name this player
    seats: tuple[int, ...]  # channels where they hold a seat


def _settings(row: Row) -> GuildSettings:
    auto = row["auto_deal"]
    return GuildSettings(
        guild_id=row["guild_id"],
        allowed_channels=tuple(json.loads(row["allowed_channels"])),
        moderator_role=row["moderator_role"],
        turn_timeout=row["turn_timeout"],
        auto_deal=None if auto is None else bool(auto),
        open_by=row["open_by"],
        language=row["language"],
    )


def _rename(obj: dict[str, Any], old: str, new: str) -> dict[str, Any]:
    """A header or action with player ``old`` renamed ``new`` (only the ``player`` fields)."""
    out = dict(obj)
    if out.get("player") == old:
        out["player"] = new
    if isinstance(out.get("seats"), list):
        out["seats"] = [
            _rename(s, old, new) if isinstance(s, dict) else (new if s == old else s)
            for s in out["seats"]
        ]
    return out


class ServerStore:
    """Mixed into ``Store``; relies on its ``_write``/``_read`` transactions and helpers."""

    if TYPE_CHECKING:  # provided by Store

        def _write(self) -> AbstractAsyncContextManager[Connection]: ...
        def _read(self) -> AbstractAsyncContextManager[Connection]: ...
        @staticmethod
        async def _one(conn: Connection, sql: str, args: Sequence[Any]) -> Row | None: ...
        @staticmethod
        async def _all(conn: Connection, sql: str, args: Sequence[Any]) -> list[Row]: ...
        async def _get_account(self, conn: Connection, guild_id: int, user_id: int) -> Account: ...
        async def _live_hand_row(self, conn: Connection, hand_id: int) -> Row: ...
        async def _settle_all(
            self, conn: Connection, hand: Row, results: list[tuple[int, int]]
        ) -> None: ...
        async def _close_table(self, conn: Connection, channel_id: int) -> None: ...

        _clock: Callable[[], float]

    # ------------------------------------------------------------ settings

    async def guild_settings(self, guild_id: int) -> GuildSettings:
        """The server's settings (the defaults if it never changed any)."""
        async with self._read() as conn:
            row = await self._one(
                conn, "SELECT * FROM guild_settings WHERE guild_id = ?", (guild_id,)
            )
        return GuildSettings(guild_id) if row is None else _settings(row)

    async def save_guild_settings(self, settings: GuildSettings) -> None:
        """Insert or replace the server's settings row (values are validated by the caller)."""
        s = settings
        auto = None if s.auto_deal is None else int(s.auto_deal)
        turn = None if s.turn_timeout is None else float(s.turn_timeout)
        async with self._write() as conn:
            await conn.execute(
                """INSERT INTO guild_settings (guild_id, allowed_channels, moderator_role,
                       turn_timeout, auto_deal, open_by, language, updated_at)
                   VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                   ON CONFLICT (guild_id) DO UPDATE SET
                     allowed_channels = excluded.allowed_channels,
                     moderator_role = excluded.moderator_role,
                     turn_timeout = excluded.turn_timeout, auto_deal = excluded.auto_deal,
                     open_by = excluded.open_by, language = excluded.language,
                     updated_at = excluded.updated_at""",
                (
                    s.guild_id,
                    json.dumps(list(s.allowed_channels)),
                    s.moderator_role,
                    turn,
                    auto,
                    s.open_by,
                    s.language,
                    self._clock(),
                ),
            )

    # ------------------------------------------------------------ a player's data

    async def player_data(self, guild_id: int, user_id: int) -> PlayerData | None:
        """What is stored about the player on this server; None if nothing is."""
        async with self._read() as conn:
            row = await self._one(
                conn,
                "SELECT created_at FROM accounts WHERE guild_id = ? AND user_id = ?",
                (guild_id, user_id),
            )
            if row is None:
                return None
            account = await self._get_account(conn, guild_id, user_id)
            args = (guild_id, user_id)
            entries = await self._one(
                conn, "SELECT COUNT(*) FROM ledger WHERE guild_id = ? AND user_id = ?", args
            )
            hands = await self._one(
                conn, "SELECT COUNT(*) FROM hand_players WHERE guild_id = ? AND user_id = ?", args
            )
            seats = await self._all(
                conn,
                "SELECT s.channel_id FROM seats s JOIN tables t USING (channel_id) "
                "WHERE t.guild_id = ? AND s.user_id = ? ORDER BY s.channel_id",
                args,
            )
        return PlayerData(
            account=account,
            created_at=row[0],
            ledger_entries=int(entries[0]) if entries else 0,
            hands=int(hands[0]) if hands else 0,
            seats=tuple(int(s[0]) for s in seats),
        )

    async def erase_player(self, guild_id: int, user_id: int) -> int:
        """Erase the player's account on this server; return the anonymous id now in its place.

        Their past hands stay, so others' histories and the ledger still add up: in
        ``hand_players``, the ledger and the hand records (header seats and actions)
        their id becomes a new negative id, unique in the database, whose account is
        named "deleted player" and carries the same numbers. Their seats go too, and the
        computer players of a table left without a person.
        Raises PlayerInHand while chips of theirs are held in a live hand (the caller
        must unseat them first), UnknownAccount if there is nothing to erase.
        """
        async with self._write() as conn:
            await self._get_account(conn, guild_id, user_id)  # UnknownAccount
            live = await self._one(
                conn,
                "SELECT 1 FROM hand_players hp JOIN hands h USING (hand_id) "
                "WHERE hp.guild_id = ? AND hp.user_id = ? AND h.status = 'live'",
                (guild_id, user_id),
            )
            if live is not None:
                raise PlayerInHand(guild_id, user_id)
            hands = await self._all(
                conn,
                "SELECT h.hand_id, h.header_json FROM hands h JOIN hand_players hp "
                "USING (hand_id) WHERE hp.guild_id = ? AND hp.user_id = ?",
                (guild_id, user_id),
            )
            headers = [json.loads(hand["header_json"]) for hand in hands]
            lowest = await self._one(conn, "SELECT MIN(user_id) FROM accounts", ())
            # Below every account, and below every player of those hands: a practice
            # hand's computer players have small negative ids (-1, -2, …) of their own.
            taken = [int(lowest[0] or 0) if lowest else 0]
            players = [str(seat["player"]) for header in headers for seat in header["seats"]]
            taken += [int(p) for p in players if p.lstrip("-").isdigit()]
            anon = min(-1, min(taken) - 1)
            await conn.execute(
                "INSERT INTO accounts (guild_id, user_id, display_name, balance, granted, "
                "refilled, net_won, hands_played, created_at) "
                "SELECT guild_id, ?, ?, balance, granted, refilled, net_won, hands_played, "
                "created_at FROM accounts WHERE guild_id = ? AND user_id = ?",
                (anon, DELETED_NAME, guild_id, user_id),
            )
            old, new = str(user_id), str(anon)
            for hand, stored in zip(hands, headers, strict=True):
                header = _rename(stored, old, new)
                await conn.execute(
                    "UPDATE hands SET header_json = ? WHERE hand_id = ?",
                    (json.dumps(header, separators=(",", ":")), hand["hand_id"]),
                )
                actions = await self._all(
                    conn,
                    "SELECT idx, action_json FROM hand_actions WHERE hand_id = ?",
                    (hand["hand_id"],),
                )
                await conn.executemany(
                    "UPDATE hand_actions SET action_json = ? WHERE hand_id = ? AND idx = ?",
                    [
                        (
                            json.dumps(_rename(json.loads(a[1]), old, new), separators=(",", ":")),
                            hand["hand_id"],
                            a[0],
                        )
                        for a in actions
                        if f'"{old}"' in a[1]
                    ],
                )
            args = (anon, guild_id, user_id)
            await conn.execute(
                "UPDATE hand_players SET user_id = ?, display_name = ? "
                "WHERE guild_id = ? AND user_id = ?",
                (anon, DELETED_NAME, guild_id, user_id),
            )
            await conn.execute(
                "UPDATE ledger SET user_id = ? WHERE guild_id = ? AND user_id = ?", args
            )
            await conn.execute(
                "DELETE FROM seats WHERE user_id = ? AND channel_id IN "
                "(SELECT channel_id FROM tables WHERE guild_id = ?)",
                (user_id, guild_id),
            )
            # a table keeps a person: where none is left, the computer players stand up too
            await conn.execute(
                "DELETE FROM seats WHERE bot IS NOT NULL AND channel_id IN "
                "(SELECT channel_id FROM tables WHERE guild_id = ?) AND channel_id NOT IN "
                "(SELECT channel_id FROM seats WHERE bot IS NULL)",
                (guild_id,),
            )
            await stats.erase(conn, guild_id, user_id)  # issue 21: their statistics go too
            await conn.execute(
                "DELETE FROM accounts WHERE guild_id = ? AND user_id = ?", (guild_id, user_id)
            )
        return anon

    # ------------------------------------------------------------ cancelled hands

    async def cancel_hand(self, hand_id: int, close_channel: int | None = None) -> bool:
        """Void a live hand: every player nets 0 (gets back exactly what they put in),
        the hand is complete and marked cancelled, its holds are released; with
        ``close_channel`` that table is closed (seats removed) in the same transaction.
        False (and no write) if the hand was already settled."""
        from bot.storage.store import HandNotLive

        async with self._write() as conn:
            try:
                hand = await self._live_hand_row(conn, hand_id)
            except HandNotLive:
                return False
            players = await self._all(
                conn, "SELECT user_id FROM hand_players WHERE hand_id = ? ORDER BY seat", (hand_id,)
            )
            await conn.execute(
                "UPDATE hands SET status = 'complete', cancelled = 1, completed_at = ? "
                "WHERE hand_id = ?",
                (self._clock(), hand_id),
            )
            await self._settle_all(conn, hand, [(p[0], 0) for p in players])
            if close_channel is not None:
                await self._close_table(conn, close_channel)
        return True
