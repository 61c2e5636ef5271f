"""Autocomplete choices: the caller's own cards for discards, the market for buys."""

from __future__ import annotations

from collections.abc import Sequence

from discord import app_commands

from bot.engine import CardError, parse_cards
from bot.engine.cards import format_card
from bot.render.text import card_text, cards_text
from bot.tables.models import TableView

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


def buy_choices(view: TableView | None, current: str) -> list[app_commands.Choice[str]]:
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
    return [
        app_commands.Choice(name=name, value=value)
        for value, name in names.items()
        if value.startswith(current.strip().lower())
    ]
