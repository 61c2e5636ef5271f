"""Discord's request budget: this process's share of the token's global limit, enforced in
front of every request that counts against it, and the count of failed requests that
would get the bot's IP banned.

Discord allows a bot token 50 requests per second in all, across every process and shard;
the interaction endpoints (the callback, the original response, followups: ``/interactions``
and ``/webhooks`` routes) are exempt. Every other request (channel messages, edits, DMs,
creating a DM) counts. With N processes each holds a configured share; the sum of the
shares stays under the limit. 10,000 failed requests (401, 403, 429) in 10 minutes get the
IP banned for a while: an ALERT is logged well before.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import aiohttp

from bot.metrics import METRICS, RouteKind

log = logging.getLogger(__name__)

GLOBAL_LIMIT = 50  # requests per second per bot token (Discord)
#: the part of it a process uses when nothing is configured: room for Discord's own counting
DEFAULT_SHARE = 45.0
EXEMPT = ("/interactions/", "/webhooks/")
FAILED = (401, 403, 429)
BAN_AT = 10_000  # failed requests in 10 minutes (Discord)


def exempt(path: str) -> bool:
    """Whether a request path is outside the global limit (an interaction endpoint)."""
    return any(part in path for part in EXEMPT)


def shown_path(path: str) -> str:
    """A request path fit for a log: an interaction's token never is."""
    for part in EXEMPT:
        if part in path:
            return path[: path.index(part) + len(part)] + "…"
    return path


def default_share(shard_count: int | None, shard_ids: tuple[int, ...] | None) -> float:
    """A process running some of the shards gets their part of the default share."""
    if shard_count is None or not shard_ids:
        return DEFAULT_SHARE
    return DEFAULT_SHARE * len(shard_ids) / shard_count


class Share:
    """At most ``rate`` requests start in any second (a sliding window). The window is a
    little longer than a second: Discord counts requests as they arrive, after whatever
    delay each had on the way, so two that left just over a second apart may land within
    one."""

    window = 1.1

    def __init__(self, rate: float, clock: Callable[[], float] | None = None) -> None:
        self.rate = rate
        self.limit = max(1, int(rate))
        self._clock = clock
        self._starts: deque[float] = deque()
        self.waited = 0  # requests that had to wait for the window

    def _now(self) -> float:
        return self._clock() if self._clock else asyncio.get_running_loop().time()

    async def acquire(self) -> None:
        waited = False
        while True:
            now = self._now()
            while self._starts and now - self._starts[0] >= self.window:
                self._starts.popleft()
            if len(self._starts) < self.limit:
                self._starts.append(now)
                self.waited += waited
                return
            waited = True
            await asyncio.sleep(self.window - (now - self._starts[0]) + 0.001)


class Failures:
    """Failed requests in the last ``window`` seconds; an ALERT at ``alert_at``."""

    def __init__(
        self, clock: Callable[[], float], alert_at: int = 1_000, window: float = 600.0
    ) -> None:
        self.clock, self.alert_at, self.window = clock, alert_at, window
        self._at: deque[float] = deque()
        self.alerted = False
        self.total = 0

    def record(self, status: int, path: str) -> None:
        now = self.clock()
        self._at.append(now)
        self.total += 1
        while self._at and now - self._at[0] > self.window:
            self._at.popleft()
        count = len(self._at)
        if count >= self.alert_at and not self.alerted:
            self.alerted = True
            log.error(
                "ALERT: %d failed Discord requests (401/403/429) in the last %d minutes "
                "(Discord bans the IP at %d); the latest: %s %s",
                count,
                int(self.window // 60),
                BAN_AT,
                status,
                path,
            )
        elif count < self.alert_at // 2:
            self.alerted = False

    def recent(self) -> int:
        now = self.clock()
        return sum(1 for at in self._at if now - at <= self.window)


class Budget:
    """The share and the failure count, hooked into discord.py's HTTP session through an
    ``aiohttp.TraceConfig`` (``Client(http_trace=...)``): every request discord.py makes,
    its own retries included, passes here before it is sent and after it is answered."""

    def __init__(self, share: float, clock: Callable[[], float], alert_at: int = 1_000) -> None:
        self.share = Share(share)
        self.failures = Failures(clock, alert_at)
        self.limited = 0  # requests that counted against the global limit
        self.exempt = 0

    def trace(self) -> aiohttp.TraceConfig:
        trace = aiohttp.TraceConfig()
        trace.on_request_start.append(self._on_start)
        trace.on_request_end.append(self._on_end)
        return trace

    async def before(self, path: str) -> None:
        METRICS.request(RouteKind.INTERACTION if exempt(path) else RouteKind.GLOBAL)
        if exempt(path):
            self.exempt += 1
            return
        self.limited += 1
        await self.share.acquire()

    def after(self, status: int, path: str) -> None:
        METRICS.response(RouteKind.INTERACTION if exempt(path) else RouteKind.GLOBAL, status, path)
        if status in FAILED:
            self.failures.record(status, shown_path(path))

    async def _on_start(self, session: Any, ctx: SimpleNamespace, params: Any) -> None:
        await self.before(params.url.path)

    async def _on_end(self, session: Any, ctx: SimpleNamespace, params: Any) -> None:
        self.after(params.response.status, params.url.path)
