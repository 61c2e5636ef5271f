"""The tournament table mode's seam: what a tournament gives the tables it plays on.

A table with a ``tournament_id`` takes its chips from the tournament, not the
players' server accounts: its stacks are the seats' own (stored with them, as a
practice table's), every player with chips is dealt in (away or not: the timer acts
for them), each hand's header comes from ``header`` (the level's stakes and
``"allin": true``, RULES.md section 8), the ledger is never touched, and
``settled`` counts each finished hand for the tournament inside the hand's step.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from bot.engine.cards import Card
from bot.engine.record import HandRecord


@dataclass(frozen=True)
class LevelView:
    """Where a tournament's level clock stands, for its table message: the level, its
    stakes and the next level's (``Level.stakes_json()``), the seconds to the next.
    A mixed tournament's also has each of its games' stakes (now, next level), and
    where the level decides the game, this level's game and the next one's."""

    number: int
    stakes: Mapping[str, object]
    following: Mapping[str, object]
    seconds_left: float
    mixed: Mapping[str, tuple[Mapping[str, object], Mapping[str, object]]] = field(
        default_factory=dict
    )
    game: str | None = None
    next_game: str | None = None


class TournamentHooks(Protocol):
    def level(self, tournament_id: int) -> LevelView | None:
        """The tournament's level now (None: it is not running)."""
        ...

    def header(
        self,
        tournament_id: int,
        variant_id: str,
        seats: Sequence[tuple[str, int]],
        dealer: int,
        deck: Sequence[Card],
    ) -> HandRecord:
        """The header of the tournament's next hand, at its current level; its game is
        ``variant_id`` (the table's next) unless the tournament's level decides it."""
        ...

    async def settled(
        self,
        tournament_id: int,
        hand_id: int,
        started: Mapping[int, int],
        after: Mapping[int, int],
        *,
        actions: int,
        button: int | None,
    ) -> None:
        """Count a finished hand: its players' stacks (user id -> chips) before and after."""
        ...
