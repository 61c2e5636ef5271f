"""What a computer player may know, built in one place from the seat's own view.

``observe`` is the only door from a live ``Hand`` to a strategy: it reads the
seat's view (``seat_view``: its own cards and the public view) and the public
part of the action history. Other players' discards are reduced to a count,
exactly what the table shows; the seat's own discards keep their cards, since
that seat threw them. Nothing else of the hand (deck, stub, other holdings)
reaches a strategy, and tests/opponents/test_what_they_see.py proves it.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.engine import Decision, Hand, PublicView, seat_view
from bot.engine.cards import Card


@dataclass(frozen=True)
class PublicAction:
    player: str
    action: str
    drew: int | None = None  # discard: how many cards were thrown (public)
    cards: tuple[Card, ...] | None = None  # discard: the cards, only for the observer's own
    source: str | None = None  # buy: left, right or blind


@dataclass(frozen=True)
class Observation:
    player: str
    cards: tuple[Card, ...]  # the observer's own cards (open cards in Abyssinia)
    public: PublicView
    decision: Decision  # what the observer may do now
    history: tuple[PublicAction, ...]

    @property
    def seat(self) -> int:
        return self.decision.seat


def observe(hand: Hand, player: str) -> Observation:
    """The observation of ``player``, whose turn it must be."""
    view = seat_view(hand, player)
    if view.decision is None:
        raise ValueError(f"it is not {player}'s turn")
    history = tuple(
        PublicAction(
            a.player,
            a.action,
            drew=None if a.cards is None else len(a.cards),
            cards=a.cards if a.player == player else None,
            source=a.source,
        )
        for a in hand.actions
    )
    return Observation(player, view.cards, view.public, view.decision, history)
