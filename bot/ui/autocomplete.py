"""Autocomplete choices, and what they accept: the caller's own cards for discards, the
market (named in any of our languages) for buys."""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from functools import lru_cache

from discord import app_commands

from bot.engine import BuySource, CardError, parse_cards
from bot.engine.cards import format_card
from bot.render.plain_text import card_text, cards_text
from bot.tables.models import TableView

from . import i18n
from .catalog import t


def discard_choices(cards: Sequence[int], current: str) -> list[app_commands.Choice[str]]:
    """Extend what was typed with each card still held; offer standing pat first."""
    try:
        chosen = parse_cards(current)
        rest = ""
    except CardError:  # the last token is being typed
        words = current.split()
        chosen, rest = [], (words[-1] if words else "")
        try:
            chosen = parse_cards(words[:-1])
        except CardError:
            return []
    chosen = [c for c in chosen if c in cards]
    choices = [app_commands.Choice(name=t("choice.pat"), value="pat")] if not chosen else []
    if chosen:
        text = " ".join(format_card(c) for c in chosen)
        choices.append(
            app_commands.Choice(name=t("choice.throw", cards=cards_text(chosen)), value=text)
        )
    for card in cards:
        if card in chosen or not format_card(card).lower().startswith(rest.lower()):
            continue
        picked = [*chosen, card]
        value = " ".join(format_card(c) for c in picked)
        choices.append(
            app_commands.Choice(name=t("choice.throw", cards=cards_text(picked)), value=value)
        )
    return choices[:25]


SOURCES = tuple(BuySource)


def fold(text: str) -> str:
    """What was typed, compared without case, accents or extra spaces ("Às  cegas" = "as cegas")."""
    bare = "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))
    return " ".join(bare.replace("đ", "d").replace("Đ", "d").casefold().split())


@lru_cache(maxsize=8)
def source_words(source: str) -> frozenset[str]:
    """The words that name a buying place: its id and its name in every language."""
    words = {source}
    for locale in i18n.LOCALES:
        words.add(t(f"source.{source}", locale))
    return frozenset(fold(w) for w in words)


def parse_source(text: str) -> str | None:
    """The place ``text`` names (``left``/``right``/``blind``, in any of our languages)."""
    typed = fold(text)
    return next((s for s in SOURCES if typed in source_words(s)), None)


def _words(names: set[str]) -> set[str]:
    """Each name, and each name from each of its words on ("cegas" finds "às cegas")."""
    out = set(names)
    for name in names:
        words = name.split()
        out.update(" ".join(words[i:]) for i in range(1, len(words)))
    return out


def buy_choices(view: TableView | None, current: str) -> list[app_commands.Choice[str]]:
    """The places to buy from, named in the reader's language; what was typed is matched
    against those names, from any of their words, as well as the English ids (``esq``,
    ``cegas``, ``tr``, ``mua``, ``bl`` each find one)."""
    offers = view.hand.market if view and view.hand else ()
    names = {"left": t("source.left"), "right": t("source.right"), "blind": t("choice.blind")}
    for offer in offers:
        if offer.card is not None:
            names[offer.source] = t(
                "choice.offer",
                source=t(f"source.{offer.source}"),
                card=card_text(offer.card),
                price=offer.price,
            )
    typed = fold(current)
    return [
        app_commands.Choice(name=name, value=value)
        for value, name in names.items()
        if any(w.startswith(typed) for w in _words({*source_words(value), fold(name)}))
    ]
