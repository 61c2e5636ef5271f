"""Reads of finished hands and ledgers for replays and exports, bounded and in pages.

Every read is bounded by the caller (the last N hands, a time range). Hands come back
as ``rows.HandRow`` values, their records as stored (players keyed by user id);
``bot.history.exports`` parses them for the replays and the writers.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from bot.storage import people
from bot.storage.database import Database, all_rows
from bot.storage.rows import HandRow, LedgerEntry, ServerLedgerRow

PAGE = 100  # hands read per query, so a long export never holds one huge result


class ExportRows:
    """Finished hands and ledgers, in the database's read transactions."""

    def __init__(self, db: Database) -> None:
        self._db = db

    async def hand_row(self, hand_id: int) -> HandRow | None:
        """One hand, live or finished (the caller refuses a live one); None if unknown."""
        hands = await self._hands("h.hand_id = ?", (hand_id,), "", 1)
        return hands[0] if hands else None

    async def player_hand_ids(
        self, guild_id: int, user_id: int, limit: int, since: float | None = None
    ) -> list[int]:
        """The player's last ``limit`` finished hands on the server (since ``since``),
        oldest first."""
        async with self._db.read() as conn:
            rows = await all_rows(
                conn,
                "SELECT h.hand_id FROM hand_players hp JOIN hands h ON h.hand_id = hp.hand_id "
                f"WHERE hp.person_id = {people.PERSON_SQL} AND h.status = 'complete' "
                "AND h.completed_at >= ? ORDER BY h.hand_id DESC LIMIT ?",
                (guild_id, user_id, since or 0.0, limit),
            )
        return sorted(int(r[0]) for r in rows)

    async def server_hand_ids(
        self, guild_id: int, limit: int, since: float | None = None
    ) -> list[int]:
        async with self._db.read() as conn:
            rows = await all_rows(
                conn,
                "SELECT hand_id FROM hands WHERE guild_id = ? AND status = 'complete' "
                "AND completed_at >= ? ORDER BY hand_id DESC LIMIT ?",
                (guild_id, since or 0.0, limit),
            )
        return sorted(int(r[0]) for r in rows)

    async def hand_rows(self, hand_ids: Sequence[int]) -> list[HandRow]:
        """These hands with their records, in the order given, read ``PAGE`` at a time."""
        out: list[HandRow] = []
        for start in range(0, len(hand_ids), PAGE):
            page = list(hand_ids[start : start + PAGE])
            marks = ",".join("?" * len(page))
            found = {
                h.hand_id: h
                for h in await self._hands(f"h.hand_id IN ({marks})", page, "", len(page))
            }
            out += [found[i] for i in page if i in found]
        return out

    async def _hands(
        self, where: str, args: Sequence[Any], order: str, limit: int
    ) -> list[HandRow]:
        async with self._db.read() as conn:
            hands = await all_rows(
                conn, f"SELECT h.* FROM hands h WHERE {where} {order} LIMIT {int(limit)}", args
            )
            ids = [int(h["hand_id"]) for h in hands]
            if not ids:
                return []
            marks = ",".join("?" * len(ids))
            players = await all_rows(
                conn,
                "SELECT hp.hand_id, p.user_id, p.display_name, hp.person_id "
                "FROM hand_players hp JOIN people p ON p.person_id = hp.person_id "
                f"WHERE hp.hand_id IN ({marks})",
                ids,
            )
            reshuffles = await all_rows(
                conn,
                f"SELECT hand_id, cards_json FROM hand_reshuffles WHERE hand_id IN ({marks}) "
                "ORDER BY hand_id, idx",
                ids,
            )
            actions = await all_rows(
                conn,
                f"SELECT hand_id, action_json FROM hand_actions WHERE hand_id IN ({marks}) "
                "ORDER BY hand_id, idx",
                ids,
            )
        names: dict[int, dict[str, str]] = {}
        users: dict[int, dict[str, int]] = {}
        tokens: dict[int, dict[str, str]] = {}
        for p in players:
            key = str(p["user_id"])
            tokens.setdefault(int(p["hand_id"]), {})[people.token(int(p["person_id"]))] = key
            users.setdefault(int(p["hand_id"]), {})[key] = int(p["user_id"])
            if p["display_name"]:
                names.setdefault(int(p["hand_id"]), {})[key] = p["display_name"]
        shuffled: dict[int, list[Any]] = {}
        for r in reshuffles:
            shuffled.setdefault(int(r[0]), []).append(json.loads(r[1]))
        acted: dict[int, list[Any]] = {}
        for a in actions:
            action = people.rename_players(json.loads(a[1]), tokens.get(int(a[0]), {}))
            acted.setdefault(int(a[0]), []).append(action)
        out = []
        for h in hands:
            hand_id = int(h["hand_id"])
            record = {
                **people.rename_players(json.loads(h["header_json"]), tokens.get(hand_id, {})),
                "reshuffles": shuffled.get(hand_id, []),
                "actions": acted.get(hand_id, []),
            }
            out.append(
                HandRow(
                    hand_id=hand_id,
                    guild_id=int(h["guild_id"]),
                    channel_id=int(h["channel_id"]),
                    variant=h["variant"],
                    started_at=float(h["started_at"]),
                    completed_at=None if h["status"] == "live" else float(h["completed_at"]),
                    record=record,
                    names=names.get(hand_id, {}),
                    users=users.get(hand_id, {}),
                    cancelled=bool(h["cancelled"]),
                    practice=bool(h["practice"]),
                    tournament_id=h["tournament_id"],
                )
            )
        return out

    async def ledger(
        self, guild_id: int, user_id: int, limit: int, since: float | None = None
    ) -> list[LedgerEntry]:
        """The player's last ``limit`` ledger entries (since ``since``), oldest first."""
        async with self._db.read() as conn:
            rows = await all_rows(
                conn,
                "SELECT l.entry_id, l.created_at, l.kind, l.amount, l.balance_after, l.hand_id, "
                "h.variant FROM ledger l LEFT JOIN hands h ON h.hand_id = l.hand_id "
                f"WHERE l.person_id = {people.PERSON_SQL} AND l.created_at >= ? "
                "ORDER BY l.entry_id DESC LIMIT ?",
                (guild_id, user_id, since or 0.0, limit),
            )
        return [
            LedgerEntry(
                entry_id=int(r[0]),
                created_at=float(r[1]),
                kind=r[2],
                amount=int(r[3]),
                balance_after=int(r[4]),
                hand_id=None if r[5] is None else int(r[5]),
                variant=r[6],
            )
            for r in reversed(rows)
        ]

    async def server_ledger(self, guild_id: int) -> list[ServerLedgerRow]:
        """Each player of the server: hands, net, refills, balance (most hands first)."""
        async with self._db.read() as conn:
            rows = await all_rows(
                conn,
                "SELECT a.user_id, a.display_name, a.hands_played, a.net_won, "
                "(SELECT COUNT(*) FROM ledger l JOIN people p ON p.person_id = l.person_id "
                "WHERE p.guild_id = a.guild_id AND p.user_id = a.user_id "
                "AND l.kind = 'refill'), a.refilled, a.balance "
                "FROM accounts a WHERE a.guild_id = ? AND a.user_id > 0 "
                "ORDER BY a.hands_played DESC, a.user_id",
                (guild_id,),
            )
        return [
            ServerLedgerRow(int(r[0]), r[1], int(r[2]), int(r[3]), int(r[4]), int(r[5]), int(r[6]))
            for r in rows
        ]
