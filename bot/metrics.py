"""The operator's metrics: one Prometheus registry and every metric the bot exports.

``METRICS`` is the process's one instance (``prometheus_client``'s idiom: metrics are
module-level objects); the hot paths call it in one line each (the step, the COMMIT, the
group commit, the REST trace, the session's reconnect). What is a state rather than an
event (tables open, the presenter's backlog, guilds waiting) is read when Prometheus
scrapes, from the ``Snapshot`` function ``watch`` was given. ``bot/monitor.py`` serves it.

Labels are bounded: a game, a kind of action, a route kind, an outcome, a status class;
never a user, channel or guild id.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, TypeVar

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from bot.logs import log_context

log = logging.getLogger(__name__)

T = TypeVar("T")

#: seconds: a step, a COMMIT, an answer to an interaction (Discord wants one within 3 s)
TIME_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
ANSWER_BUCKETS = (0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 3.0, 5.0, 10.0)
BATCH_BUCKETS = (1, 2, 4, 8, 16, 32, 64, 128, 256)
LAG_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)
#: the answers after which discord.py sends a request again (its HTTPClient.request)
RETRIED = frozenset({429, 500, 502, 504, 524})
#: an interaction not answered this long after it came never will be (Discord allows 3 s)
FORGET_AFTER = 60.0


class Outcome(StrEnum):
    """How a step ended."""

    DONE = "done"
    REFUSED = "refused"  # a refusal: nothing changed
    FAILED = "failed"  # an error: the table was reloaded from the database
    CANCELLED = "cancelled"


class RouteKind(StrEnum):
    """Discord's two kinds of REST routes (``bot/ui/budget.py``)."""

    GLOBAL = "global"  # counts against the token's global limit
    INTERACTION = "interaction"  # /interactions and /webhooks: exempt


@dataclass(frozen=True)
class Snapshot:
    """The states read at each scrape."""

    tables: Mapping[str, int] = field(default_factory=dict)  # open tables by game
    backlog: int = 0  # table events and sends the presenter has not shown yet
    guilds_owned: int = 0  # guilds this process has claimed
    guilds_waiting: int = 0  # guilds of ours another process still holds
    failed_requests: int = 0  # 401/403/429 answers in the last 10 minutes


class _StateCollector(Collector):
    def __init__(self, metrics: Metrics) -> None:
        self.metrics = metrics

    def collect(self) -> Iterator[Metric]:
        snap = self.metrics.snapshot()
        tables = GaugeMetricFamily("lowball_tables_open", "Open tables, by game", labels=["game"])
        for game, count in sorted(snap.tables.items()):
            tables.add_metric([game], count)
        yield tables
        yield GaugeMetricFamily(
            "lowball_presenter_backlog",
            "Table events and sends waiting to be shown on Discord",
            value=snap.backlog,
        )
        yield GaugeMetricFamily(
            "lowball_guilds_owned", "Guilds this process has claimed", value=snap.guilds_owned
        )
        yield GaugeMetricFamily(
            "lowball_guilds_waiting",
            "Guilds of this process's shards another process still holds",
            value=snap.guilds_waiting,
        )
        yield GaugeMetricFamily(
            "lowball_rest_failed_recent",
            "Failed Discord requests (401/403/429) in the last 10 minutes (ban at 10000)",
            value=snap.failed_requests,
        )


class Metrics:
    """The registry and its metrics. Tests may make their own; the bot uses ``METRICS``."""

    def __init__(self, registry: CollectorRegistry | None = None) -> None:
        r = self.registry = registry if registry is not None else CollectorRegistry()
        self.snapshot: Callable[[], Snapshot] = Snapshot
        r.register(_StateCollector(self))
        # ----- the games
        self.hands_dealt = Counter(
            "lowball_hands_dealt", "Hands dealt, by game", ["game"], registry=r
        )
        self.hands_finished = Counter(
            "lowball_hands_finished", "Hands finished (settled), by game", ["game"], registry=r
        )
        self.actions = Counter(
            "lowball_actions",
            "Actions applied, by game, kind (check, bet, call, raise, fold, discard, buy) "
            "and who made them (player, timer)",
            ["game", "action", "by"],
            registry=r,
        )
        self.steps = Histogram(
            "lowball_step_seconds",
            "A table step, from asking for the table's lock to the end of its hook",
            ["outcome"],
            buckets=TIME_BUCKETS,
            registry=r,
        )
        self.timeout_failures = Counter(
            "lowball_timeout_failures",
            "Turn timers that could not act or settle (each logged as an ALERT)",
            registry=r,
        )
        self.background_failures = Counter(
            "lowball_background_failures",
            "Failures of supervised background work: a loop's pass or a one-off task"
            " (each logged as an ALERT)",
            registry=r,
        )
        self.computer_failures = Counter(
            "lowball_computer_player_failures",
            "Computer players' moves that failed (each logged as an ALERT)",
            registry=r,
        )
        # ----- the database
        self.commits = Histogram(
            "lowball_db_commit_seconds", "The COMMIT of a write", buckets=TIME_BUCKETS, registry=r
        )
        self.batches = Histogram(
            "lowball_db_group_commit_batch_size",
            "Writes carried by one group commit",
            buckets=BATCH_BUCKETS,
            registry=r,
        )
        self.reconnects = Counter(
            "lowball_db_reconnects", "Lost PostgreSQL sessions replaced", registry=r
        )
        self.guilds_lost = Counter(
            "lowball_guilds_lost",
            "Guilds another process took while this one's session was lost",
            registry=r,
        )
        # ----- Discord
        self.requests = Counter(
            "lowball_rest_requests", "REST requests sent, by route kind", ["route"], registry=r
        )
        self.responses = Counter(
            "lowball_rest_responses",
            "REST answers, by route kind and status (2xx, 3xx, 4xx, 429, 5xx)",
            ["route", "status"],
            registry=r,
        )
        self.retries = Counter(
            "lowball_rest_retries",
            "Requests sent again: by discord.py (after a 429, 500, 502, 504 or 524) or by the "
            "presenter (after a failure discord.py gave up on)",
            ["by"],
            registry=r,
        )
        self.answers = Histogram(
            "lowball_interaction_answer_seconds",
            "From an interaction's arrival to the end of its initial response",
            buckets=ANSWER_BUCKETS,
            registry=r,
        )
        # ----- the process
        self.loop_lag = Gauge(
            "lowball_event_loop_lag_seconds",
            "How late the event loop ran a timer at the latest look",
            registry=r,
        )
        self.loop_lags = Histogram(
            "lowball_event_loop_lag_observed_seconds",
            "How late the event loop ran a timer, at every look",
            buckets=LAG_BUCKETS,
            registry=r,
        )
        # ----- tournaments (set by the tournament code once it exists)
        self.tournaments = Gauge(
            "lowball_tournaments_running", "Tournaments running, by game", ["game"], registry=r
        )
        self.tournament_players = Gauge(
            "lowball_tournament_players",
            "Players still in running tournaments, by game",
            ["game"],
            registry=r,
        )
        self._arrived: dict[int, float] = {}  # interaction id -> loop time of its arrival
        self.last_lag = 0.0  # seconds, at the latest look

    # ----- the hooks the hot paths call ----------------------------------------------

    def watch(self, snapshot: Callable[[], Snapshot]) -> None:
        """Read the states from ``snapshot()`` at each scrape (the running bot's)."""
        self.snapshot = snapshot

    def count_events(self, events: Iterable[Any]) -> None:
        """A step's table events (``bot.tables.models.TableEvent``): hands and actions."""
        for event in events:
            game = event.view.variant
            if event.kind == "dealt":
                self.hands_dealt.labels(game).inc()
            elif event.kind == "finished":
                self.hands_finished.labels(game).inc()
            elif event.kind in ("action", "timeout") and event.move is not None:
                by = "timer" if event.move.timeout else "player"
                self.actions.labels(game, event.move.action, by).inc()

    def observed_step(
        self,
        no_change: tuple[type[BaseException], ...],
    ) -> Callable[
        [Callable[..., contextlib.AbstractAsyncContextManager[T]]],
        Callable[..., contextlib.AbstractAsyncContextManager[T]],
    ]:
        """Decorate ``Steps.step``: time it by outcome, and give the logs inside it the
        table's guild, channel and hand (``bot/logs.py``)."""

        def decorate(
            step: Callable[..., contextlib.AbstractAsyncContextManager[T]],
        ) -> Callable[..., contextlib.AbstractAsyncContextManager[T]]:
            @contextlib.asynccontextmanager
            async def observed(steps: Any, table: Any, **options: Any) -> AsyncIterator[T]:
                started = time.perf_counter()
                outcome = Outcome.FAILED
                ids = {"guild_id": table.guild_id, "channel_id": table.channel_id}
                with log_context(**ids, hand_id=table.hand_id):
                    try:
                        async with step(steps, table, **options) as done:
                            yield done
                        outcome = Outcome.DONE
                    except no_change:
                        outcome = Outcome.REFUSED
                        raise
                    except asyncio.CancelledError:
                        outcome = Outcome.CANCELLED
                        raise
                    finally:
                        self.steps.labels(outcome).observe(time.perf_counter() - started)

            return observed

        return decorate

    @contextlib.contextmanager
    def commit(self) -> Iterator[None]:
        """Time a COMMIT."""
        started = time.perf_counter()
        try:
            yield
        finally:
            self.commits.observe(time.perf_counter() - started)

    def request(self, route: RouteKind) -> None:
        self.requests.labels(route).inc()

    def response(self, route: RouteKind, status: int, path: str) -> None:
        """A REST answer; the end of an interaction's initial response is timed."""
        shown = "429" if status == 429 else f"{status // 100}xx"
        self.responses.labels(route, shown).inc()
        if status in RETRIED:
            self.retries.labels("discord.py").inc()  # it tries again, up to five times
        if route is RouteKind.INTERACTION and path.endswith("/callback"):
            interaction = _interaction_id(path)
            arrived = self._arrived.pop(interaction, None) if interaction else None
            if arrived is not None:
                self.answers.observe(_now() - arrived)

    def interaction_arrived(self, interaction_id: int) -> None:
        """An interaction came in from the gateway: its answer is timed from now."""
        now = _now()
        if len(self._arrived) > 1000:  # forget those that were never answered
            self._arrived = {i: t for i, t in self._arrived.items() if now - t < FORGET_AFTER}
        self._arrived[interaction_id] = now

    # ----- the event loop's lag -------------------------------------------------------

    async def watch_loop(self, every: float = 0.5) -> None:
        """Forever: sleep ``every`` seconds and record how much later the loop woke us."""
        loop = asyncio.get_running_loop()
        while True:
            asked = loop.time()
            await asyncio.sleep(every)
            lag = max(0.0, loop.time() - asked - every)
            self.last_lag = lag
            self.loop_lag.set(lag)
            self.loop_lags.observe(lag)


def _interaction_id(path: str) -> int | None:
    """The id in ``/api/v10/interactions/{id}/{token}/callback``."""
    parts = path.split("/")
    with contextlib.suppress(ValueError, IndexError):
        return int(parts[parts.index("interactions") + 1])
    return None


def _now() -> float:
    try:
        return asyncio.get_running_loop().time()
    except RuntimeError:
        return time.monotonic()


METRICS = Metrics()
