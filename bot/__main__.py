"""``python -m bot``: run the bot with settings from the environment / ``.env``.

Start-up checks the database before anything touches the network, so a bad file is
reported as what it is. SIGTERM (``docker stop``) and SIGINT (Ctrl-C) close the bot
cleanly and exit 0.
"""

from __future__ import annotations

import asyncio
import logging
import signal
import sys
from collections.abc import Awaitable, Callable, Coroutine
from pathlib import Path
from typing import Any

import aiohttp
import discord

from bot import operations
from bot.client import PokerBot, freeze_heap, make_bot
from bot.settings import Settings, SettingsError, load_settings
from bot.storage.backend import open_connection
from bot.storage.postgres import is_postgres_url
from bot.storage.sqlite import DatabaseProblem

log = logging.getLogger("bot")

STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)


def main() -> int:
    if sys.argv[1:]:  # migrate, export, copy-sqlite-to-postgres (bot/operations.py)
        return operations.run(sys.argv[1:])
    try:
        settings = load_settings()
        token = settings.require_token()
    except SettingsError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    logging.basicConfig(
        level=settings.log_level_number,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    try:
        asyncio.run(_run(settings, token))
    except DatabaseProblem as exc:
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
    except KeyboardInterrupt:
        return 0
    return 0


async def _run(settings: Settings, token: str) -> None:
    await check_database(settings.database)
    async with make_bot(settings) as bot:
        await run_until_signal(_start(bot, token), bot.close)


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
    close: Callable[[], Awaitable[None]],
    grace: float = 2.0,
) -> bool:
    """Run ``main`` until it ends; on SIGTERM or SIGINT, await ``close()`` once, which should
    make ``main`` end. Return True if a signal stopped it.

    ``main`` still running ``grace`` seconds after ``close()`` (say, a login waiting on a
    dead network, which closing the HTTP session does not interrupt) is cancelled. After a
    signal, an error that ``main`` raises while being closed is the shutdown, not a failure.
    """
    loop = asyncio.get_running_loop()
    task = loop.create_task(main)
    closing: list[asyncio.Task[None]] = []

    async def shut_down() -> None:
        try:
            await close()
        finally:
            done, _ = await asyncio.wait([task], timeout=grace)
            if not done:
                log.warning("still running %.0f s after closing: cancelled", grace)
                task.cancel()

    def on_signal(sig: signal.Signals) -> None:
        if not closing:
            log.info("received %s: closing", sig.name)
            closing.append(loop.create_task(shut_down()))

    for sig in STOP_SIGNALS:
        loop.add_signal_handler(sig, on_signal, sig)
    try:
        await task
    except (Exception, asyncio.CancelledError) as exc:
        if not closing:
            raise
        log.info("stopped while running (%s)", type(exc).__name__)
    finally:
        for sig in STOP_SIGNALS:
            loop.remove_signal_handler(sig)
        if closing:
            await closing[0]
            log.info("closed cleanly")
    return bool(closing)


if __name__ == "__main__":
    sys.exit(main())
