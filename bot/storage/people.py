"""People: the surrogate person of each player on each server, and the records' person tokens.

``hand_players``, the ledger and the stored hand records name a ``person_id``, never
the Discord id, so erasing a player rewrites one ``people`` row, however long their
history. Records at rest name a person by a token (``"#17"``); reading a record maps
each token back to the player's current id (the anonymous id after an erase), so
everything above ``bot/storage`` sees Discord ids as before. Computer players (small
negative ids at practice tables) have no person: their names stay as they are.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from bot.storage.connection import Connection
from bot.storage.database import all_rows, one

PERSON_SQL = "(SELECT person_id FROM people WHERE guild_id = ? AND user_id = ?)"


def token(person_id: int) -> str:
    return f"#{person_id}"


async def person_of(conn: Connection, guild_id: int, user_id: int) -> int | None:
    row = await one(
        conn, "SELECT person_id FROM people WHERE guild_id = ? AND user_id = ?", (guild_id, user_id)
    )
    return None if row is None else int(row[0])


async def ensure(
    conn: Connection, guild_id: int, users: Iterable[int], names: Mapping[int, str] | None = None
) -> dict[int, int]:
    """The person of each user on the server (created if missing, its name refreshed
    from ``names``), inside the caller's transaction: user_id -> person_id."""
    wanted = sorted(set(users))
    if not wanted:
        return {}
    names = names or {}
    await conn.executemany(
        "INSERT INTO people (guild_id, user_id, display_name) VALUES (?, ?, ?) "
        "ON CONFLICT (guild_id, user_id) DO NOTHING",
        [(guild_id, u, names.get(u)) for u in wanted],
    )
    renamed = [(names[u], guild_id, u, names[u]) for u in wanted if names.get(u) is not None]
    if renamed:
        await conn.executemany(
            "UPDATE people SET display_name = ? WHERE guild_id = ? AND user_id = ? "
            "AND (display_name IS NULL OR display_name != ?)",
            renamed,
        )
    marks = ",".join("?" * len(wanted))
    rows = await all_rows(
        conn,
        f"SELECT user_id, person_id FROM people WHERE guild_id = ? AND user_id IN ({marks})",
        (guild_id, *wanted),
    )
    return {int(r[0]): int(r[1]) for r in rows}


def player_tokens(persons: Mapping[int, int]) -> dict[str, str]:
    """user_id -> person_id as the records' texts: "123" -> "#17"."""
    return {str(user): token(person) for user, person in persons.items()}


def rename_players(part: Mapping[str, Any], names: Mapping[str, str]) -> dict[str, Any]:
    """A header or an action with its players renamed by ``names`` (others unchanged):
    the header's ``seats[*].player``, an action's ``player``."""
    out = dict(part)
    player = out.get("player")
    if isinstance(player, str) and player in names:
        out["player"] = names[player]
    seats = out.get("seats")
    if isinstance(seats, list):
        out["seats"] = [
            {**s, "player": names[s["player"]]}
            if isinstance(s, dict) and isinstance(s.get("player"), str) and s["player"] in names
            else s
            for s in seats
        ]
    return out


async def hands_people(conn: Connection, hand_ids: Sequence[int]) -> dict[int, dict[str, str]]:
    """For each hand, its people's tokens -> their ids as text ("#17" -> "123")."""
    if not hand_ids:
        return {}
    out: dict[int, dict[str, str]] = {}
    for start in range(0, len(hand_ids), 500):  # bounded parameter lists
        page = list(hand_ids[start : start + 500])
        marks = ",".join("?" * len(page))
        for row in await all_rows(
            conn,
            "SELECT hp.hand_id, hp.person_id, p.user_id FROM hand_players hp "
            f"JOIN people p ON p.person_id = hp.person_id WHERE hp.hand_id IN ({marks})",
            page,
        ):
            out.setdefault(int(row[0]), {})[token(int(row[1]))] = str(row[2])
    return out
