"""End-to-end harness that drives the *real* discord.py the way the gateway does.

Nothing here talks to Discord.  The harness

* logs the bot in through ``Client.login`` (so ``_async_setup_hook`` and ``setup_hook`` run exactly
  as in production) with ``bot.http.request`` / ``bot.http.get_from_cdn`` replaced *on the
  instance* by a recorder that answers like the Discord REST API;
* replaces ``AsyncWebhookAdapter.request`` (the path every interaction response, followup and
  ``@original`` edit goes through) with a recorder that answers like Discord, including the
  ``with_response=1`` callback body discord.py uses to learn the response message id;
* feeds READY / GUILD_CREATE / INTERACTION_CREATE payloads into ``bot._connection.parsers``;
* answers each request with ``fakediscord.model.FakeDiscord`` (an in-memory model of every
  message, per channel, with edit history, and Discord's error codes and deadlines) so tests
  can look at the *current* state of e.g. the table message after a few button presses (the
  same model answers over real HTTP in ``fakediscord.server``, see ``fakediscord.remote``);
* turns everything discord.py would only log (``on_error``, ``View.on_error``,
  ``CommandTree.on_error``, unretrieved task exceptions, ERROR records of the ``discord``/project
  loggers), unknown API routes and real network attempts into test failures.

Usage (``fakediscord.poker`` has the poker bot's players, channels and helpers)::

    ALICE, BOB = users(2)
    async with DiscordHarness(make_bot(tmp_path / "p.db"), dms_closed={int(BOB["id"])}) as h:
        await h.connect(GUILD, {TABLE: "poker"}, [ALICE, make_member(BOB, nick="Bobby")])
        await h.slash(ALICE, TABLE, "a5-draw open")
        table = h.messages(TABLE, include_ephemeral=False)[-1]  # the table message
        await h.click(BOB, table, table.custom_id_for("Join"))
        assert "Bobby" in str(h.message(table.id).embeds)

``settle()`` (after every event) waits until each task the bot started is finished or
idle: waiting on an event, a lock or a queue, or sleeping in one of the bot's timers
(``TIMERS``); any other sleep, and Discord answering a request, is work in progress.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import copy
import importlib
import io
import json
import logging
import random
import socket
import sys
import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import aiohttp
import discord
import yarl
from discord import app_commands
from discord.ext import commands
from discord.http import Route
from discord.webhook.async_ import AsyncWebhookAdapter
from multidict import CIMultiDict

from fakediscord.model import (
    APPLICATION_ID,
    BOT_PERMISSIONS,
    BOT_USER,
    DEFAULT_GUILD_ID,
    MEMBER_PERMISSIONS,
    TOKEN,
    FakeDiscord,
    Fault,
    HarnessError,
    Msg,
    Reply,
    Sent,
    Slow,
    make_member,
    make_user,
    users,
)

__all__ = [
    "APPLICATION_ID",
    "BOT_USER",
    "DiscordHarness",
    "Fault",
    "HarnessError",
    "Msg",
    "Reply",
    "Sent",
    "Slow",
    "make_member",
    "make_user",
    "users",
]

API_BASE = Route.BASE
#: the parsed body and files of the REST request discord.py is making in this task
_REQUEST: contextvars.ContextVar[tuple[Any, list[tuple[str, bytes]], Any]] = contextvars.ContextVar(
    "harness_request"
)


class _FakeHTTPResponse:
    """What discord.py reads of an ``aiohttp.ClientResponse``."""

    def __init__(self, status: int, body: Any, headers: Mapping[str, str] | None = None):
        self.status = status
        self.reason = {200: "OK", 204: "No Content", 429: "Too Many Requests"}.get(status, "Error")
        self.headers: CIMultiDict[str] = CIMultiDict(headers or {})
        self._text = "" if body is None else json.dumps(body)
        if body is not None:
            self.headers["content-type"] = "application/json"

    async def text(self, encoding: str = "utf-8") -> str:
        return self._text


class _FakeRequest:
    def __init__(self, harness: DiscordHarness, method: str, url: str, params: Any):
        self.harness, self.method, self.url, self.params = harness, method, url, params

    async def __aenter__(self) -> _FakeHTTPResponse:
        return await _traced(
            self.harness,
            self.method,
            self.url,
            lambda: self.harness._serve_http(self.method, self.url, self.params),
        )

    async def __aexit__(self, *exc: Any) -> None:
        return None


class _FakeSession:
    """Stands in for discord.py's ``aiohttp.ClientSession``: every request discord.py makes,
    including its own retries after a 429 or a 5xx, is answered by the harness."""

    closed = False
    closed_at: float | None = None

    def __init__(self, harness: DiscordHarness):
        self.harness = harness

    def request(self, method: str, url: str, **kwargs: Any) -> _FakeRequest:
        return _FakeRequest(self.harness, method, str(url), kwargs.get("params"))

    async def close(self) -> None:
        self.closed, self.closed_at = True, time.monotonic()


async def _traced(harness: DiscordHarness, method: str, url: str, answer: Any) -> Any:
    """Send aiohttp's request-start and request-end trace signals around ``answer()``, as the
    real session does for the bot's ``http_trace`` (discord.py's ``Client(http_trace=...)``)."""
    trace = getattr(harness.bot.http, "http_trace", None)
    if trace is None:
        return await answer()
    if not trace.on_request_start.frozen:
        trace.freeze()
    tracer = aiohttp.tracing.Trace(harness._session, trace, trace.trace_config_ctx())  # type: ignore[arg-type]
    target = yarl.URL(url)
    await tracer.send_request_start(method, target, CIMultiDict())
    try:
        response = await answer()
    except discord.HTTPException as exc:  # the webhook adapter's answer: an error raised
        status = _FakeHTTPResponse(exc.status, None)
        await tracer.send_request_end(method, target, CIMultiDict(), status)  # type: ignore[arg-type]
        raise
    shown = response if isinstance(response, _FakeHTTPResponse) else _FakeHTTPResponse(200, None)
    await tracer.send_request_end(method, target, CIMultiDict(), shown)  # type: ignore[arg-type]
    return response


# --------------------------------------------------------------------------------------------
# task idleness: what "the bot finished handling this" means
# --------------------------------------------------------------------------------------------


def _idle_codes() -> set[Any]:
    codes = {
        asyncio.tasks.wait_for.__code__,
        asyncio.tasks._wait.__code__,  # type: ignore[attr-defined]
        asyncio.Event.wait.__code__,
        asyncio.Condition.wait.__code__,
        asyncio.Lock.acquire.__code__,
        asyncio.Semaphore.acquire.__code__,
        asyncio.Queue.get.__code__,
        asyncio.Queue.put.__code__,
        asyncio.Queue.join.__code__,
    }
    with contextlib.suppress(AttributeError):
        codes.add(discord.ui.view.BaseView.wait.__code__)
    return codes


_IDLE_CODES = _idle_codes()


def _coro_chain(task: asyncio.Task) -> list[Any]:
    chain = []
    obj: Any = task.get_coro()
    while obj is not None and (hasattr(obj, "cr_frame") or hasattr(obj, "gi_frame")):
        chain.append(obj)
        obj = getattr(obj, "cr_await", None) or getattr(obj, "gi_yieldfrom", None)
    return chain


def _code_of(obj: Any) -> Any:
    return getattr(obj, "cr_code", None) or getattr(obj, "gi_code", None)


_REAL_SLEEP = asyncio.sleep

#: The functions whose ``asyncio.sleep`` is a timer: the bot waiting for time to pass (a
#: turn's, a view's timeout), idle when settling. Every other sleep is part of handling
#: an event (a pause, a back-off, a retry) and is waited for, however short or long.
#: discord.py's, and the poker bot's (by name: it is this project's fake Discord; a name
#: that no longer resolves fails every harness at once). Add a bot's own with ``timers=``.
TIMERS = (
    "discord.ui.view:BaseView._BaseView__timeout_task_impl",  # a view's timeout
    "discord.http:Ratelimit._refresh",  # a rate-limit bucket's reset
    # a supervised loop's wait between passes and its back-off: the look for idle tables,
    # the take-over's retry
    "bot.tables.supervise:forever",
    "bot.tables.timers:Timers._auto_deal",  # the pause before the automatic deal
    "bot.practice.driver:PracticeDriver._move",  # a computer player's human-like pause
    "bot.metrics:Metrics.watch_loop",  # the event loop's lag, measured by sleeping
    "bot.tournaments.mtt_driver:MttDriver._pause",  # a tournament's pause between hands
)


def _resolve(name: str) -> Any:
    module, _, path = name.partition(":")
    found: Any = importlib.import_module(module)
    for part in path.split("."):
        found = getattr(found, part)
    return found


def _code(function: Any) -> Any:
    return getattr(function, "__func__", function).__code__


class _Sleeps:
    """Every ``asyncio.sleep`` in flight while a harness is active, told to the harness by
    the sleep itself: which task sleeps, and whether the sleep is the harness's own
    (Discord taking its time to answer a request: work in progress, however long).
    Installed as ``asyncio.sleep`` for the harness's lifetime, so nothing is read off the
    event loop's internals or a coroutine's locals, on any loop (uvloop too)."""

    def __init__(self) -> None:
        self.sleeping: dict[asyncio.Task[Any], bool] = {}  # task -> the harness's own?

    async def sleep(self, delay: float, result: Any = None, *, own: bool = False) -> Any:
        task = asyncio.current_task()
        if task is None or delay <= 0:
            return await _REAL_SLEEP(delay, result)
        self.sleeping[task] = own
        try:
            return await _REAL_SLEEP(delay, result)
        finally:
            self.sleeping.pop(task, None)


# --------------------------------------------------------------------------------------------
# the harness
# --------------------------------------------------------------------------------------------


class _CollectingHandler(logging.Handler):
    def __init__(self, harness: DiscordHarness):
        super().__init__(level=logging.ERROR)
        self.harness = harness

    def emit(self, record: logging.LogRecord) -> None:
        exc = record.exc_info[1] if record.exc_info else None
        self.harness._record_error(f"logged by {record.name}: {record.getMessage()}", exc)


class _FakeGateway:
    """Stands in for ``bot.ws`` (``DiscordWebSocket``) after READY."""

    def __init__(self, harness: DiscordHarness):
        self._harness = harness
        self.latency = 0.0
        self.open = True  # until the bot closes it
        self.closed_at: float | None = None
        self.shard_id = None

    def is_ratelimited(self) -> bool:
        return False

    async def close(self, code: int = 1000) -> None:
        self.open = False
        self.closed_at = time.monotonic()

    async def change_presence(self, *, activity=None, status=None, since=0.0) -> None:
        self._harness.presence.append({"activity": activity, "status": status})

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        self._harness._record_error(f"bot used unsupported gateway feature ws.{name}")
        raise AttributeError(f"harness gateway does not support {name!r}")


_ACTIVE: list[DiscordHarness] = []


class DiscordHarness(FakeDiscord):
    """Async context manager driving a ``commands.Bot`` without any network.

    Parameters
    ----------
    bot:
        A fresh, never started ``commands.Bot``.
    dms_closed:
        User ids whose DMs are closed (sending to them raises ``Forbidden`` 50007).
    settle_timeout:
        Seconds to wait for the bot to become idle after an event before failing.
    error_loggers:
        Logger names whose ERROR records become test failures.
    timers:
        Functions (besides ``TIMERS``) whose ``asyncio.sleep`` is a timer of the bot's,
        idle when settling. Every other sleep is work and waited for; so is Discord
        answering a request (the harness's latency), however long. While a harness is
        active ``asyncio.sleep`` is the harness's: each sleep tells it who sleeps, and
        nothing is read off the event loop's internals.
    auto_sync:
        If the bot did not sync its command tree during setup, sync it globally once (like a
        deploy step) so that the schema used to build slash payloads exists.
    latency:
        Seconds every request (REST and interaction responses) takes before Discord answers it:
        a number, or ``(low, high)`` for a uniform random delay drawn from ``latency_seed``.
        Discord applies the request when it answers. Change it any time with ``h.latency = ...``.
    faults:
        Injected failures (see ``Fault``); add more any time with ``h.fail(...)``.
    keep_payloads:
        False (for load, e.g. bench/discord.py): requests are not kept (``sent`` stays
        empty; ``sent_log`` has a plain tuple per request), messages without their edit
        history, private answers and DMs as JSON text, and each interaction's answer
        likewise, so the harness adds little to the heap the garbage collector walks in the
        bot's process.

    REST requests go through discord.py's real ``HTTPClient.request`` (its rate-limit buckets,
    429 handling and 5xx retries) with a stand-in for its aiohttp session. The harness sends no
    rate-limit headers, so discord.py keeps one request in flight per bucket.
    """

    def __init__(
        self,
        bot: commands.Bot,
        *,
        dms_closed: Iterable[int] = (),
        settle_timeout: float = 10.0,
        error_loggers: Iterable[str] = ("discord", "bot", "cogs"),
        auto_sync: bool = True,
        timers: Iterable[Callable[..., Any]] = (),
        latency: float | tuple[float, float] = 0.0,
        latency_seed: int = 0,
        faults: Iterable[Fault] = (),
        keep_payloads: bool = True,
    ):
        super().__init__(dms_closed=dms_closed, faults=faults, keep_payloads=keep_payloads)
        self.bot = bot
        self.latency = latency
        self._latency_rng = random.Random(latency_seed)
        self._session = _FakeSession(self)
        self._timer_codes = {_code(_resolve(n)) for n in TIMERS} | {_code(f) for f in timers}
        self.settle_timeout = settle_timeout
        self.auto_sync = auto_sync
        self.error_loggers = tuple(error_loggers)
        self.presence: list[dict[str, Any]] = []
        self._guild_name = "Harness Guild"
        #: the server's preferred locale, and each user's client locale (default en-US)
        self.guild_locale = "en-US"
        self.locales: dict[int, str] = {}
        self._connect_args: tuple | None = None
        self._logged_in = False
        self._tasks: list[asyncio.Task] = []
        self._prune_at = 1000
        self._undo: list[Any] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        self._sleeps = _Sleeps()

    # ---------------------------------------------------------------- context management ----
    async def __aenter__(self) -> DiscordHarness:
        if _ACTIVE:
            raise HarnessError("only one DiscordHarness may be active at a time; use restart()")
        _ACTIVE.append(self)
        self._loop = loop = asyncio.get_running_loop()
        try:
            self._install_task_tracking(loop)
            self._install_network_guard()
            self._install_webhook_recorder()
            self._install_log_capture()
            self._attach(self.bot)
        except BaseException:
            self._uninstall()
            raise
        return self

    async def __aexit__(self, exc_type, exc, tb) -> None:
        try:
            await self._shutdown_bot()
        finally:
            self._uninstall()
        if exc_type is None and self.errors:
            errors, self.errors = self.errors, []
            raise HarnessError("errors were collected during the test", errors=errors)

    def _uninstall(self) -> None:
        while self._undo:
            with contextlib.suppress(Exception):
                self._undo.pop()()
        if self in _ACTIVE:
            _ACTIVE.remove(self)

    def _patch(self, target: Any, name: str, value: Any) -> None:
        had = name in vars(target) if isinstance(target, type) else hasattr(target, name)
        old = getattr(target, name, None)

        def undo() -> None:
            if had:
                setattr(target, name, old)
            else:
                delattr(target, name)

        setattr(target, name, value)
        self._undo.append(undo)

    def _install_task_tracking(self, loop: asyncio.AbstractEventLoop) -> None:
        previous = loop.get_task_factory()
        tasks = self._tasks

        def factory(loop, coro, **kwargs):
            if previous is not None:
                task = previous(loop, coro, **kwargs)
            else:
                task = asyncio.Task(coro, loop=loop, **kwargs)
            tasks.append(task)
            return task

        loop.set_task_factory(factory)
        self._undo.append(lambda: loop.set_task_factory(previous))
        self._patch(asyncio, "sleep", self._sleeps.sleep)  # every sleep says when it ends

        old_handler = loop.get_exception_handler()

        def handler(loop, context):
            self._record_error(f"asyncio: {context.get('message')}", context.get("exception"))

        loop.set_exception_handler(handler)
        self._undo.append(lambda: loop.set_exception_handler(old_handler))

    def _install_network_guard(self) -> None:
        harness = self

        def refuse(what: str) -> HarnessError:
            err = HarnessError(f"real network attempt blocked: {what}")
            harness._record_error(str(err))
            return err

        async def session_request(session, method, url, *args, **kwargs):
            raise refuse(f"aiohttp {method} {url}")

        async def create_connection(loop, *args, **kwargs):
            raise refuse(f"loop.create_connection{args[1:3]!r}")

        real_connect = socket.socket.connect
        real_connect_ex = socket.socket.connect_ex

        def connect(sock, address):
            if sock.family in (socket.AF_INET, socket.AF_INET6):
                raise refuse(f"socket.connect({address!r})")
            return real_connect(sock, address)

        def connect_ex(sock, address):
            if sock.family in (socket.AF_INET, socket.AF_INET6):
                raise refuse(f"socket.connect_ex({address!r})")
            return real_connect_ex(sock, address)

        self._patch(aiohttp.ClientSession, "_request", session_request)
        self._patch(asyncio.BaseEventLoop, "create_connection", create_connection)
        self._patch(socket.socket, "connect", connect)
        self._patch(socket.socket, "connect_ex", connect_ex)

    def _install_webhook_recorder(self) -> None:
        harness = self

        async def request(adapter, route, session=None, *, payload=None, multipart=None,
                          files=None, params=None, **_):  # fmt: skip
            return await harness._webhook_request(route, payload, multipart, files, params)

        self._patch(AsyncWebhookAdapter, "request", request)

    def _install_log_capture(self) -> None:
        handler = _CollectingHandler(self)
        for name in self.error_loggers:
            logger = logging.getLogger(name)
            logger.addHandler(handler)
            self._undo.append(lambda logger=logger: logger.removeHandler(handler))

    # ------------------------------------------------------------------------- errors ----
    # ----------------------------------------------------------------------- bot setup ----
    def _attach(self, bot: commands.Bot) -> None:
        self.bot = bot
        self._logged_in = False
        http = bot.http
        http.token = TOKEN
        http.request = self._http_request  # type: ignore[method-assign]
        http.get_from_cdn = self._get_from_cdn  # type: ignore[method-assign]

        original_on_error = bot.on_error
        harness = self

        async def on_error(event_method: str, /, *args: Any, **kwargs: Any) -> None:
            harness._record_error(f"exception in event {event_method!r}", sys.exc_info()[1])
            await original_on_error(event_method, *args, **kwargs)

        bot.on_error = on_error  # type: ignore[method-assign]

    def _wrap_tree_on_error(self) -> None:
        tree = self.bot.tree
        original = tree.on_error
        harness = self
        bugs = (
            app_commands.CommandInvokeError,
            app_commands.CommandNotFound,
            app_commands.CommandSignatureMismatch,
        )

        async def on_error(interaction: discord.Interaction, error: Exception, /) -> None:
            if isinstance(error, bugs) or not isinstance(error, app_commands.AppCommandError):
                name = interaction.command.qualified_name if interaction.command else "?"
                harness._record_error(f"exception in app command {name!r}", error)
            await original(interaction, error)

        tree.on_error = on_error  # type: ignore[method-assign]

    async def _login(self) -> None:
        # Client.login: _async_setup_hook, static_login (GET /users/@me), application_info,
        # setup_hook -- all real, with requests answered by the recorder.
        await self.bot.login(TOKEN)
        if self.auto_sync and not self.synced:
            await self.bot.tree.sync()
        self._wrap_tree_on_error()
        self._logged_in = True

    async def connect(
        self,
        guild_id: int = DEFAULT_GUILD_ID,
        channel_ids: Iterable[int] | Mapping[int, str] = (),
        members: Iterable[Mapping[str, Any]] = (),
        *,
        guild_name: str = "Harness Guild",
        preferred_locale: str = "en-US",
    ) -> None:
        """Log in (running ``setup_hook``), then feed READY + GUILD_CREATE and wait for ready."""
        self.guild_locale = preferred_locale
        channel_ids = (
            dict(channel_ids)
            if isinstance(channel_ids, Mapping)
            else {int(c): f"channel-{i}" for i, c in enumerate(channel_ids)}
        )
        members = [dict(m) for m in members]
        self._connect_args = (guild_id, channel_ids, members, guild_name)
        self._guild_id = int(guild_id)
        self._guild_name = guild_name
        for i, (cid, name) in enumerate(channel_ids.items()):
            self._channels[int(cid)] = {
                "id": str(cid),
                "type": 0,
                "guild_id": str(guild_id),
                "name": name,
                "position": i,
                "permission_overwrites": [],
                "nsfw": False,
                "topic": None,
                "parent_id": None,
                "rate_limit_per_user": 0,
                "last_message_id": None,
            }
            self._channel_msgs.setdefault(int(cid), [])
        for m in members:
            self.add_member(m)

        if not self._logged_in:
            await self._login()

        bot = self.bot
        state = bot._connection
        state.guild_ready_timeout = min(state.guild_ready_timeout, 0.05)
        bot.ws = _FakeGateway(self)  # type: ignore[assignment]
        state.parsers["READY"](self._ready_payload())
        state.parsers["GUILD_CREATE"](self._guild_payload())
        try:
            await asyncio.wait_for(bot.wait_until_ready(), timeout=self.settle_timeout)
        except TimeoutError as e:
            raise HarnessError("bot never became ready") from e
        await self.settle()
        self._raise_errors("connect")

    async def restart(self, new_bot: commands.Bot) -> None:
        """Close the current bot and bring ``new_bot`` up against the same Discord state.

        Stored messages survive, so persistent views registered by the new bot's ``setup_hook``
        receive clicks on messages sent by the old one.
        """
        await self._shutdown_bot()
        self._attach(new_bot)
        if self._connect_args is not None:
            guild_id, channels, members, name = self._connect_args
            await self.connect(
                guild_id, channels, members, guild_name=name, preferred_locale=self.guild_locale
            )

    async def _shutdown_bot(self) -> None:
        bot = self.bot
        with contextlib.suppress(Exception):
            await bot.close()
        current = asyncio.current_task()
        leftovers = [t for t in self._tasks if not t.done() and t is not current]
        leftovers = [t for t in leftovers if not self._is_harness_task(t)]
        for t in leftovers:
            t.cancel()
        if leftovers:
            await asyncio.wait(leftovers, timeout=5)
        self._check_task_exceptions()
        self._tasks[:] = [t for t in self._tasks if not t.done()]

    def set_locale(self, user: Mapping[str, Any] | int, locale: str) -> None:
        """The language of this user's Discord client, sent with their interactions."""
        self.locales[self._uid(user)] = locale

    # ------------------------------------------------------------------------ threads ----
    def _dispatch_gateway(self, event: str, data: dict[str, Any]) -> None:
        self.bot._connection.parsers[event](copy.deepcopy(data))

    async def add_thread(self, parent_id: int, name: str, owner: Mapping[str, Any] | int) -> int:
        """A public thread someone created in ``parent_id`` (THREAD_CREATE reaches the bot)."""
        thread = self._thread(parent_id, name, self._uid(owner))
        self._dispatch_gateway("THREAD_CREATE", thread | {"newly_created": True})
        await self.settle()
        self._raise_errors("creating a thread")
        return int(thread["id"])

    def threads(self, parent_id: int) -> list[dict[str, Any]]:
        """Threads (live or archived) of a channel, oldest first."""
        return [
            dict(c)
            for c in self._channels.values()
            if c["type"] == 11 and int(c["parent_id"]) == int(parent_id)
        ]

    async def archive_thread(self, thread_id: int, *, bot_down: bool = False) -> None:
        """Archive a thread (as a moderator or Discord's inactivity timer does): THREAD_UPDATE.
        ``bot_down``: while the bot is not connected, so no event reaches it."""
        thread = self._channels[int(thread_id)]
        thread["thread_metadata"] |= {"archived": True, "archive_timestamp": self._now()}
        if bot_down:
            return
        self._dispatch_gateway("THREAD_UPDATE", thread)
        await self.settle()
        self._raise_errors("archiving a thread")

    async def delete_thread(self, thread_id: int) -> None:
        """Delete a thread and its messages: THREAD_DELETE (id, guild, parent and type only)."""
        thread = self._channels.pop(int(thread_id))
        for mid in self._channel_msgs.get(int(thread_id), []):
            msg = self.message(mid)
            msg.deleted = True
            self._keep(msg)
        keys = ("id", "guild_id", "parent_id", "type")
        self._dispatch_gateway("THREAD_DELETE", {k: thread[k] for k in keys})
        await self.settle()
        self._raise_errors("deleting a thread")

    async def delete_channel(self, channel_id: int) -> None:
        """Delete a text channel and its messages: CHANNEL_DELETE."""
        channel = self._channels.pop(int(channel_id))
        for mid in self._channel_msgs.get(int(channel_id), []):
            msg = self.message(mid)
            msg.deleted = True
            self._keep(msg)
        self._dispatch_gateway("CHANNEL_DELETE", channel)
        await self.settle()
        self._raise_errors("deleting a channel")

    async def remove_bot_from_guild(self) -> None:
        """The server removes (kicks) the bot: GUILD_DELETE."""
        self._dispatch_gateway("GUILD_DELETE", {"id": str(self._guild_id)})
        await self.settle()
        self._raise_errors("removing the bot")

    # ---------------------------------------------------------------- gateway payloads ----
    def _ready_payload(self) -> dict[str, Any]:
        return {
            "v": 10,
            "user": dict(BOT_USER),
            "guilds": [{"id": str(self._guild_id), "unavailable": True}],
            "session_id": "harness-session",
            "resume_gateway_url": "wss://gateway.invalid",
            "application": {"id": str(APPLICATION_ID), "flags": 0},
            "user_settings": {},
            "relationships": [],
            "private_channels": [],
            "presences": [],
            "guild_join_requests": [],
            "geo_ordered_rtc_regions": [],
            "_trace": ["harness"],
        }

    def _bot_member(self) -> dict[str, Any]:
        return make_member(BOT_USER)

    def _guild_payload(self) -> dict[str, Any]:
        gid = self._guild_id
        members = [self._public_member(m) for m in self._members.values()]
        members.append(self._bot_member())
        return {
            "id": str(gid),
            "name": self._guild_name,
            "icon": None,
            "owner_id": str(next(iter(self._members), APPLICATION_ID)),
            "unavailable": False,
            "large": False,
            "member_count": len(members),
            "joined_at": "2024-01-01T00:00:00.000000+00:00",
            "roles": [
                {
                    "id": str(gid),
                    "name": "@everyone",
                    "permissions": str(MEMBER_PERMISSIONS.value),
                    "position": 0,
                    "color": 0,
                    "hoist": False,
                    "managed": False,
                    "mentionable": False,
                    "flags": 0,
                },
                *(dict(r) for r in self._roles.values()),
            ],
            "channels": [dict(c) for c in self._channels.values() if c["type"] == 0],
            "members": members,
            # the active threads, as Discord sends them (a restarted bot knows its threads)
            "threads": [
                dict(c)
                for c in self._channels.values()
                if c["type"] == 11 and not c["thread_metadata"]["archived"]
            ],
            "voice_states": [],
            "presences": [],
            "emojis": [],
            "stickers": [],
            "features": [],
            "preferred_locale": self.guild_locale,
            "verification_level": 0,
            "default_message_notifications": 0,
            "explicit_content_filter": 0,
            "mfa_level": 0,
            "nsfw_level": 0,
            "premium_tier": 0,
            "system_channel_flags": 0,
        }

    # ---------------------------------------------------------------------- snowflakes ----
    # ------------------------------------------------------------------ public lookups ----
    # ------------------------------------------------------------------- interactions ----
    def _interaction_payload(
        self,
        itype: int,
        user: Mapping[str, Any] | int,
        channel_id: int,
        data: dict[str, Any],
        message: Msg | None = None,
    ) -> tuple[dict[str, Any], Reply]:
        uid = self._uid(user)
        channel_id = int(channel_id)
        channel = self._channels.get(channel_id)
        if channel is None:
            raise HarnessError(f"unknown channel {channel_id}; pass it to connect()")
        iid = self._snowflake()
        token = f"interactiontoken{iid}"
        payload: dict[str, Any] = {
            "id": str(iid),
            "application_id": str(APPLICATION_ID),
            "type": itype,
            "data": data,
            "token": token,
            "version": 1,
            "locale": self.locales.get(uid, "en-US"),
            "app_permissions": str(BOT_PERMISSIONS.value),
            "entitlements": [],
            "entitlement_sku_ids": [],
            "attachment_size_limit": 10 * 1024 * 1024,
            "channel_id": str(channel_id),
        }
        guild_id = int(channel["guild_id"]) if channel.get("guild_id") else None
        if guild_id is not None:
            payload["guild_id"] = str(guild_id)
            payload["guild_locale"] = self.guild_locale
            payload["guild"] = {"id": str(guild_id), "locale": self.guild_locale, "features": []}
            payload["member"] = self._member_payload(uid)
            payload["context"] = 0
            payload["authorizing_integration_owners"] = {"0": str(guild_id)}
            if channel["type"] == 11:
                # as Discord sends a thread: what discord.py reads when it is not cached
                keys: tuple[str, ...] = ("id", "type", "guild_id", "name", "parent_id", "owner_id",
                                         "message_count", "member_count", "rate_limit_per_user",
                                         "last_message_id")  # fmt: skip
                extra = {"thread_metadata": dict(channel["thread_metadata"])}
            else:
                keys, extra = ("id", "type", "guild_id", "name", "position", "nsfw"), {}
            payload["channel"] = (
                {k: channel[k] for k in keys}
                | extra
                | {"permissions": payload["member"]["permissions"], "flags": 0}
            )
        else:
            payload["user"] = self._user_payload(uid)
            payload["context"] = 1
            payload["authorizing_integration_owners"] = {"0": "0"}
            payload["channel"] = {
                "id": str(channel_id),
                "type": 1,
                "flags": 0,
                "recipients": [self._user_payload(channel["recipient"])],
            }
        if message is not None:
            payload["message"] = message.as_discord()
        reply = Reply(
            self,
            interaction_id=iid,
            token=token,
            kind=itype,
            user_id=uid,
            channel_id=channel_id,
            guild_id=guild_id,
            component_message_id=message.id if message is not None else None,
        )
        return payload, reply

    async def _dispatch(
        self, payload: dict[str, Any], reply: Reply, expect_response: bool
    ) -> Reply:
        start = len(self.sent)
        try:
            self._dispatch_now(payload, reply)
            await self.settle()
        finally:
            reply = self.reply_for(reply.token)
            reply.sent = self.sent[start:]
        self._raise_errors("handling interaction", reply)
        if expect_response and reply.callback_type is None:
            raise HarnessError(
                "the bot never acknowledged the interaction "
                "(Discord would show 'This interaction failed')",
                reply=reply,
            )
        return reply

    def _dispatch_now(self, payload: dict[str, Any], reply: Reply) -> Reply:
        """Hand the interaction to the gateway parser (the bot's handlers start as tasks)."""
        self._raise_errors("before dispatch")
        reply.dispatched_at = time.monotonic()
        self._keep_reply(reply)
        self.bot._connection.parsers["INTERACTION_CREATE"](payload)
        return reply

    def _forget_done_tasks(self) -> None:
        """Without settling, keep the tracked task list short (and still report crashes)."""
        if len(self._tasks) > self._prune_at:
            self._check_task_exceptions()
            self._tasks[:] = [t for t in self._tasks if not t.done()]
            self._prune_at = max(1000, 2 * len(self._tasks))

    def send_slash(
        self, user: Mapping[str, Any] | int, channel_id: int, command: str, /, **options: Any
    ) -> Reply:
        """Like ``slash``, but return the moment the bot has the interaction, without waiting
        for it to settle: for load, with many interactions in flight at once. The answer
        lands on the Reply later (``callback_type``, ``ack_latency``, ``message``); bot errors
        are collected as usual and raised by the next dispatch or ``settle``."""
        data = self._command_data(channel_id, command, options, focused=None)
        payload, reply = self._interaction_payload(2, user, channel_id, data)
        self._forget_done_tasks()
        return self._dispatch_now(payload, reply)

    def send_click(
        self, user: Mapping[str, Any] | int, message: Msg | Reply | int, custom_id: str
    ) -> Reply:
        """Like ``click``, without waiting for the bot to settle (see ``send_slash``)."""
        payload, reply = self._click_payload(user, message, custom_id)
        self._forget_done_tasks()
        return self._dispatch_now(payload, reply)

    def _raise_errors(self, when: str, reply: Reply | None = None) -> None:
        if self.errors:
            errors, self.errors = self.errors, []
            raise HarnessError(f"bot errors while {when}", errors=errors, reply=reply)

    async def slash(
        self,
        user: Mapping[str, Any] | int,
        channel_id: int,
        command: str,
        /,
        **options: Any,
    ) -> Reply:
        """Invoke ``/command`` (e.g. ``"a5-draw join"``) with typed options, like a user would."""
        data = self._command_data(channel_id, command, options, focused=None)
        payload, reply = self._interaction_payload(2, user, channel_id, data)
        return await self._dispatch(payload, reply, expect_response=True)

    async def autocomplete(
        self,
        user: Mapping[str, Any] | int,
        channel_id: int,
        command: str,
        focused_option: str,
        value: Any,
        /,
        **other_options: Any,
    ) -> list[dict[str, Any]]:
        """Type into ``focused_option`` and return the choices the bot offers."""
        options = dict(other_options)
        options[focused_option] = value
        data = self._command_data(channel_id, command, options, focused=focused_option)
        payload, reply = self._interaction_payload(4, user, channel_id, data)
        await self._dispatch(payload, reply, expect_response=True)
        if reply.callback_type != 8:
            raise HarnessError(f"autocomplete answered with callback type {reply.callback_type}")
        return list(reply.choices or [])

    def _message_arg(self, message: Msg | Reply | int) -> Msg:
        if isinstance(message, Reply):
            if message.message is None:
                raise HarnessError(f"{message!r} has no message")
            return message.message
        if isinstance(message, Msg):
            return self.message(message.id)
        return self.message(int(message))

    def _component_check(self, uid: int, msg: Msg, custom_id: str, ctype: int) -> dict:
        if msg.deleted:
            raise HarnessError(f"message {msg.id} was deleted")
        if msg.visible_to is not None and msg.visible_to != uid:
            raise HarnessError(f"user {uid} cannot see ephemeral message {msg.id}")
        comp = msg.component(custom_id)
        if comp is None:
            raise HarnessError(
                f"custom_id {custom_id!r} is not on message {msg.id}; it has {msg.custom_ids()}"
            )
        if comp.get("type") != ctype:
            raise HarnessError(f"component {custom_id!r} has type {comp.get('type')}, not {ctype}")
        if comp.get("disabled"):
            raise HarnessError(f"component {custom_id!r} is disabled and cannot be used")
        return comp

    async def click(
        self,
        user: Mapping[str, Any] | int,
        message: Msg | Reply | int,
        custom_id: str,
        *,
        expect_response: bool = True,
    ) -> Reply:
        """Press the button ``custom_id`` on the stored message."""
        payload, reply = self._click_payload(user, message, custom_id)
        return await self._dispatch(payload, reply, expect_response)

    async def stale_click(
        self, user: Mapping[str, Any] | int, message: Msg | Reply | int, custom_id: str
    ) -> Reply:
        """Press a button the stored message no longer has, as a client still showing
        its old components does: Discord delivers the click with the old custom_id."""
        uid = self._uid(user)
        msg = self._message_arg(message)
        if msg.component(custom_id) is not None:
            raise HarnessError(f"custom_id {custom_id!r} is still on message {msg.id}: click it")
        data = {"custom_id": custom_id, "component_type": 2}
        payload, reply = self._interaction_payload(3, uid, msg.channel_id, data, message=msg)
        return await self._dispatch(payload, reply, True)

    def _click_payload(
        self, user: Mapping[str, Any] | int, message: Msg | Reply | int, custom_id: str
    ) -> tuple[dict[str, Any], Reply]:
        uid = self._uid(user)
        msg = self._message_arg(message)
        self._component_check(uid, msg, custom_id, 2)
        data = {"custom_id": custom_id, "component_type": 2}
        return self._interaction_payload(3, uid, msg.channel_id, data, message=msg)

    async def select(
        self,
        user: Mapping[str, Any] | int,
        message: Msg | Reply | int,
        custom_id: str,
        values: Iterable[str],
        *,
        expect_response: bool = True,
    ) -> Reply:
        """Choose ``values`` in the string select ``custom_id`` on the stored message."""
        uid = self._uid(user)
        msg = self._message_arg(message)
        comp = self._component_check(uid, msg, custom_id, 3)
        values = [str(v) for v in values]
        allowed = [str(o["value"]) for o in comp.get("options") or []]
        if bad := [v for v in values if v not in allowed]:
            raise HarnessError(f"values {bad} not among options {allowed} of {custom_id!r}")
        lo, hi = comp.get("min_values", 1), comp.get("max_values", 1)
        if not lo <= len(values) <= hi:
            raise HarnessError(f"select {custom_id!r} needs {lo}..{hi} values, got {len(values)}")
        data = {"custom_id": custom_id, "component_type": 3, "values": values}
        payload, reply = self._interaction_payload(3, uid, msg.channel_id, data, message=msg)
        return await self._dispatch(payload, reply, expect_response)

    # ------------------------------------------------------- command payload from schema ----
    def _command_data(
        self, channel_id: int, command: str, options: dict[str, Any], focused: str | None
    ) -> dict[str, Any]:
        parts = command.split()
        if not parts:
            raise HarnessError("empty command")
        channel = self._channels.get(int(channel_id)) or {}
        guild_id = int(channel["guild_id"]) if channel.get("guild_id") else None
        found = None
        for scope in ([guild_id] if guild_id is not None else []) + [None]:
            for cmd, with_id in zip(
                self.synced.get(scope, []), self._synced_ids.get(scope, []), strict=True
            ):
                if cmd["name"] == parts[0] and cmd.get("type", 1) == 1:
                    found = (scope, cmd, with_id)
                    break
            if found:
                break
        if found is None:
            names = [c["name"] for c in self.command_schema(guild_id)]
            raise HarnessError(f"/{parts[0]} was not synced; synced commands: {names}")
        scope, cmd, with_id = found

        node = cmd
        resolved: dict[str, dict[str, Any]] = {}
        # walk subcommand groups / subcommands
        path_nodes = []
        for part in parts[1:]:
            subs = [o for o in node.get("options") or [] if o.get("type") in (1, 2)]
            nxt = next((o for o in subs if o["name"] == part), None)
            if nxt is None:
                raise HarnessError(
                    f"/{command}: {part!r} is not a subcommand of {node['name']!r}; "
                    f"have {[o['name'] for o in subs]}"
                )
            path_nodes.append(nxt)
            node = nxt
        if any(o.get("type") in (1, 2) for o in node.get("options") or []):
            raise HarnessError(f"/{command} is a group; name a subcommand")
        leaf_options = self._leaf_options(node, options, focused, resolved, guild_id)
        nested: list[dict[str, Any]] = leaf_options
        for sub in reversed(path_nodes):
            nested = [{"type": sub["type"], "name": sub["name"], "options": nested}]
        data: dict[str, Any] = {
            "id": with_id["id"],
            "name": cmd["name"],
            "type": 1,
            "options": nested,
        }
        if scope is not None:
            data["guild_id"] = str(scope)
        if resolved:
            data["resolved"] = resolved
        return data

    def _leaf_options(
        self,
        node: Mapping[str, Any],
        given: dict[str, Any],
        focused: str | None,
        resolved: dict[str, dict[str, Any]],
        guild_id: int | None,
    ) -> list[dict[str, Any]]:
        declared = [o for o in node.get("options") or [] if o.get("type") not in (1, 2)]
        by_name = {o["name"]: o for o in declared}
        unknown = sorted(set(given) - set(by_name))
        if unknown:
            raise HarnessError(
                f"option(s) {unknown} are not declared by /{node['name']}; "
                f"declared: {sorted(by_name)}"
            )
        if focused is None:
            missing = [o["name"] for o in declared if o.get("required") and o["name"] not in given]
            if missing:
                raise HarnessError(f"/{node['name']}: missing required option(s) {missing}")
        out = []
        for opt in declared:
            if opt["name"] not in given:
                continue
            value = given[opt["name"]]
            if opt["name"] == focused:
                if not opt.get("autocomplete"):
                    raise HarnessError(f"option {opt['name']!r} has no autocomplete")
                out.append({"type": opt["type"], "name": opt["name"], "value": str(value),
                            "focused": True})  # fmt: skip
                continue
            out.append(
                {
                    "type": opt["type"],
                    "name": opt["name"],
                    "value": self._encode_option(opt, value, resolved, guild_id),
                }
            )
        return out

    def _encode_option(
        self,
        opt: Mapping[str, Any],
        value: Any,
        resolved: dict[str, dict[str, Any]],
        guild_id: int | None,
    ) -> Any:
        t, name = opt["type"], opt["name"]

        def bad(why: str) -> HarnessError:
            return HarnessError(f"option {name!r} (type {t}): {why}; got {value!r}")

        if t == 3:
            if not isinstance(value, str):
                raise bad("expected str")
            if not opt.get("min_length", 0) <= len(value) <= opt.get("max_length", 6000):
                raise bad("length out of range")
        elif t == 4:
            if isinstance(value, bool) or not isinstance(value, int):
                raise bad("expected int")
        elif t == 10:
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise bad("expected number")
        elif t == 5:
            if not isinstance(value, bool):
                raise bad("expected bool")
        elif t in (6, 9):
            uid = self._uid(value)
            user = self._user_payload(uid)
            resolved.setdefault("users", {})[str(uid)] = user
            if guild_id is not None and uid in self._members:
                member = self._member_payload(uid, with_user=False)
                resolved.setdefault("members", {})[str(uid)] = member
            return str(uid)
        elif t == 7:
            cid = int(value)
            ch = self._channels.get(cid)
            if ch is None:
                raise bad("unknown channel")
            resolved.setdefault("channels", {})[str(cid)] = {
                "id": str(cid),
                "type": ch["type"],
                "name": ch.get("name"),
                "permissions": str(MEMBER_PERMISSIONS.value),
            }
            return str(cid)
        elif t == 8:
            rid = int(value["id"]) if isinstance(value, Mapping) else int(value)
            role = self._roles.get(rid)
            if role is None:
                raise bad("unknown role; add_role() it first")
            resolved.setdefault("roles", {})[str(rid)] = dict(role)
            return str(rid)
        else:
            raise bad("option type not supported by the harness")
        if t in (4, 10):
            if "min_value" in opt and value < opt["min_value"]:
                raise bad(f"below min_value {opt['min_value']}")
            if "max_value" in opt and value > opt["max_value"]:
                raise bad(f"above max_value {opt['max_value']}")
        if opt.get("choices") and value not in [c["value"] for c in opt["choices"]]:
            raise bad(f"not one of the choices {[c['value'] for c in opt['choices']]}")
        return value

    # ------------------------------------------------------------------------ settling ----
    def _is_harness_task(self, task: asyncio.Task) -> bool:
        """A task driving the harness (e.g. ``gather(h.slash(...), h.slash(...))``)."""
        chain = _coro_chain(task)
        if not chain:
            return False
        outer = _code_of(chain[0])
        if outer is not None and outer.co_filename == __file__:
            return True
        return any(_code_of(obj) is DiscordHarness.settle.__code__ for obj in chain)

    def _is_idle(self, task: asyncio.Task) -> bool:
        chain = _coro_chain(task)
        own = self._sleeps.sleeping.get(task)
        if own is not None:
            if own:  # Discord is answering one of the bot's requests: work in progress
                return False
            # a timer of the bot's is idle; any other sleep is work, and waited for
            codes = [_code_of(c) for c in chain]
            at = codes.index(_Sleeps.sleep.__code__) if _Sleeps.sleep.__code__ in codes else 0
            return at > 0 and codes[at - 1] in self._timer_codes
        return bool(chain) and _code_of(chain[-1]) in _IDLE_CODES

    def _busy_tasks(self) -> list[asyncio.Task]:
        current = asyncio.current_task()
        busy = []
        for t in self._tasks:
            if t.done() or t is current or self._is_harness_task(t):
                continue
            if not self._is_idle(t):
                busy.append(t)
        return busy

    def _check_task_exceptions(self) -> None:
        for t in self._tasks:
            if t.done() and not t.cancelled() and getattr(t, "_log_traceback", False):
                exc = t.exception()  # marks it retrieved
                self._record_error(f"unhandled exception in task {t.get_name()!r}", exc)

    async def settle(self, timeout: float | None = None) -> None:
        """Run the loop until every task the bot started is finished or idle.

        Idle = sleeping in one of the bot's timers (``TIMERS``, ``timers=``), or waiting
        on an asyncio Event/Queue/Lock/Condition, ``wait_for`` or ``View.wait``. Anything
        else (any other sleep, a request Discord is answering, thread/executor work) is
        waited for, up to ``timeout`` seconds.
        """
        loop = asyncio.get_running_loop()
        deadline = loop.time() + (self.settle_timeout if timeout is None else timeout)
        quiet = 0
        while True:
            busy = self._busy_tasks()
            if not busy:
                quiet += 1
                if quiet >= 3:
                    break
                await asyncio.sleep(0)
                continue
            quiet = 0
            if loop.time() > deadline:
                stacks = []
                for t in busy:
                    buf = io.StringIO()
                    t.print_stack(file=buf)
                    stacks.append(f"{t!r}\n{buf.getvalue()}")
                raise HarnessError("bot still busy after settle timeout", errors=stacks)
            await asyncio.wait(busy, timeout=0.02, return_when=asyncio.FIRST_COMPLETED)
        self._check_task_exceptions()
        self._tasks[:] = [t for t in self._tasks if not t.done()]

    # -------------------------------------------------------------- recording helpers ----
    @staticmethod
    def _read_files(files: Iterable[discord.File] | None) -> list[tuple[str, bytes]]:
        out = []
        for f in files or ():
            f.reset(seek=True)
            data = f.fp.read()
            f.reset(seek=True)
            out.append((f.filename, data))
        return out

    @staticmethod
    def _body(payload: Any, form: Iterable[Mapping[str, Any]] | None) -> Any:
        if form:
            for part in form:
                if part.get("name") == "payload_json":
                    return json.loads(part["value"])
        return payload

    # ------------------------------------------------------------------ REST recorder ----
    async def _http_request(
        self,
        route: Route,
        *,
        files: Iterable[discord.File] | None = None,
        form: Iterable[Mapping[str, Any]] | None = None,
        **kwargs: Any,
    ) -> Any:
        http = self.bot.http
        real = getattr(http, "_HTTPClient__session", None)
        if real is not self._session:
            if isinstance(real, aiohttp.ClientSession):
                await real.close()  # created by static_login; it never connected
            http._HTTPClient__session = self._session  # type: ignore[attr-defined]
        body = self._body(kwargs.get("json"), form)
        _REQUEST.set((body, self._read_files(files), kwargs.get("params")))
        return await discord.http.HTTPClient.request(http, route, files=files, form=form, **kwargs)

    async def _serve_http(self, method: str, url: str, params: Any) -> _FakeHTTPResponse:
        """One attempt of a REST request, as discord.py's session would make it."""
        path = url[len(API_BASE) :]
        body, files, _ = _REQUEST.get((None, [], None))
        sent = self._record("http", method, path, body, files, params)
        await self._delay()
        await self._slowed(sent)
        answer = self.answer(sent, body)
        return _FakeHTTPResponse(answer.status, answer.body, answer.headers)

    async def _delay(self) -> None:
        latency = self.latency
        if isinstance(latency, tuple):
            latency = self._latency_rng.uniform(*latency)
        # a real request always yields to the loop; the harness counts it as work
        await self._sleeps.sleep(latency, own=True)

    async def _slowed(self, sent: Sent) -> None:
        """The delay injected for this request (``slow``), if any."""
        slow = next((s for s in self.slows if s.matches(sent.method, sent.path)), None)
        if slow is not None:
            slow.hits += 1
            await self._sleeps.sleep(slow.seconds, own=True)  # work in progress, not a timer

    async def _answered(self, sent: Sent, answer: Callable[[], Any]) -> Any:
        """Answer a recorded request like Discord, keeping the answer or error on it."""
        await self._delay()
        await self._slowed(sent)
        sent.done_at = time.monotonic()
        try:
            result = answer()
        except BaseException as e:
            sent.error = e
            raise
        if self.keep_payloads:
            sent.response = copy.deepcopy(result)
        return result

    async def _get_from_cdn(self, url: str) -> bytes:
        self._record("http", "GET", url, None, [], None)
        await asyncio.sleep(0)
        data = self.cdn(url)
        if data is not None:
            return data
        err = HarnessError(f"harness has no CDN asset for {url}")
        self._record_error(str(err))
        raise err

    # ------------------------------------------------- reads that never block the loop ----
    # (the same calls as for the out-of-process fake, ``fakediscord.remote``, where they are
    # requests to its control API)
    async def fetch_message(self, message_id: int) -> Msg:
        return self.message(message_id)

    async def fetch_reply(self, token: str) -> Reply:
        return self.reply_for(token)

    async def fetch_replies(self, tokens: Iterable[str]) -> list[Reply]:
        return [self.reply_for(t) for t in tokens]

    async def fetch_log(self, since: int = 0) -> list[tuple[str, str, str, float, int]]:
        """(transport, method, path, time, status) of every request since the ``since``-th
        (the status is not kept here: 0)."""
        if self.keep_payloads:
            return [(s.transport, s.method, s.path, s.at, 0) for s in self.sent[since:]]
        return [(*entry, 0) for entry in self.sent_log[since:]]

    async def limits(self) -> dict[str, Any]:
        """No rate limits in process: the harness answers no 429 of its own."""
        return {"counts": {}, "peak": 0, "log": self.requests}

    # --------------------------------------------------------------- webhook recorder ----
    async def _webhook_request(self, route, payload, multipart, files, params) -> Any:
        path = route.url[len(API_BASE) :]
        body = self._body(payload, multipart)
        token = route.webhook_token
        sent = self._record(
            "webhook", route.method, path, body, self._read_files(files), params, token=token
        )
        return await _traced(
            self,
            route.method,
            route.url,
            lambda: self._answered(
                sent, lambda: self._answer_webhook(sent, route.method, path, body)
            ),
        )
