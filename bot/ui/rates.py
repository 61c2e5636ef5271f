"""Sliding windows of recent uses per user: the rate limits' counts and their sizes.

The checks that use them (``bot.ui.limits``) answer the user; this module only counts,
so the bot's services (``bot.ui.app.App.limits``) hold it without importing the checks.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable

# command -> (uses, per seconds) for each user
COOLDOWNS: dict[str, tuple[int, float]] = {
    "open": (2, 60.0),
    "table": (2, 20.0),
    "leaderboard": (3, 20.0),
    "history": (3, 20.0),
    "replay": (5, 20.0),  # issue 21: /replay, /stats, /export
    "stats": (3, 20.0),
    "export": (3, 60.0),  # each builds files: fewer
}
TABLE_BUDGET = (20, 15.0)  # table commands and buttons per user: a person plays slower
#: the bucket of ``TABLE_BUDGET``: not "table", which is the ``/<game> table`` cooldown's
BUDGET_BUCKET = "table-budget"
CLICKS = (15, 5.0)  # table clicks per user: faster than a person clicks; a script or spammer does


class RateLimiter:
    """Sliding windows of recent uses per (bucket, user)."""

    def __init__(self, clock: Callable[[], float]) -> None:
        self.clock = clock
        self._uses: dict[tuple[str, int], deque[float]] = {}

    def wait(self, bucket: str, user_id: int, uses: int, per: float) -> float:
        """Seconds before the user may use ``bucket`` again (0: now); counts nothing."""
        now = self.clock()
        window = self._uses.get((bucket, user_id))
        if window is None:
            return 0.0
        while window and window[0] <= now - per:
            window.popleft()
        return window[0] + per - now if len(window) >= uses else 0.0

    def note(self, bucket: str, user_id: int) -> None:
        """Count one use now."""
        now = self.clock()
        self._uses.setdefault((bucket, user_id), deque()).append(now)
        if len(self._uses) > 10_000:  # forget users whose windows have all expired
            longest = max(per for _, per in (*COOLDOWNS.values(), CLICKS, TABLE_BUDGET))
            self._uses = {k: w for k, w in self._uses.items() if w and w[-1] > now - longest}

    def retry_after(self, bucket: str, user_id: int, uses: int, per: float) -> float:
        """0 if the user may go ahead now (the use is counted), else seconds to wait."""
        wait = self.wait(bucket, user_id, uses, per)
        if not wait:
            self.note(bucket, user_id)
        return wait
