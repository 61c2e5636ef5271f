"""Discord's rate limits as its REST API applies them: per-route buckets and the global limit.

Discord's documentation (topics/rate-limits): a bot token may make 50 requests per second in
all; the interaction endpoints (the callback, followups and edits of the original response)
are exempt. Each route also has its own bucket, counted per top-level resource (channel,
guild, or webhook id and token), announced on every answer with ``X-RateLimit-Limit``,
``-Remaining``, ``-Reset``, ``-Reset-After`` and ``-Bucket``. A request over a limit gets 429
with ``retry_after`` in the body, ``X-RateLimit-Scope`` (``user`` for a route's bucket,
``global`` with ``X-RateLimit-Global: true`` for the global limit) and ``Retry-After``; the
``Via`` header is what tells discord.py the 429 came from Discord and not from Cloudflare.

Discord does not publish each route's numbers (clients must read the headers); the ones here
are the widely observed ones: message creates and edits 5 per 5 s per channel.
"""

from __future__ import annotations

import re
import time
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import dataclass, field

GLOBAL_PER_SECOND = 50
EXEMPT = ("/interactions/", "/webhooks/")


@dataclass(frozen=True)
class Rule:
    """A route's bucket: ``limit`` requests per ``per`` seconds for each top-level resource."""

    name: str
    limit: int
    per: float


#: (method, path pattern with the top-level resource as group 1, rule); first match wins
RULES: tuple[tuple[str, re.Pattern[str], Rule], ...] = (
    ("POST", re.compile(r"/channels/(\d+)/messages"), Rule("message-create", 5, 5.0)),
    ("PATCH", re.compile(r"/channels/(\d+)/messages/\d+"), Rule("message-edit", 5, 5.0)),
    ("DELETE", re.compile(r"/channels/(\d+)/messages/\d+"), Rule("message-delete", 5, 1.0)),
)
#: every other route: a bucket per method and path shape that only the global limit binds
DEFAULT = Rule("default", GLOBAL_PER_SECOND, 1.0)


def exempt(path: str) -> bool:
    """Whether a request path is outside the global limit (an interaction endpoint)."""
    return any(path.startswith(part) for part in EXEMPT)


@dataclass
class _Bucket:
    rule: Rule
    started: float = 0.0
    used: int = 0


@dataclass
class Verdict:
    """What the limiter says of one request: go on (``status`` 0) or answer 429, and the
    headers either way."""

    status: int
    headers: dict[str, str]
    body: dict[str, object] | None = None


@dataclass
class RateLimits:
    """Discord's limits for one bot token. ``check`` is called as each request arrives."""

    global_per_second: int = GLOBAL_PER_SECOND
    clock: Callable[[], float] = field(default=time.monotonic, repr=False)
    _buckets: dict[tuple[str, str], _Bucket] = field(default_factory=dict, repr=False)
    #: arrival times of the global-limited requests let through in the last second
    _window: deque[float] = field(default_factory=deque, repr=False)
    #: counts: "global 429", "route 429", "limited" (requests let through on limited routes),
    #: "exempt" (interaction endpoints), "exempt 429" (never: kept to show it)
    counts: Counter[str] = field(default_factory=Counter)
    #: the most global-limited requests let through within any one second
    peak: int = 0

    @staticmethod
    def _rule(method: str, path: str) -> tuple[Rule, str]:
        for rule_method, pattern, rule in RULES:
            m = pattern.fullmatch(path)
            if rule_method == method and m:
                return rule, m.group(1)
        shape = re.sub(r"\d{5,}", "{id}", path)
        return Rule(f"{method} {shape}", DEFAULT.limit, DEFAULT.per), ""

    def check(self, method: str, path: str) -> Verdict:
        """Count one arriving request; 429 it if a limit is spent, else let it through."""
        if exempt(path):
            self.counts["exempt"] += 1
            return Verdict(0, {})
        now = self.clock()
        rule, resource = self._rule(method, path)
        bucket = self._buckets.setdefault((rule.name, resource), _Bucket(rule, now))
        if now - bucket.started >= rule.per:
            bucket.started, bucket.used = now, 0
        reset_after = max(0.0, bucket.started + rule.per - now)
        headers = {
            "X-RateLimit-Limit": str(rule.limit),
            "X-RateLimit-Reset": f"{time.time() + reset_after:.3f}",
            "X-RateLimit-Reset-After": f"{reset_after:.3f}",
            "X-RateLimit-Bucket": f"fake-{abs(hash(rule.name)) % 10**12:012x}",
        }
        if bucket.used >= rule.limit:
            self.counts["route 429"] += 1
            return self._limited(headers | {"X-RateLimit-Remaining": "0"}, reset_after, "user")
        while self._window and now - self._window[0] >= 1.0:
            self._window.popleft()
        if len(self._window) >= self.global_per_second:
            self.counts["global 429"] += 1
            retry = max(0.001, self._window[0] + 1.0 - now)
            return self._limited({"X-RateLimit-Global": "true"}, retry, "global", is_global=True)
        self._window.append(now)
        self.peak = max(self.peak, len(self._window))
        bucket.used += 1
        self.counts["limited"] += 1
        return Verdict(0, headers | {"X-RateLimit-Remaining": str(rule.limit - bucket.used)})

    @staticmethod
    def _limited(
        headers: dict[str, str], retry_after: float, scope: str, *, is_global: bool = False
    ) -> Verdict:
        body: dict[str, object] = {
            "message": "You are being rate limited.",
            "retry_after": round(retry_after, 3),
            "global": is_global,
        }
        headers = headers | {
            "X-RateLimit-Scope": scope,
            "Retry-After": str(max(1, round(retry_after + 0.5))),
            "Via": "1.1 google",
        }
        return Verdict(429, headers, body)
