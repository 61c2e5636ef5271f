"""Per-table outboxes: what happened at each table, waiting to be shown.

The manager appends to a table's outbox and returns at once, so a player's
action never waits on Discord. The presenter (``bot/ui/presenter.py``) takes
the entries in order. Entries wait here until a presenter is attached (events
emitted while the bot starts up are kept, not dropped).
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

from bot.engine import SeatView

from .models import TableEvent

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Outgoing:
    event: TableEvent
    #: user id -> that player's own cards right after the event, for their DM only
    hands: dict[int, SeatView] = field(default_factory=dict)


class Outbox:
    def __init__(self) -> None:
        self._queues: dict[int, deque[Outgoing]] = {}
        self._wakers: list[Callable[[int], None]] = []

    def put(self, item: Outgoing) -> None:
        """Append without waiting; a waker that fails is logged, never the caller's problem."""
        channel_id = item.event.view.channel_id
        self._queues.setdefault(channel_id, deque()).append(item)
        for wake in self._wakers:
            try:
                wake(channel_id)
            except Exception:
                log.exception("outbox waker failed for table %s", channel_id)

    def take(self, channel_id: int) -> list[Outgoing]:
        """Every entry waiting for this table, oldest first."""
        queue = self._queues.pop(channel_id, None)
        return list(queue) if queue else []

    def pending(self) -> list[int]:
        return [channel for channel, queue in self._queues.items() if queue]

    def on_put(self, wake: Callable[[int], None]) -> None:
        self._wakers.append(wake)
