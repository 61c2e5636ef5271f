"""Player statistics in the database: the ``player_stats`` table, added to at settlement.

``add_hand`` runs inside ``Store.finish_hand``'s transaction, so a hand's statistics
are written exactly when its chips are (and never for a cancelled hand, which
``cancel_hand`` voids without settling). It replays nothing: the table service computes
what the hand adds from the hand it holds; this reads the players' current rows in one
query and writes them back in one statement. Each player has a row per game and one for
every game together (``ALL_GAMES``) of each kind: cash, practice and tournament hands
apart (``StatsKind``, migration v17). ``Stats.totals`` reads one row: as fast at 20,000
hands as at 20.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import fields
from typing import Any

from bot.storage.connection import Connection, Row
from bot.storage.database import Database, all_rows
from bot.storage.errors import BadSettlement
from bot.storage.totals import ALL_GAMES, DRAWS, HandStats, StatsKind, Totals

_COLUMNS = (
    "hands", "net", "vpip", "showdowns", "showdowns_won", "draws_json", "buys_left",
    "buys_right", "buys_blind", "won_high", "won_low", "won_both", "series_json", "stride",
    "first_at", "last_at",
)  # fmt: skip
_KEY = ("guild_id", "user_id", "variant", "kind")
_UPSERT = (
    f"INSERT INTO player_stats ({', '.join(_KEY + _COLUMNS)}) "
    f"VALUES ({', '.join('?' * (len(_KEY) + len(_COLUMNS)))}) "
    f"ON CONFLICT ({', '.join(_KEY)}) DO UPDATE SET "
    + ", ".join(f"{c} = excluded.{c}" for c in _COLUMNS)
)
_SIMPLE = [f.name for f in fields(Totals) if f.name in _COLUMNS]


def _totals(row: Row | None) -> Totals:
    if row is None:
        return Totals()
    draws = json.loads(row["draws_json"]) or [[0, 0, 0]] * DRAWS
    draws = [*draws, *[[0, 0, 0]] * (DRAWS - len(draws))]
    return Totals(
        **{name: row[name] for name in _SIMPLE},
        draw_times=tuple(d[0] for d in draws),
        draw_pats=tuple(d[1] for d in draws),
        draw_cards=tuple(d[2] for d in draws),
        series=tuple((int(a), int(b)) for a, b in json.loads(row["series_json"])),
    )


def _values(totals: Totals) -> tuple[Any, ...]:
    draws = [
        list(d) for d in zip(totals.draw_times, totals.draw_pats, totals.draw_cards, strict=True)
    ]
    out = {name: getattr(totals, name) for name in _SIMPLE}
    out["draws_json"] = json.dumps(draws, separators=(",", ":"))
    out["series_json"] = json.dumps([list(p) for p in totals.series], separators=(",", ":"))
    return tuple(out[c] for c in _COLUMNS)


async def add_hand(conn: Connection, hand: Row, added: Mapping[int, HandStats], now: float) -> None:
    """Add to its players' statistics what the settled hand ``hand`` (its ``hands`` row)
    adds to each: ``added`` maps user_id -> their figures. Only the hand's people (user
    ids above 0) are counted; naming anyone else raises BadSettlement (the caller's
    transaction then writes nothing)."""
    if not added:
        return
    players = await all_rows(
        conn,
        "SELECT p.user_id FROM hand_players hp JOIN people p ON p.person_id = hp.person_id "
        "WHERE hp.hand_id = ?",
        (hand["hand_id"],),
    )
    users = {int(p["user_id"]) for p in players if int(p["user_id"]) > 0}
    strangers = sorted(set(added) - users)
    if strangers:
        raise BadSettlement(f"hand #{hand['hand_id']}: statistics for non-players {strangers}")
    guild, variant = hand["guild_id"], hand["variant"]
    kind = StatsKind.of(bool(hand["practice"]), hand["tournament_id"]).value
    marks = ",".join("?" * len(added))
    rows = await all_rows(
        conn,
        f"SELECT * FROM player_stats WHERE guild_id = ? AND kind = ? AND user_id IN ({marks})"
        " AND variant IN (?, ?)",
        (guild, kind, *sorted(added), variant, ALL_GAMES),
    )
    current = {(int(r["user_id"]), r["variant"]): r for r in rows}
    writes = []
    for user in sorted(added):
        stats = added[user]
        for game in (variant, ALL_GAMES):
            totals = _totals(current.get((user, game))).add(stats, now)
            writes.append((guild, user, game, kind, *_values(totals)))
    await conn.executemany(_UPSERT, writes)


async def erase(conn: Connection, guild_id: int, user_id: int) -> None:
    """Forget a player's statistics on one server (their erasure, /privacy delete)."""
    await conn.execute(
        "DELETE FROM player_stats WHERE guild_id = ? AND user_id = ?", (guild_id, user_id)
    )


class Stats:
    """Reads of the statistics, in the database's read transactions."""

    def __init__(self, db: Database) -> None:
        self._db = db

    async def totals(
        self, guild_id: int, user_id: int, game: str | None, kind: StatsKind
    ) -> Totals:
        """One player's totals of ``kind`` for ``game`` (None: every game together)."""
        async with self._db.read() as conn:
            rows = await all_rows(
                conn,
                "SELECT * FROM player_stats WHERE guild_id = ? AND user_id = ? "
                "AND variant = ? AND kind = ?",
                (guild_id, user_id, game or ALL_GAMES, StatsKind(kind).value),
            )
        return _totals(rows[0] if rows else None)
