"""A mixed table's rotation of games: which game the next hand is dealt in, as pure data.

A rotation is a small frozen value, kept as JSON with the table and restored at
start-up. It moves only when a hand is dealt (``dealt``), so a hand in play always
finishes as the game it was dealt; between hands the next game can be read from it.
Three kinds (``RotationKind``):
- ``orbit``: each game for one orbit (as many hands as players were dealt the first
  hand of it), in the order given;
- ``hands``: each game for ``every`` hands, in the order given;
- ``choice``: dealer's choice: the first orbit is the first game; each later orbit is
  the game its first dealer picks (``choose``), or, if they let their time run out, the
  game after the last one in the list (as Poker Mavens does). The first choice is the
  next dealer's, and each later one passes to the next player clockwise.
Nothing here knows seats, clocks or Discord: the table service says who chooses and
when the time ran out; tournaments can use the same value.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

from bot.engine import VARIANTS

from .models import Code, Refused

EVERY_RANGE = (1, 50)  # hands per game of an ``hands`` rotation


class RotationKind(StrEnum):
    ORBIT = "orbit"
    HANDS = "hands"
    CHOICE = "choice"


@dataclass(frozen=True)
class Rotation:
    kind: RotationKind
    games: tuple[str, ...]
    every: int = 0  # hands per game (``hands`` only)
    current: int = -1  # index of the game of the block dealt last (-1: no hand dealt yet)
    left: int = 0  # hands of that block still to deal (0: the next deal starts a new one)
    chosen: str | None = None  # ``choice``: the game picked for the next block
    chooser: int | None = None  # ``choice``: the seat that chose last (the next is clockwise)

    @classmethod
    def make(cls, kind: str, games: Sequence[str], every: int | None = None) -> Rotation:
        """A new rotation; refused (``Refused``) for an unknown game or kind, fewer than
        two different games, or ``every`` out of ``EVERY_RANGE`` for a ``hands`` one."""
        try:
            rotation_kind = RotationKind(kind)
        except ValueError:
            raise Refused(
                Code.BAD_ROTATION, given=kind, kinds=tuple(k.value for k in RotationKind)
            ) from None
        unique = tuple(dict.fromkeys(games))
        for game in unique:
            if game not in VARIANTS:
                raise Refused(Code.UNKNOWN_GAME, game=game, games=tuple(VARIANTS))
        if len(unique) < 2:
            raise Refused(Code.MIX_TOO_FEW, games=unique)
        low, high = EVERY_RANGE
        if rotation_kind is RotationKind.HANDS:
            if every is None or not low <= every <= high:
                raise Refused(Code.BAD_EVERY, min=low, max=high, given=every)
            return cls(rotation_kind, unique, every)
        return cls(rotation_kind, unique)

    # ----- what the table reads -------------------------------------------------

    @property
    def awaiting_choice(self) -> bool:
        """Dealer's choice, a block over and the next game not picked yet."""
        return (
            self.kind is RotationKind.CHOICE
            and self.left == 0
            and self.current >= 0
            and self.chosen is None
        )

    @property
    def after_current(self) -> str:
        """The game after the current block's in the list (the first before any deal):
        the next block's in an orbit or hands rotation, the default choice otherwise."""
        return self.games[(self.current + 1) % len(self.games)]

    @property
    def upcoming(self) -> str:
        """The game the next hand is dealt in (a choice still awaited: the default)."""
        if self.left > 0:
            return self.games[self.current]
        if self.kind is RotationKind.CHOICE:
            return self.chosen or (self.games[0] if self.current < 0 else self.after_current)
        return self.after_current

    @property
    def between_hands(self) -> str:
        """The game a table shows between hands: the next hand's, or while a choice is
        awaited the last one's (the chooser may still pick another)."""
        return self.games[self.current] if self.awaiting_choice else self.upcoming

    def following(self, game: str) -> str | None:
        """The game of the block after ``game``'s (None: dealer's choice decides it)."""
        if self.kind is RotationKind.CHOICE:
            return None
        return self.games[(self.games.index(game) + 1) % len(self.games)]

    @property
    def seat_limit(self) -> int:
        """The smallest maximum among the games: every game can be dealt to all seats."""
        return min(VARIANTS[g].max_seats for g in self.games)

    @property
    def min_seats(self) -> int:
        return max(VARIANTS[g].min_seats for g in self.games)

    @property
    def minimum(self) -> int:
        """Chips needed to be dealt in: the largest table minimum among the games."""
        return max(VARIANTS[g].table_minimum for g in self.games)

    # ----- what changes it ------------------------------------------------------

    def choose(self, game: str, seat: int | None = None) -> Rotation:
        """The pick for the next block by the chooser at ``seat`` (or for them when
        their time ran out); refused if no choice is awaited or the game is not one of
        the table's."""
        if not self.awaiting_choice:
            raise Refused(Code.NO_CHOICE_NOW)
        if game not in self.games:
            raise Refused(Code.UNKNOWN_GAME, game=game, games=self.games)
        return replace(self, chosen=game, chooser=self.chooser if seat is None else seat)

    def dealt(self, players: int) -> Rotation:
        """The rotation after a hand of ``upcoming`` is dealt to ``players`` players."""
        if players < 1:
            raise ValueError(f"a hand is dealt to players, not {players}")
        if self.left > 0:
            return replace(self, left=self.left - 1)
        index = self.games.index(self.upcoming)
        block = self.every if self.kind is RotationKind.HANDS else players
        return replace(self, current=index, left=block - 1, chosen=None)

    # ----- stored as JSON ---------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind.value,
            "games": list(self.games),
            "every": self.every,
            "current": self.current,
            "left": self.left,
            "chosen": self.chosen,
            "chooser": self.chooser,
        }

    @classmethod
    def from_json(cls, stored: Mapping[str, Any]) -> Rotation:
        return cls(
            RotationKind(stored["kind"]),
            tuple(stored["games"]),
            int(stored.get("every", 0)),
            int(stored.get("current", -1)),
            int(stored.get("left", 0)),
            stored.get("chosen"),
            stored.get("chooser"),
        )
