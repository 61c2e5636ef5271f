"""``python -m bot``: run the bot with settings from the environment / ``.env``."""

from __future__ import annotations

import asyncio
import logging
import sys

import aiohttp
import discord

from bot.client import PokerBot
from bot.settings import SettingsError, load_settings


def main() -> int:
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


async def _run(settings, token: str) -> None:
    async with PokerBot(settings) as bot:
        await bot.start(token, reconnect=True)


if __name__ == "__main__":
    sys.exit(main())
