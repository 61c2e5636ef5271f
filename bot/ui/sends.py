"""Requests to Discord that may fail for a while, and a table's send worker retrying them.

Transient failures (5xx, timeouts, connection errors, a rate limit too long for
discord.py to wait out or that outlasted its retries) are retried with backoff, on
top of discord.py's own 429 handling; permanent ones are logged with their context
and dropped, so nothing blocks the game. A table's ``SendQueue`` runs its results, DMs
and notices strictly in the order of the events that caused them.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable
from typing import Any

import aiohttp
import discord

from bot.metrics import METRICS

from .lane import Host, Job

# the presenter's log (docs/operations.md names it), whichever of its parts writes
log = logging.getLogger("bot.ui.presenter")


class StillRateLimited(Exception):
    """A 429 from Discord that outlasted discord.py's own tries (it makes five, waiting out
    each 429, then raises the last as a plain ``HTTPException``): the limit is spent for
    now, not the request wrong. A 429 without ``Via`` is Cloudflare's (a ban): discord.py
    does not retry it and neither do we."""

    def __init__(self, cause: discord.HTTPException) -> None:
        super().__init__(f"429 after discord.py's retries: {cause.text}")


#: failures worth trying again: Discord's 5xx, timeouts, dropped connections, rate limits
#: too long for discord.py to wait out or that outlasted its retries
TRANSIENT = (
    discord.DiscordServerError,
    discord.RateLimited,
    StillRateLimited,
    TimeoutError,
    aiohttp.ClientError,
    OSError,
)


def backoff(host: Host, failures: int) -> float:
    """Seconds to wait after ``failures`` failures in a row."""
    return host.retry_delays[min(failures, len(host.retry_delays) - 1)]


async def timed(host: Host, call: Awaitable[Any]) -> Any:
    """A request, given up (``TimeoutError``, transient) after the host's request timeout;
    a 429 that outlasted discord.py's retries comes out as ``StillRateLimited`` (transient).
    ``asyncio.timeout``, not ``wait_for``: on Python 3.11 ``wait_for`` swallows a
    cancellation that comes as the request completes, and the presenter's close then waited
    for ever on an edit worker that went back to waiting for work."""
    request = asyncio.ensure_future(call)  # its own task, as wait_for made it
    try:
        async with asyncio.timeout(host.request_timeout):
            return await request
    except discord.HTTPException as exc:
        if exc.status == 429 and exc.response.headers.get("Via"):
            raise StillRateLimited(exc) from exc
        raise


class SendQueue:
    """One table's sends (results, DMs, notices), run one at a time in order, each retried."""

    def __init__(self, host: Host, channel_id: int) -> None:
        self._host = host
        self.channel_id = channel_id
        self._queue: asyncio.Queue[tuple[str, Job]] = asyncio.Queue()
        self._sending = False
        self._closing = False

    def put(self, what: str, job: Job) -> None:
        self._queue.put_nowait((what, job))

    def close(self) -> None:
        """No more sends will come: ``run`` returns once the queue is empty."""
        self._closing = True

    def busy(self) -> bool:
        return self._sending or not self._queue.empty()

    def waiting(self) -> int:
        """Sends queued, not yet started."""
        return self._queue.qsize()

    async def run(self) -> None:
        """Run the sends in order; return once a closed queue is empty."""
        while True:
            what, job = await self._queue.get()
            self._sending = True
            try:
                await _with_retries(self._host, self.channel_id, what, job)
            finally:
                self._sending = False
                # else the job (a result holds its click: interaction, message, member) stays
                # alive in this frame until the next send, for the collector to walk
                del what, job
            if self._closing and self._queue.empty():
                return


async def _with_retries(host: Host, channel_id: int, what: str, job: Job) -> None:
    for attempt in range(len(host.retry_delays) + 1):
        try:
            await timed(host, job())
            return
        except TRANSIENT as exc:
            if attempt == len(host.retry_delays):
                log.error("gave up on %s at table %s: %r", what, channel_id, exc)
                return
            delay = backoff(host, attempt)
            METRICS.retries.labels("presenter").inc()
            log.warning("%s at table %s failed (%r); again in %.2f s", what, channel_id,
                        exc, delay)  # fmt: skip
            await asyncio.sleep(delay)
        except discord.HTTPException as exc:
            log.error("%s at table %s failed: %s %s %s", what, channel_id, exc.status,
                      exc.code, exc.text)  # fmt: skip
            return
        except Exception:
            log.exception("%s at table %s failed", what, channel_id)
            return
