"""Which process acts on which guild's tables, when several processes split the shards.

Discord puts guild ``g`` on shard ``(g >> 22) % shard_count``; a guild never spans
shards, so all of its tables, seats, hands and accounts belong to the one process
that runs that shard. That process also takes the guild in the database
(``Store.claim_guild``) before it acts, so a second process configured with the same
shards (a misconfiguration, or a restart while the old process still runs) cannot
act on those tables until the first has exited.
"""

from __future__ import annotations

from dataclasses import dataclass


def shard_of(guild_id: int, shard_count: int) -> int:
    return (guild_id >> 22) % shard_count


@dataclass(frozen=True, slots=True)
class Shards:
    """The shards this process runs: ``ids`` of ``count``."""

    count: int
    ids: frozenset[int]

    def owns(self, guild_id: int) -> bool:
        return shard_of(guild_id, self.count) in self.ids
