"""Slash commands in Portuguese and Vietnamese: the synced schema, checked against
Discord's rules for localised names."""

from __future__ import annotations

import random
import unicodedata
from collections.abc import Iterator
from typing import Any

import pytest
from discord import Locale, app_commands

from bot.client import PokerBot
from bot.settings import Settings
from bot.ui.translator import CatalogTranslator
from fakediscord.harness import DiscordHarness

TRANSLATED = ("pt-BR", "vi")
GAMES = {"a6-draw", "a5-draw", "a5-triple", "abyssinia"}


def valid_name(name: str) -> bool:
    """Discord's ``^[-_\\p{L}\\p{N}]{1,32}$``, lowercase where a letter has a lowercase."""
    return (
        1 <= len(name) <= 32
        and all(ch in "-_" or unicodedata.category(ch)[0] in "LN" for ch in name)
        and name == name.lower()
    )


def walk(schema: list[dict[str, Any]]) -> Iterator[tuple[str, dict[str, Any], list[dict]]]:
    """(path, item, siblings) for every command, group, option and choice."""

    def options(path: str, items: list[dict[str, Any]]):
        for item in items:
            here = f"{path} {item['name']}"
            yield here, item, items
            yield from options(here, item.get("options") or [])
            for choice in item.get("choices") or []:
                yield f"{here}={choice['value']}", choice, item["choices"]

    yield from options("", schema)


@pytest.fixture
async def schema(tmp_path) -> list[dict[str, Any]]:
    settings = Settings(_env_file=None, database_path=tmp_path / "t.db")  # type: ignore[call-arg]
    async with DiscordHarness(PokerBot(settings, rng=random.Random(1))) as h:
        await h.connect(channel_ids=[1310000000000000001])
        return h.command_schema()


async def test_every_command_option_and_choice_is_localised(schema) -> None:
    seen = 0
    for path, item, _ in walk(schema):
        seen += 1
        is_choice = "value" in item and "type" not in item
        is_game_group = item["name"] in GAMES and not is_choice
        names = item.get("name_localizations") or {}
        for locale in TRANSLATED:
            if is_game_group:
                assert locale not in names, f"{path}: a game's group is named by its id"
            else:
                assert names.get(locale), f"{path}: no {locale} name"
            descriptions = item.get("description_localizations") or {}
            if is_choice:  # a choice has a name and a value, nothing to describe
                assert not descriptions, path
            else:
                assert descriptions.get(locale), f"{path}: no {locale} description"
                assert 1 <= len(descriptions[locale]) <= 100, path
        assert not {"en-US", "en-GB"} & set(names), f"{path}: English is the source"
    assert seen > 60  # the four games' subcommands, /rules and the others


async def test_localised_names_follow_discords_rules_and_differ_among_siblings(schema) -> None:
    for path, item, siblings in walk(schema):
        is_choice = "value" in item and "type" not in item
        for locale, name in (item.get("name_localizations") or {}).items():
            if is_choice:
                assert 1 <= len(name) <= 100, f"{path} ({locale}): {name!r}"
            else:
                assert valid_name(name), f"{path} ({locale}): {name!r} is not a valid name"
                others = [
                    (s.get("name_localizations") or {}).get(locale, s["name"])
                    for s in siblings
                    if s is not item
                ]
                assert name not in others, f"{path} ({locale}): {name!r} is used twice"


async def test_the_players_words_are_the_command_names(schema) -> None:
    by_path = {path: item for path, item, _ in walk(schema)}
    draw = by_path[" a5-draw"]["options"]
    pt = {o["name"]: o["name_localizations"]["pt-BR"] for o in draw}
    vi = {o["name"]: o["name_localizations"]["vi"] for o in draw}
    assert (pt["check"], pt["bet"], pt["call"], pt["raise"], pt["fold"], pt["discard"]) == (
        "passar",
        "apostar",
        "pagar",
        "aumentar",
        "desistir",
        "trocar",
    )
    assert (vi["bet"], vi["call"], vi["raise"], vi["fold"], vi["discard"], vi["deal"]) == (
        "cược",
        "theo",
        "tố",
        "bỏ-bài",
        "bốc-bài",
        "chia-bài",
    )


async def test_other_locales_and_english_fall_back_to_the_source() -> None:
    translator = CatalogTranslator()
    command = app_commands.Command(name="fold", description="Fold your hand", callback=_noop)
    context = app_commands.TranslationContext(
        location=app_commands.TranslationContextLocation.command_name, data=command
    )
    fold = app_commands.locale_str("fold")
    assert await translator.translate(fold, Locale.brazil_portuguese, context) == "desistir"
    assert await translator.translate(fold, Locale.vietnamese, context) == "bỏ-bài"
    for locale in (Locale.american_english, Locale.british_english, Locale.french):
        assert await translator.translate(fold, locale, context) is None


async def _noop(interaction) -> None:  # pragma: no cover - never invoked
    return None
