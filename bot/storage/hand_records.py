"""The history repository: hand records, the live hands to recover and a player's recent hands."""

from __future__ import annotations

import json
from collections.abc import Collection
from typing import Any

from bot.storage import people
from bot.storage.connection import Connection, Row
from bot.storage.database import Database, all_rows, one
from bot.storage.errors import UnknownHand
from bot.storage.rows import HandSummary, LiveHand


class History:
    """Reads of hands over one ``Database``."""

    def __init__(self, db: Database) -> None:
        self._db = db

    async def _record(self, conn: Connection, hand: Row) -> dict[str, Any]:
        reshuffles, actions = await self._history(conn, hand["hand_id"])
        ids = (await people.hands_people(conn, [hand["hand_id"]])).get(hand["hand_id"], {})
        return {
            **people.rename_players(json.loads(hand["header_json"]), ids),
            "reshuffles": reshuffles,
            "actions": [people.rename_players(a, ids) for a in actions],
        }

    async def _history(
        self, conn: Connection, hand_id: int
    ) -> tuple[list[list[str]], list[dict[str, Any]]]:
        reshuffles = await all_rows(
            conn,
            "SELECT cards_json FROM hand_reshuffles WHERE hand_id = ? ORDER BY idx",
            (hand_id,),
        )
        actions = await all_rows(
            conn, "SELECT action_json FROM hand_actions WHERE hand_id = ? ORDER BY idx", (hand_id,)
        )
        return [json.loads(r[0]) for r in reshuffles], [json.loads(a[0]) for a in actions]

    async def hand_record(self, hand_id: int) -> dict[str, Any]:
        """The header's fields plus "reshuffles" (card lists) and "actions" (dicts), in order."""
        async with self._db.read() as conn:
            hand = await one(conn, "SELECT * FROM hands WHERE hand_id = ?", (hand_id,))
            if hand is None:
                raise UnknownHand(hand_id)
            return await self._record(conn, hand)

    async def load_live_hands(
        self, guilds: Collection[int] | None = None, *, channel_id: int | None = None
    ) -> list[LiveHand]:
        """Every unfinished hand (of ``guilds``, or of one channel, if given) with its full
        history, oldest first (for recovery)."""
        if guilds is not None and not guilds:
            return []
        where, args = "status = 'live'", tuple(sorted(guilds or ()))
        if args:
            where += f" AND guild_id IN ({','.join('?' * len(args))})"
        if channel_id is not None:
            where, args = where + " AND channel_id = ?", (*args, channel_id)
        live = f"SELECT hand_id FROM hands WHERE {where}"
        async with self._db.read() as conn:  # four queries in all, however many hands
            hands = await all_rows(
                conn, f"SELECT * FROM hands WHERE {where} ORDER BY hand_id", args
            )
            players = await all_rows(
                conn,
                "SELECT hp.hand_id, p.user_id, hp.hold, p.display_name, hp.person_id "
                "FROM hand_players hp JOIN people p ON p.person_id = hp.person_id "
                f"WHERE hp.hand_id IN ({live}) "
                "ORDER BY hp.hand_id, hp.seat",
                args,
            )
            reshuffles = await all_rows(
                conn,
                f"SELECT hand_id, cards_json FROM hand_reshuffles WHERE hand_id IN ({live}) "
                "ORDER BY hand_id, idx",
                args,
            )
            actions = await all_rows(
                conn,
                f"SELECT hand_id, action_json FROM hand_actions WHERE hand_id IN ({live}) "
                "ORDER BY hand_id, idx",
                args,
            )
        seated: dict[int, list[Row]] = {}
        ids: dict[int, dict[str, str]] = {}
        for row in players:
            seated.setdefault(row[0], []).append(row)
            ids.setdefault(row[0], {})[people.token(int(row[4]))] = str(row[1])
        shuffled: dict[int, list[list[str]]] = {}
        for row in reshuffles:
            shuffled.setdefault(row[0], []).append(json.loads(row[1]))
        acted: dict[int, list[dict[str, Any]]] = {}
        for row in actions:
            action = people.rename_players(json.loads(row[1]), ids.get(row[0], {}))
            acted.setdefault(row[0], []).append(action)
        return [
            LiveHand(
                hand_id=hand["hand_id"],
                guild_id=hand["guild_id"],
                channel_id=hand["channel_id"],
                variant=hand["variant"],
                header=people.rename_players(
                    json.loads(hand["header_json"]), ids.get(hand["hand_id"], {})
                ),
                seat_users=[p["user_id"] for p in seated.get(hand["hand_id"], [])],
                holds={p["user_id"]: p["hold"] for p in seated.get(hand["hand_id"], [])},
                reshuffles=shuffled.get(hand["hand_id"], []),
                actions=acted.get(hand["hand_id"], []),
                started_at=hand["started_at"],
                names={
                    p["user_id"]: p["display_name"]
                    for p in seated.get(hand["hand_id"], [])
                    if p["display_name"] is not None
                },
            )
            for hand in hands
        ]

    async def recent_hands(self, guild_id: int, user_id: int, limit: int = 10) -> list[HandSummary]:
        """The user's last ``limit`` completed hands in the guild, newest first."""
        async with self._db.read() as conn:
            rows = await all_rows(
                conn,
                # hand_players_recent: the last ``limit`` rows, not all of the player's
                "SELECT h.*, COALESCE(hp.net, hp.practice_net) AS net "
                "FROM hand_players hp JOIN hands h ON h.hand_id = hp.hand_id "
                f"WHERE hp.person_id = {people.PERSON_SQL} AND hp.completed_at IS NOT NULL "
                "ORDER BY hp.completed_at DESC, hp.hand_id DESC LIMIT ?",
                (guild_id, user_id, limit),
            )
            return [
                HandSummary(
                    hand_id=row["hand_id"],
                    channel_id=row["channel_id"],
                    variant=row["variant"],
                    completed_at=row["completed_at"],
                    net=row["net"],
                    record=await self._record(conn, row),
                    cancelled=bool(row["cancelled"]),
                    practice=bool(row["practice"]),
                    tournament_id=row["tournament_id"],
                )
                for row in rows
            ]
