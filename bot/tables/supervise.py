"""Supervision of background work: every failure is logged with its context, and the work goes on.

Long-lived loops (``forever``) run their body again after a failure, once a back-off
has passed that grows with the failures in a row and starts over after a success;
one-off tasks (``spawn``) are watched, so a failure is never silent. Cancellation is
never caught: stopping the work stays the owner's job (it keeps the tasks and cancels
them when it closes). RoboDanny's ``dispatch_timers`` is the model.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

from bot.metrics import METRICS

log = logging.getLogger(__name__)
MAX_DELAY = 60.0  # seconds: the longest back-off


class Backoff:
    """Delays after failures in a row: ``first``, doubling, at most ``most``."""

    def __init__(self, first: float, most: float = MAX_DELAY) -> None:
        if first <= 0:
            raise ValueError(f"a back-off starts above 0 s, not {first}")
        self.first = first
        self.most = max(first, most)
        self.failures = 0

    def failed(self) -> float:
        """Count a failure; the delay before the next try."""
        self.failures += 1
        return min(self.most, self.first * 2.0 ** (self.failures - 1))

    def succeeded(self) -> None:
        self.failures = 0


async def forever(what: str, body: Callable[[], Awaitable[bool | None]], *, every: float) -> None:
    """Run ``body`` every ``every`` seconds (waiting first) until it returns True. A body
    that raises is logged at ERROR with ``what`` and run again after a back-off that
    starts at ``every`` and doubles, up to a minute (or ``every`` if longer)."""
    backoff = Backoff(every)
    delay = every
    while True:
        await asyncio.sleep(delay)
        try:
            done = await body()
        except Exception:
            delay = backoff.failed()
            METRICS.background_failures.inc()
            log.error(
                "ALERT: %s failed (%d in a row); again in %.3g s",
                what,
                backoff.failures,
                delay,
                exc_info=True,
            )
            continue
        backoff.succeeded()
        delay = every
        if done:
            return


def watch(task: asyncio.Task[Any], what: str) -> None:
    """Log the task's failure, if it fails, at ERROR with ``what``."""

    def done(finished: asyncio.Task[Any]) -> None:
        if finished.cancelled():
            return
        exc = finished.exception()
        if exc is not None:
            METRICS.background_failures.inc()
            log.error("ALERT: %s failed", what, exc_info=exc)

    task.add_done_callback(done)


def spawn(
    coro: Coroutine[Any, Any, None], what: str, tasks: set[asyncio.Task[None]]
) -> asyncio.Task[None]:
    """Start ``coro`` as a task kept in ``tasks`` (a strong reference, until it ends)
    and watched (``watch``)."""
    task = asyncio.get_running_loop().create_task(coro, name=what)
    tasks.add(task)
    task.add_done_callback(tasks.discard)
    watch(task, what)
    return task
