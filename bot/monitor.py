"""The operator's HTTP endpoint: ``/metrics``, ``/healthz`` and ``/readyz`` on one port.

A small aiohttp server on the bot's own event loop (aiohttp comes with discord.py), off
unless ``METRICS_PORT`` is set, bound to ``METRICS_HOST`` (127.0.0.1 by default):

- ``/metrics``: the Prometheus text of ``bot/metrics.py``'s registry;
- ``/healthz``: 200 when the event loop answers (this handler runs on it) and the database
  answers a query within ``db_timeout`` seconds, else 503 saying which failed;
- ``/readyz``: 200 once the bot is logged in to Discord (READY) and has claimed every
  guild of its shards, else 503 saying what it waits for.

``watch_interactions`` (always on, metrics or not) tags every interaction from the gateway
with its ids for the logs and notes its arrival, so its answer is timed.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
from typing import TYPE_CHECKING, Any

from aiohttp import web
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

from bot.logs import reset_ids, set_ids
from bot.metrics import METRICS, Metrics, Snapshot

if TYPE_CHECKING:
    from bot.client import PokerBot

log = logging.getLogger(__name__)

#: seconds between two looks at the event loop's lag
LAG_EVERY = 0.5


class EndpointProblem(Exception):
    """The endpoint cannot listen where it was told (the port is taken, say)."""


class Monitor:
    """The endpoint of one bot; ``async with Monitor(bot, host, port):`` serves it."""

    def __init__(
        self,
        bot: PokerBot,
        host: str,
        port: int,
        *,
        metrics: Metrics = METRICS,
        db_timeout: float = 3.0,
        lag_every: float = LAG_EVERY,
    ) -> None:
        self.bot, self.host, self.metrics = bot, host, metrics
        self.port = port  # the bound port once started (port 0 picks a free one)
        self.db_timeout, self.lag_every = db_timeout, lag_every
        self._runner: web.AppRunner | None = None
        self._lag: asyncio.Task[None] | None = None

    async def start(self) -> None:
        app = web.Application()
        app.add_routes(
            [
                web.get("/metrics", self._metrics),
                web.get("/healthz", self._healthz),
                web.get("/readyz", self._readyz),
            ]
        )
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.host, self.port)
        try:
            await site.start()
        except OSError as exc:
            await self._runner.cleanup()
            where = f"{self.host}:{self.port}"
            raise EndpointProblem(
                f"cannot serve metrics and health on {where} (METRICS_HOST, METRICS_PORT): "
                f"{exc.strerror or type(exc).__name__}"
            ) from None
        self.port = self._runner.addresses[0][1]
        self.metrics.watch(self.snapshot)
        self._lag = asyncio.get_running_loop().create_task(self._watch_loop(), name="loop-lag")
        log.debug("metrics and health on http://%s:%d/", self.host, self.port)

    async def close(self) -> None:
        if self._lag is not None:
            self._lag.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._lag
        if self._runner is not None:
            await self._runner.cleanup()
        self.metrics.watch(Snapshot)

    async def __aenter__(self) -> Monitor:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def _watch_loop(self) -> None:
        """Supervise the lag watcher: if it ever fails, log it and start it again."""
        while True:
            try:
                await self.metrics.watch_loop(self.lag_every)
            except Exception:
                log.exception("the event loop's lag watcher failed; starting it again")
                await asyncio.sleep(self.lag_every)

    # ----- what a scrape reads --------------------------------------------------------

    def snapshot(self) -> Snapshot:
        bot = self.bot
        manager = getattr(bot, "manager", None)
        presenter = getattr(bot, "presenter", None)
        store = getattr(bot, "store", None)
        tables = collections.Counter[str]()
        waiting, backlog = 0, 0
        if manager is not None:
            tables.update(t.variant.id for t in (manager.table(c) for c in manager.channels()))
            waiting = len(manager.recovery.waiting)
            backlog += len(manager.outbox.pending())
        if presenter is not None:
            backlog += presenter.backlog()
        return Snapshot(
            tables=dict(tables),
            backlog=backlog,
            guilds_owned=len(store.ownership.guilds) if store is not None else 0,
            guilds_waiting=waiting,
            failed_requests=bot.budget.failures.recent(),
        )

    # ----- the handlers ---------------------------------------------------------------

    async def _metrics(self, request: web.Request) -> web.Response:
        body = generate_latest(self.metrics.registry)
        return web.Response(body=body, headers={"Content-Type": CONTENT_TYPE_LATEST})

    async def _healthz(self, request: web.Request) -> web.Response:
        problem = await self.database_problem()
        if problem is not None:
            return _answer(503, f"unhealthy: {problem}")
        return _answer(200, f"ok: loop lag {self.metrics.last_lag:.3f} s")

    async def database_problem(self) -> str | None:
        """Why the database does not answer now, or None if it does."""
        store = getattr(self.bot, "store", None)
        if store is None:
            return "the database is not open yet"
        try:
            async with asyncio.timeout(self.db_timeout):  # (never wait_for: see ui/sends.timed)
                await store.ping()
        except TimeoutError:
            return f"the database did not answer within {self.db_timeout:g} s"
        except Exception as exc:  # never the message: a URL in it could hold a password
            return f"the database failed ({type(exc).__name__})"
        return None

    async def _readyz(self, request: web.Request) -> web.Response:
        bot = self.bot
        manager = getattr(bot, "manager", None)
        if not bot.is_ready() or manager is None:
            return _answer(503, "not ready: not logged in to Discord yet")
        waiting = len(manager.recovery.waiting)
        if waiting:
            return _answer(503, f"not ready: {waiting} guilds are held by another process")
        return _answer(200, "ready")


def _answer(status: int, text: str) -> web.Response:
    return web.Response(status=status, text=text + "\n")


def watch_interactions(bot: PokerBot, metrics: Metrics = METRICS) -> None:
    """Tag each interaction the gateway delivers: the tasks discord.py starts for it log its
    guild, channel and user ids (``bot/logs.py``), and its answer is timed from now."""
    parsers: dict[str, Any] = bot._connection.parsers
    parse = parsers["INTERACTION_CREATE"]

    def parse_interaction(data: dict[str, Any]) -> None:
        with contextlib.suppress(KeyError, TypeError, ValueError):
            metrics.interaction_arrived(int(data["id"]))
        user = (data.get("member") or {}).get("user") or data.get("user") or {}
        token = set_ids(
            guild_id=_id(data.get("guild_id")),
            channel_id=_id(data.get("channel_id")),
            user_id=_id(user.get("id")),
        )
        try:
            parse(data)  # the tasks it starts copy the ids
        finally:
            reset_ids(token)

    parsers["INTERACTION_CREATE"] = parse_interaction


def _id(value: object) -> int | None:
    try:
        return int(str(value)) if value is not None else None
    except ValueError:
        return None
