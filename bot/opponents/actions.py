"""One public action of a hand as a computer player sees it: who did what, and what showed."""

from __future__ import annotations

from dataclasses import dataclass

from bot.engine.cards import Card


@dataclass(frozen=True)
class PublicAction:
    player: str
    action: str
    drew: int | None = None  # discard: how many cards were thrown (public)
    cards: tuple[Card, ...] | None = None  # discard: the cards, only for the observer's own
    source: str | None = None  # buy: left, right or blind
