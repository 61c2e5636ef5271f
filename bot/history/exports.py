"""The exports' reads with each hand's record parsed: what /replay and /export read.

``Exports`` is the storage's ``ExportRows`` (hand ids and ledgers, bounded and in pages)
plus ``hand`` and ``hands``, the stored hands as ``StoredHand`` values whose records the
engine parsed, for the replay steps and the writers.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.storage.exports import ExportRows

from .stored import StoredHand, stored_hand

__all__ = ["Exports"]


class Exports(ExportRows):
    """The storage's export reads, and the hands read with their records parsed."""

    async def hand(self, hand_id: int) -> StoredHand | None:
        """One hand, live or finished (the caller refuses a live one); None if unknown."""
        row = await self.hand_row(hand_id)
        return None if row is None else stored_hand(row)

    async def hands(self, hand_ids: Sequence[int]) -> list[StoredHand]:
        """These hands, in the order given, read ``PAGE`` at a time."""
        return [stored_hand(row) for row in await self.hand_rows(hand_ids)]
