"""The slash commands offer the games, languages and who-opens values from the one place
each list lives (issue 35 item 5): the engine's VARIANTS and the storage rows."""

from __future__ import annotations

import importlib

import discord
from discord.ext import commands

from bot.engine import VARIANTS
from bot.storage.rows import LANGUAGES, OPEN_BY


def choices() -> dict[tuple[str, str], list[str]]:
    bot = commands.Bot(command_prefix="!", intents=discord.Intents.none())
    found = {}
    for name in ("cogs.general", "cogs.history", "cogs.settings"):
        module = importlib.import_module(name)
        for obj in vars(module).values():
            if isinstance(obj, type) and issubclass(obj, commands.Cog) and obj.__module__ == name:
                for command in obj(bot).walk_app_commands():
                    if isinstance(command, discord.app_commands.Command):
                        for p in command.parameters:
                            found[(command.qualified_name, p.name)] = [c.value for c in p.choices]
    return found


def test_the_commands_offer_the_engines_games_and_the_stored_settings_values():
    found = choices()
    assert found[("rules", "game")] == list(VARIANTS)
    assert found[("stats", "game")] == list(VARIANTS)
    assert found[("settings language", "language")] == list(LANGUAGES)
    assert found[("settings who-opens", "who")] == list(OPEN_BY)
    assert list(VARIANTS) == ["a6-draw", "a5-draw", "a5-triple", "abyssinia"]
    assert LANGUAGES == ("auto", "en-US", "pt-BR", "vi")
    assert OPEN_BY == ("anyone", "moderators")
