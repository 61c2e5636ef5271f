"""Mixed tournaments' games: which game each hand is dealt in, and at which stakes; pure.

A mixed tournament (issue 38 item 4) plays 2 to 4 of the games in one of two rotations
(``MixKind``), as BARGE and EMBARGO sheets do:
- ``hands``: each game for ``every`` hands, counted per table. The table keeps the
  count itself: its ``bot.tables.rotation.Rotation`` (kind ``hands``) moves with each
  deal and is stored with the table, so a restart resumes it where it was;
- ``level``: level n plays game n of the list (then the list again); the level
  clock, kept with the tournament, says which.
Both the Sit & Go driver and the multi-table service ask ``Mix.game`` for the game of a
hand about to be dealt and ``structures.level_at`` for its stakes, so they agree.
The mix is stored with its tournament as JSON (``tournaments.mix``, migration v17).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from bot.engine import VARIANTS
from bot.tables.rotation import EVERY_RANGE, Rotation

MIX_SIZE = (2, 4)  # games in a mix (each at most once)
DEFAULT_EVERY = 6  # hands of each game when none is given: BARGE's and EMBARGO's "every 6 hands"


class MixKind(StrEnum):
    """When a mixed tournament's game changes."""

    HANDS = "hands"
    LEVEL = "level"


@dataclass(frozen=True)
class Mix:
    games: tuple[str, ...]
    kind: MixKind
    every: int = 0  # hands of each game (``hands`` only)

    # ----- what the tables read ---------------------------------------------

    @property
    def first(self) -> str:
        """The game of the first hand."""
        return self.games[0]

    @property
    def seat_limit(self) -> int:
        """The most players every game of the mix can be dealt to."""
        return min(VARIANTS[g].max_seats for g in self.games)

    def table_rotation(self) -> Rotation | None:
        """The rotation a table of the tournament keeps (None: the level decides)."""
        if self.kind is MixKind.HANDS:
            return Rotation.make("hands", self.games, self.every)
        return None

    def level_game(self, level: int) -> str:
        """The game of level ``level`` (1-based) in a ``level`` rotation."""
        return self.games[(max(level, 1) - 1) % len(self.games)]

    def game(self, level: int, table_game: str) -> str:
        """The game of the next hand at a table whose own rotation's next game is
        ``table_game``, the tournament being at level ``level``."""
        if self.kind is MixKind.LEVEL:
            return self.level_game(level)
        return table_game

    # ----- stored as JSON ---------------------------------------------------

    def dumps(self) -> str:
        return json.dumps(
            {"games": list(self.games), "rotation": self.kind.value, "every": self.every}
        )

    @classmethod
    def loads(cls, stored: str | None) -> Mix | None:
        """The stored mix (None: a one-game tournament)."""
        if not stored:
            return None
        data = json.loads(stored)
        return cls(tuple(data["games"]), MixKind(data["rotation"]), int(data.get("every", 0)))


class MixCode(StrEnum):
    """Why games and a rotation make no mix (the service's ``SngCode`` of the same value)."""

    UNKNOWN_GAME = "sng_unknown_game"  # game, games
    GAMES = "sng_mix_games"  # min, max, given: too few or too many different games
    BAD_ROTATION = "sng_bad_rotation"  # given, kinds
    BAD_EVERY = "sng_bad_every"  # min, max, given


class MixRefused(Exception):
    def __init__(self, code: MixCode, **params: object) -> None:
        super().__init__(code.value)
        self.code = code
        self.params = params


def make(games: Sequence[str], kind: str, every: int | None) -> Mix:
    """The mix of ``games`` (a game named twice counts once, as at a mixed cash table)
    in rotation ``kind``; refused (``MixRefused``) for an unknown game or rotation,
    fewer than two or more than four different games, or hands out of ``EVERY_RANGE``
    (none given: ``DEFAULT_EVERY``)."""
    unique = tuple(dict.fromkeys(games))
    for g in unique:
        if g not in VARIANTS:
            raise MixRefused(MixCode.UNKNOWN_GAME, game=g, games=tuple(sorted(VARIANTS)))
    low, high = MIX_SIZE
    if not low <= len(unique) <= high:
        raise MixRefused(MixCode.GAMES, min=low, max=high, given=len(unique))
    try:
        mix_kind = MixKind(kind)
    except ValueError:
        raise MixRefused(
            MixCode.BAD_ROTATION, given=kind, kinds=tuple(k.value for k in MixKind)
        ) from None
    if mix_kind is MixKind.LEVEL:
        return Mix(unique, mix_kind)
    hands = DEFAULT_EVERY if every is None else every
    fewest, most = EVERY_RANGE
    if not fewest <= hands <= most:
        raise MixRefused(MixCode.BAD_EVERY, min=fewest, max=most, given=hands)
    return Mix(unique, mix_kind, hands)
