"""Who may replay which hand, and as whom: the rule, as data the UI words.

A player replays any hand they were dealt into, seeing their own cards; anyone else on
the server replays its finished hands as a spectator, seeing only what was public; a
hand still being played, or another server's, is refused.
"""

from __future__ import annotations

from dataclasses import dataclass

from .stored import StoredHand


@dataclass(frozen=True)
class Access:
    refused: str | None  # None, "unknown" (no such hand here) or "live"
    viewer: str | None = None  # the seat's player key when dealt in, None: a spectator


def replay_access(stored: StoredHand | None, guild_id: int, user_id: int) -> Access:
    if stored is None or stored.guild_id != guild_id:
        return Access("unknown")
    if not stored.finished:
        return Access("live")
    key = str(user_id)
    dealt = any(seat.player == key for seat in stored.record.seats)
    return Access(None, key if dealt else None)
