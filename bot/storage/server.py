"""The server repository: a server's settings, what is stored about a player, and erasing it."""

from __future__ import annotations

import json

from bot.storage import people, player_stats
from bot.storage.connection import Connection
from bot.storage.database import Database, all_rows, one
from bot.storage.errors import PlayerInHand
from bot.storage.ledger import Ledger
from bot.storage.rows import DELETED_NAME, GuildSettings, PlayerData, dumps, settings_of

ANON_FLOOR = -1000  # erased players' ids are below this


class Server:
    """Guild settings and players' data over one ``Database``, with the ledger."""

    def __init__(self, db: Database, ledger: Ledger) -> None:
        self._db, self._ledger = db, ledger

    # ------------------------------------------------------------ settings

    async def guild_settings(self, guild_id: int) -> GuildSettings:
        """The server's settings (the defaults if it never changed any)."""
        async with self._db.read() as conn:
            row = await one(conn, "SELECT * FROM guild_settings WHERE guild_id = ?", (guild_id,))
        return GuildSettings(guild_id) if row is None else settings_of(row)

    async def save_guild_settings(self, settings: GuildSettings) -> None:
        """Insert or replace the server's settings row (values are validated by the caller)."""
        s = settings
        auto = None if s.auto_deal is None else int(s.auto_deal)
        turn = None if s.turn_timeout is None else float(s.turn_timeout)
        idle = None if s.idle_close_hours is None else float(s.idle_close_hours)
        async with self._db.write("save_guild_settings") as conn:
            await conn.execute(
                """INSERT INTO guild_settings (guild_id, allowed_channels, moderator_role,
                       turn_timeout, auto_deal, open_by, language, idle_close_hours,
                       mtt_remind, updated_at)
                   VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                   ON CONFLICT (guild_id) DO UPDATE SET
                     allowed_channels = excluded.allowed_channels,
                     moderator_role = excluded.moderator_role,
                     turn_timeout = excluded.turn_timeout, auto_deal = excluded.auto_deal,
                     open_by = excluded.open_by, language = excluded.language,
                     idle_close_hours = excluded.idle_close_hours,
                     mtt_remind = excluded.mtt_remind,
                     updated_at = excluded.updated_at""",
                (
                    s.guild_id,
                    json.dumps(list(s.allowed_channels)),
                    s.moderator_role,
                    turn,
                    auto,
                    s.open_by,
                    s.language,
                    idle,
                    s.mtt_remind,
                    self._db.clock(),
                ),
            )

    # ------------------------------------------------------------ a player's data

    async def player_data(self, guild_id: int, user_id: int) -> PlayerData | None:
        """What is stored about the player on this server; None if nothing is."""
        async with self._db.read() as conn:
            row = await one(
                conn,
                "SELECT created_at FROM accounts WHERE guild_id = ? AND user_id = ?",
                (guild_id, user_id),
            )
            if row is None:
                return None
            account = await self._ledger.account_in(conn, guild_id, user_id)
            args = (guild_id, user_id)
            person = f"person_id = {people.PERSON_SQL}"
            entries = await one(conn, f"SELECT COUNT(*) FROM ledger WHERE {person}", args)
            hands = await one(conn, f"SELECT COUNT(*) FROM hand_players WHERE {person}", args)
            seats = await all_rows(
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

        Their past hands stay, so others' histories and the ledger still add up: their
        person (whom ``hand_players``, the ledger and the hand records name) takes a new
        negative id, unique in the database, and the name "deleted player", and so does
        their account, with the same numbers. Their seats go too, and the computer
        players of a table left without a person; and the tables' stored settings forget
        them (no longer the opener, no longer in the kicked list). Raises PlayerInHand
        while chips of theirs are held in a live hand (the caller must unseat them
        first), UnknownAccount if there is nothing to erase.

        A handful of one-row statements, whatever the length of the history.
        """
        async with self._db.write("erase_player") as conn:
            await self._ledger.account_in(conn, guild_id, user_id)  # UnknownAccount
            person = await people.person_of(conn, guild_id, user_id)
            live = await one(
                conn,
                "SELECT 1 FROM hand_players WHERE person_id = ? "
                "AND completed_at IS NULL",  # hand_players_recent: live hands only
                (person,),
            )
            if live is None:  # nor in a Sit & Go still open to them (its fee, its chips)
                live = await one(
                    conn,
                    "SELECT 1 FROM tournament_entries e JOIN tournaments t "
                    "ON t.tournament_id = e.tournament_id WHERE e.person_id = ? AND "
                    "(t.status = 'registering' OR (t.status = 'running' AND e.place IS NULL))",
                    (person,),
                )
            if live is not None:
                raise PlayerInHand(guild_id, user_id)
            lowest = await one(
                conn,
                "SELECT MIN(low) FROM (SELECT MIN(user_id) AS low FROM people "
                "UNION ALL SELECT MIN(user_id) AS low FROM accounts) AS lows",
            )
            # Below every id, and far below the computer players' small negative ids
            # (-1, -2, … at a practice table), which hand records also name.
            anon = min(ANON_FLOOR, int(lowest[0] or 0) if lowest else 0) - 1
            await conn.execute(
                "UPDATE people SET user_id = ?, display_name = ? WHERE person_id = ?",
                (anon, DELETED_NAME, person),
            )
            await conn.execute(
                "UPDATE accounts SET user_id = ?, display_name = ? "
                "WHERE guild_id = ? AND user_id = ?",
                (anon, DELETED_NAME, guild_id, user_id),
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
            await self._forget_in_tables(conn, guild_id, user_id)
            await player_stats.erase(conn, guild_id, user_id)
            # Sit & Gos (issue 36): the name kept with each entry, and who created one
            await conn.execute(
                "UPDATE tournament_entries SET display_name = ? WHERE person_id = ?",
                (DELETED_NAME, person),
            )
            await conn.execute(
                "UPDATE tournaments SET creator_id = ? WHERE guild_id = ? AND creator_id = ?",
                (anon, guild_id, user_id),
            )
        return anon

    async def _forget_in_tables(self, conn: Connection, guild_id: int, user_id: int) -> None:
        """Drop the user from the guild's tables' stored settings: opener, kicked list."""
        rows = await all_rows(
            conn,
            "SELECT channel_id, settings_json FROM tables WHERE guild_id = ? "
            "AND settings_json LIKE ?",
            (guild_id, f"%{user_id}%"),
        )
        for channel_id, stored in rows:
            settings = json.loads(stored)
            if settings.get("opener") == user_id:
                settings["opener"] = None
            if isinstance(settings.get("kicked"), list):
                settings["kicked"] = [k for k in settings["kicked"] if k != user_id]
            await conn.execute(
                "UPDATE tables SET settings_json = ? WHERE channel_id = ?",
                (dumps(settings), channel_id),
            )
