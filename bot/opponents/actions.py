"""One public action of a hand as a computer player sees it: who did what, and what showed."""

from __future__ import annotations

from dataclasses import dataclass

from bot.engine.cards import Card
from bot.engine.record import ActionKind

# The kinds of betting actions, and of those that bet (a bet or a raise).
BETTING = frozenset(
    (ActionKind.CHECK, ActionKind.BET, ActionKind.CALL, ActionKind.RAISE, ActionKind.FOLD)
)
AGGRESSIVE = frozenset((ActionKind.BET, ActionKind.RAISE))


@dataclass(frozen=True)
class PublicAction:
    player: str
    action: str  # an ActionKind
    drew: int | None = None  # discard: how many cards were thrown (public)
    cards: tuple[Card, ...] | None = None  # discard: the cards, only for the observer's own
    source: str | None = None  # buy: left, right or blind
