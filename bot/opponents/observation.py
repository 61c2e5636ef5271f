"""What a computer player may know, built in one place from the seat's own view.

``observe`` is the only door from a live ``Hand`` to a strategy: it reads the
seat's view (``seat_view``: its own cards and the public view) and the public
part of the action history. Other players' discards are reduced to a count,
exactly what the table shows; the seat's own discards keep their cards, since
that seat threw them. Nothing else of the hand (deck, stub, other holdings)
reaches a strategy, and tests/opponents/test_what_they_see.py proves it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from bot.engine import Decision, Hand, PublicView, seat_view
from bot.engine.cards import Card

from .actions import PublicAction
from .profiles import Profile


@dataclass(frozen=True)
class Observation:
    player: str
    cards: tuple[Card, ...]  # the observer's own cards (open cards in Abyssinia)
    public: PublicView
    decision: Decision  # what the observer may do now
    history: tuple[PublicAction, ...]
    # What each player has shown in earlier hands at this table (public; see profiles.py).
    profiles: Mapping[str, Profile] = field(default_factory=dict)

    @property
    def seat(self) -> int:
        return self.decision.seat


def observe(hand: Hand, player: str, profiles: Mapping[str, Profile] | None = None) -> Observation:
    """The observation of ``player``, whose turn it must be; ``profiles``: what the
    table's earlier hands showed of each player (``profiles.record``)."""
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
    return Observation(player, view.cards, view.public, view.decision, history, profiles or {})


def public_history(hand: Hand) -> tuple[PublicAction, ...]:
    """A hand's actions as every seat saw them (discards as counts): what a finished
    hand adds to the table's profiles."""
    return tuple(
        PublicAction(
            a.player, a.action, drew=None if a.cards is None else len(a.cards), source=a.source
        )
        for a in hand.actions
    )
