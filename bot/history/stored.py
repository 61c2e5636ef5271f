"""The stored facts the writers and the replay take: a finished hand, a ledger entry.

A hand is the storage's ``HandRow`` with its record parsed (``stored_hand``); the ledger
rows are the storage's own, read here by the CSV writers.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from bot.engine import HandRecord
from bot.engine.record import parse_record
from bot.storage.rows import HandRow


@dataclass(frozen=True)
class StoredHand:
    hand_id: int
    guild_id: int
    channel_id: int
    variant: str
    started_at: float
    completed_at: float | None  # None: still being played
    record: HandRecord
    names: dict[str, str] = field(default_factory=dict)  # seat player key -> display name
    users: dict[str, int] = field(default_factory=dict)  # seat player key -> user id (people)
    cancelled: bool = False
    practice: bool = False
    tournament_id: int | None = None  # a Sit & Go's hand (its stakes are its level's)
    level: int | None = None  # that tournament's level, read off the stakes by the caller

    @property
    def finished(self) -> bool:
        return self.completed_at is not None

    def name(self, player: str) -> str:
        return self.names.get(player) or player

    def computers(self) -> dict[str, int]:
        """The computer players (practice tables: ids below 1, no person, so no stored
        name), each with its place in the order they were seated: -1 the first, -2 the
        second (the UI names them as the table did, by that place)."""
        return {s.player: -int(s.player) - 1 for s in self.record.seats if _computer(s.player)}


def _computer(player: str) -> bool:
    return player.startswith("-") and player[1:].isdigit()


def stored_hand(row: HandRow) -> StoredHand:
    """The stored hand with its record parsed (RecordError if it does not parse)."""
    return StoredHand(
        hand_id=row.hand_id,
        guild_id=row.guild_id,
        channel_id=row.channel_id,
        variant=row.variant,
        started_at=row.started_at,
        completed_at=row.completed_at,
        record=parse_record(row.record),
        names=row.names,
        users=row.users,
        cancelled=row.cancelled,
        practice=row.practice,
        tournament_id=row.tournament_id,
    )
