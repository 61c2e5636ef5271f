"""Run the bot: read the settings, check the database, then serve Discord until a stop signal.

Start-up checks the database before anything touches the network, so a bad file is
reported as what it is. From the first moment of the event loop, SIGTERM (``docker stop``)
and SIGINT (Ctrl-C) are the loop's: before the bot exists (the database check and the
migration) a signal cancels start-up at once; after, it closes the bot in order. Either
way the process exits 0. (Before the loop runs, bot/__main__.py has them.)
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from pathlib import Path
from typing import Any

import aiohttp
import discord

from bot import logs
from bot.client import PokerBot, make_bot
from bot.heap import freeze_heap
from bot.monitor import EndpointProblem, Monitor, watch_interactions
from bot.settings import Settings, SettingsError, load_settings
from bot.storage.backend import open_connection
from bot.storage.postgres import is_postgres_url
from bot.storage.sqlite import DatabaseProblem

log = logging.getLogger("bot")

STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)
# discord.py's lines that tell an operator of this bot nothing: it never joins a voice
# channel, and the login is followed at once by the gateway's line or by our error line.
DISCORD_NOISE = frozenset(
    {
        "PyNaCl is not installed, voice will NOT be supported",
        "davey is not installed, voice will NOT be supported",
        "logging in using static token",
    }
)

Closer = Callable[[], Awaitable[None]]


def _not_noise(record: logging.LogRecord) -> bool:
    return not (isinstance(record.msg, str) and record.msg in DISCORD_NOISE)


def main() -> int:
    """The bot's exit status: 0 when stopped by a signal, else one ``error:`` line."""
    try:
        settings = load_settings()
        token = settings.require_token()
    except SettingsError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    logs.configure(settings.log_format, settings.log_level_number, settings.secrets)
    logging.getLogger("discord.client").addFilter(_not_noise)
    try:
        asyncio.run(serve(settings, token))
    except (DatabaseProblem, EndpointProblem) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except discord.LoginFailure:
        print("error: Discord rejected the bot token (DISCORD_TOKEN)", file=sys.stderr)
        return 1
    except (aiohttp.ClientError, OSError, discord.GatewayNotFound) as exc:
        print(f"error: cannot reach Discord ({exc.__class__.__name__})", file=sys.stderr)
        return 1
    except discord.PrivilegedIntentsRequired:
        print("error: the bot asked for an intent the application lacks", file=sys.stderr)
        return 1
    except KeyboardInterrupt:  # a Ctrl-C after the loop gave the signals back
        return 0
    return 0


async def serve(settings: Settings, token: str) -> None:
    """Check the database, then run the bot, until it ends or a stop signal closes it."""
    bot: PokerBot | None = None

    async def start() -> None:
        nonlocal bot
        await check_database(settings.database)
        async with make_bot(settings) as made:
            bot = made
            watch_interactions(made)  # the logs' ids, the answers' times
            async with _monitor(made, settings):
                await _start(made, token)

    def closer() -> Closer | None:
        return None if bot is None else bot.close

    await run_until_signal(start(), closer)


@contextlib.asynccontextmanager
async def _monitor(bot: PokerBot, settings: Settings) -> AsyncIterator[None]:
    """The metrics and health endpoint while the bot runs, if METRICS_PORT is set."""
    if settings.metrics_port is None:
        yield
        return
    async with Monitor(bot, settings.metrics_host, settings.metrics_port):
        yield


async def _start(bot: PokerBot, token: str) -> None:
    """``bot.start``, with the start-up heap frozen between the login (``setup_hook``: the
    database, the tables, the extensions) and the gateway."""
    await bot.login(token)
    freeze_heap()
    await bot.connect(reconnect=True)


async def check_database(target: str | Path) -> None:
    """Open (creating and migrating) and close the database; DatabaseProblem if unusable.

    Done before logging in, so that a bad file is named as such and not taken for a
    network failure, and so that a bot that cannot keep its chips never goes online.
    """
    try:
        conn = await open_connection(target)
    except DatabaseProblem:
        raise
    except Exception as exc:
        if not is_postgres_url(target):
            raise
        # Never the URL: it holds the password.
        problem = f"the PostgreSQL database (DATABASE_URL) cannot be opened: {type(exc).__name__}"
        raise DatabaseProblem(problem) from None
    await conn.close()


async def run_until_signal(
    main: Coroutine[Any, Any, object],
    closer: Callable[[], Closer | None],
    grace: float = 2.0,
) -> bool:
    """Run ``main`` until it ends; on SIGTERM or SIGINT, stop it. Return True if a signal did.

    ``closer()`` says how at that moment: a function whose awaiting should make ``main``
    end (the bot's ``close``), or None to cancel ``main`` at once (nothing to close yet:
    the database check, whose transactions roll back on cancellation). ``main`` still
    running ``grace`` seconds after the close (say, a login waiting on a dead network,
    which closing the HTTP session does not interrupt) is cancelled, as it is on a second
    signal. After a signal, an error that ``main`` raises while being stopped is the
    shutdown, not a failure.
    """
    loop = asyncio.get_running_loop()
    task = loop.create_task(main)
    stopping: list[asyncio.Task[None]] = []  # the one stop, once a signal came

    async def shut_down(close: Closer | None) -> None:
        if close is None:
            task.cancel()
            return
        try:
            await close()
        finally:
            done, _ = await asyncio.wait([task], timeout=grace)
            if not done:
                log.warning("still running %.0f s after closing: cancelled", grace)
                task.cancel()

    def on_signal(sig: signal.Signals) -> None:
        if stopping:
            log.info("received %s again: cancelling", sig.name)
            task.cancel()
            return
        close = closer()
        log.info("received %s: %s", sig.name, "closing" if close else "stopping start-up")
        stopping.append(loop.create_task(shut_down(close)))

    # No await since the task was made: it cannot have started without these handlers.
    for sig in STOP_SIGNALS:
        loop.add_signal_handler(sig, on_signal, sig)
    try:
        await task
    except (Exception, asyncio.CancelledError) as exc:
        if not stopping:
            raise
        log.info("stopped while running (%s)", type(exc).__name__)
    finally:
        if stopping:
            await stopping[0]
            log.info("closed cleanly")
        for sig in STOP_SIGNALS:
            loop.remove_signal_handler(sig)
    return bool(stopping)
