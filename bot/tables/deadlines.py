"""One task for every table's turn deadline.

A heap of (deadline, channel, hand, turn) and one task that sleeps until the earliest
is due, then fires it in a task of its own (a slow table never delays another's
timeout). Each channel has at most one deadline: arming replaces the old one, and
replaced entries are skipped when they come up.

A firing that raises never ends the timers: it is logged at ERROR (the operator's
alert) and the same deadline is armed again after a growing delay, so a player who is
away can never hold a hand, and everyone's chips in it, forever.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

from bot.metrics import METRICS

from .supervise import watch

log = logging.getLogger(__name__)

Fire = Callable[[int, int, int], Awaitable[object]]  # (channel_id, hand_id, turn)
RETRY_DELAYS: tuple[float, ...] = (1.0, 2.0, 5.0, 10.0, 30.0, 60.0)  # then 60 s each time
MAX_SLEEP = 1.0  # seconds: a clock that jumps is noticed within this
_SLACK = 64  # stale heap entries allowed beyond twice the live ones before compacting


@dataclass(frozen=True)
class Deadline:
    when: float  # clock time (the manager's clock: unix seconds)
    channel_id: int
    hand_id: int
    turn: int  # actions applied in the hand when the deadline was set

    @property
    def key(self) -> tuple[int, int, int]:
        return (self.channel_id, self.hand_id, self.turn)


class Deadlines:
    """The deadline dispatcher; ``fire(channel, hand, turn)`` runs when one is due."""

    def __init__(
        self,
        fire: Fire,
        clock: Callable[[], float],
        retry_delays: Sequence[float] = RETRY_DELAYS,
    ) -> None:
        if not retry_delays or min(retry_delays) <= 0:
            raise ValueError(f"retry delays must be > 0, got {list(retry_delays)}")
        self._fire = fire
        self._clock = clock
        self._retry_delays = tuple(retry_delays)
        self._heap: list[tuple[float, int, Deadline]] = []
        self._order = itertools.count()  # ties in the heap never compare Deadlines
        self._current: dict[int, Deadline] = {}  # channel -> its one armed deadline
        self._failures: dict[tuple[int, int, int], int] = {}  # key -> failed attempts
        self._not_before: dict[tuple[int, int, int], float] = {}  # key -> backoff end
        self._firing: dict[asyncio.Task[None], Deadline] = {}  # strong references
        self._in_flight: set[tuple[int, int, int]] = set()  # keys being fired now
        self._requested: dict[tuple[int, int, int], float] = {}  # armed again while firing
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._closed = False

    # ----- arming ---------------------------------------------------------

    def arm(self, channel_id: int, hand_id: int, turn: int, when: float) -> None:
        """(Re)set the channel's deadline. A deadline that failed waits out its backoff."""
        if self._closed:
            return
        key = (channel_id, hand_id, turn)
        if key in self._in_flight:
            self._requested[key] = when  # the attempt's outcome decides (see _attempt)
            return
        when = max(when, self._not_before.get(key, when))
        self._forget_failures(channel_id, keep=key)
        entry = Deadline(when, channel_id, hand_id, turn)
        self._current[channel_id] = entry
        heapq.heappush(self._heap, (when, next(self._order), entry))
        if len(self._heap) > 2 * len(self._current) + _SLACK:
            self._compact()
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._run())
            watch(self._task, "the deadline dispatcher")
        self._wake.set()

    def _compact(self) -> None:
        """Drop replaced entries. Every action re-arms its table, so with long turn times
        the heap would otherwise hold one stale entry per action until each comes due:
        memory, and objects for every garbage-collector pass to walk."""
        self._heap = [
            item for item in self._heap if self._current.get(item[2].channel_id) is item[2]
        ]
        heapq.heapify(self._heap)

    def disarm(self, channel_id: int) -> None:
        self._current.pop(channel_id, None)
        self._forget_failures(channel_id)

    def armed(self, channel_id: int) -> Deadline | None:
        """The channel's pending deadline (None while none is armed or it is firing)."""
        return self._current.get(channel_id)

    def _forget_failures(self, channel_id: int, keep: tuple[int, int, int] | None = None) -> None:
        for key in [k for k in self._failures if k[0] == channel_id and k != keep]:
            del self._failures[key]
            self._not_before.pop(key, None)

    # ----- running ----------------------------------------------------------

    async def _run(self) -> None:
        while True:
            self._wake.clear()
            try:
                delay = self._fire_due()
            except Exception:  # never expected; the timers must go on regardless
                log.exception("the deadline dispatcher failed; carrying on")
                delay = MAX_SLEEP
            loop = asyncio.get_running_loop()
            alarm = None if delay is None else loop.call_later(delay, self._wake.set)
            try:
                await self._wake.wait()
            finally:
                if alarm is not None:
                    alarm.cancel()

    def _fire_due(self) -> float | None:
        """Start every due deadline; return how long to sleep (None: until woken)."""
        now = self._clock()
        while self._heap and self._heap[0][0] <= now:
            entry = heapq.heappop(self._heap)[2]
            if self._current.get(entry.channel_id) is not entry:
                continue  # replaced or disarmed since
            del self._current[entry.channel_id]
            self._in_flight.add(entry.key)
            task = asyncio.get_running_loop().create_task(self._attempt(entry))
            watch(task, f"the timeout at table {entry.channel_id} (hand {entry.hand_id})")
            self._firing[task] = entry
            task.add_done_callback(lambda t: self._firing.pop(t, None))
        if not self._heap:
            return None
        return min(MAX_SLEEP, self._heap[0][0] - now)

    async def _attempt(self, entry: Deadline) -> None:
        key = entry.key
        try:
            await self._fire(entry.channel_id, entry.hand_id, entry.turn)
        except Exception:
            self._in_flight.discard(key)
            self._requested.pop(key, None)  # the backoff decides when to try again
            failures = self._failures.get(key, 0) + 1
            delay = self._retry_delays[min(failures, len(self._retry_delays)) - 1]
            METRICS.timeout_failures.inc()
            log.error(
                "ALERT: timeout at table %s (hand %s, turn %s) failed %d time(s); "
                "retrying in %.3g s",
                entry.channel_id,
                entry.hand_id,
                entry.turn,
                failures,
                delay,
                exc_info=True,
            )
            current = self._current.get(entry.channel_id)
            if current is not None and current.key != key:
                return  # the table moved on meanwhile: that deadline stands
            self._failures[key] = failures
            self._not_before[key] = self._clock() + delay
            self.arm(*key, self._not_before[key])
        else:
            self._in_flight.discard(key)
            self._failures.pop(key, None)
            self._not_before.pop(key, None)
            requested = self._requested.pop(key, None)
            if requested is not None:
                self.arm(*key, requested)
        finally:
            self._in_flight.discard(key)  # cancelled

    async def close(self) -> None:
        """Stop the dispatcher; timeouts already firing are allowed to finish."""
        self._closed = True
        self._current.clear()
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
            self._task = None
        await asyncio.gather(*self._firing, return_exceptions=True)
