"""Level structures: the stakes of each level per game, and minutes per level per speed.

Pure data in the style of real limit sheets (docs/tournaments.md lists them). Each
level's stakes are the header keys of RULES.md 8.1 (``stakes_json`` is what
``bot.engine.stakes.Stakes.from_json`` reads):
- ``a5-triple``: blinds, the big blind equal to the small bet and the small blind half
  of it, no antes (BARGE, EMBARGO and WSOP triple-draw sheets);
- ``a6-draw``, ``a5-draw``: an ante of about a quarter of the small bet, rising with
  the bets;
- ``abyssinia``: an ante of about half the bet; the card prices stay in the cash
  table's proportion to the bet (two-to-five 2x, six-to-king 1x, ace 4x).
Level 1's bets are 20/40 (Abyssinia's bet 10), so the default starting stack of 3000
is 75 big bets; a stack is at least ``MIN_BIG_BETS`` big bets of level 1. Past the sheet's
20 levels the stakes go on rising in its rhythm (1, 1.5, 2, 3, 4, 6, 8 per power of ten:
each level is the one seven before it, times ten), as real sheets run to 25-32 levels and
a big bet of 60 starting stacks: with stakes that stopped, a big field's last players
would hold hundreds of big bets of fixed limit and the tournament would not end. They stop
at ``LAST_LEVEL``, whose big bet covers every chip any tournament can hold.

Every game's level n comes from one stake unit U (``unit(n)``), as a mixed sheet's
row does (BARGE, EMBARGO): U is triple draw's small bet and big blind, the single-draw
games' small bet (with their ante), and twice Abyssinia's bet. So a mixed tournament's
level is one row for all its games (``mixed_level``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from functools import cache

from bot.engine import VARIANTS


class Speed(StrEnum):
    """How fast the stakes rise."""

    TURBO = "turbo"
    REGULAR = "regular"
    SLOW = "slow"


MINUTES_PER_LEVEL: dict[Speed, int] = {Speed.TURBO: 4, Speed.REGULAR: 8, Speed.SLOW: 12}
DEFAULT_STACK = 3000
MIN_BIG_BETS = 50  # a starting stack covers at least this many big bets of level 1
MAX_STACK = 1_000_000
#: the chips any tournament can hold: the most entrants (issue 37: 1,000) x ``MAX_STACK``
MOST_CHIPS = 1000 * MAX_STACK
#: past the sheet, level n is level n - CYCLE times ten (the sheet's rhythm per decade)
CYCLE = 7

# Round 1's bet of each level of the draw games (round 2 and triple draw's later
# rounds bet twice it), and the single-draw ante that goes with it.
_SMALL_BETS = (20, 30, 40, 60, 80, 100, 150, 200, 300, 400, 600, 800, 1000, 1500, 2000, 3000,
               4000, 6000, 8000, 10000)  # fmt: skip
_DRAW_ANTES = (5, 5, 10, 15, 20, 25, 40, 50, 75, 100, 150, 200, 250, 400, 500, 750, 1000,
               1500, 2000, 2500)  # fmt: skip
# Abyssinia's bet of each level, and its ante.
_ABYSSINIA_BETS = (10, 15, 20, 30, 40, 50, 75, 100, 150, 200, 300, 400, 500, 750, 1000, 1500,
                   2000, 3000, 4000, 5000)  # fmt: skip
_ABYSSINIA_ANTES = (5, 5, 10, 15, 20, 25, 40, 50, 75, 100, 150, 200, 250, 400, 500, 750, 1000,
                    1500, 2000, 2500)  # fmt: skip
_PRICE_FACTORS = (2, 1, 4)  # two-to-five, six-to-king, ace: the cash table's prices per bet

StakeValue = int | tuple[int, ...]


@dataclass(frozen=True)
class Level:
    """One level: its number (1-based) and its stakes as RULES.md 8.1 keys."""

    number: int
    stakes: tuple[tuple[str, StakeValue], ...]

    def stakes_json(self) -> dict[str, int | list[int]]:
        """The ``stakes`` object of a hand record header."""
        return {k: list(v) if isinstance(v, tuple) else v for k, v in self.stakes}

    def get(self, key: str) -> StakeValue:
        return dict(self.stakes)[key]

    @property
    def big_bet(self) -> int:
        """The largest bet of a round at this level (a stack's depth is counted in it)."""
        values = dict(self.stakes)
        value = values.get("big_bet", values.get("bet"))
        assert isinstance(value, int)
        return value


def _draw_level(n: int, small: int, ante: int) -> Level:
    return Level(n, (("ante", ante), ("small_bet", small), ("big_bet", 2 * small)))


def _triple_level(n: int, small: int) -> Level:
    return Level(
        n,
        (
            ("small_blind", small // 2),
            ("big_blind", small),
            ("small_bet", small),
            ("big_bet", 2 * small),
        ),
    )


def _abyssinia_level(n: int, bet: int, ante: int) -> Level:
    prices = tuple(f * bet for f in _PRICE_FACTORS)
    return Level(n, (("ante", ante), ("bet", bet), ("prices", prices)))


_DRAW_LEVELS = tuple(
    _draw_level(i + 1, s, a) for i, (s, a) in enumerate(zip(_SMALL_BETS, _DRAW_ANTES, strict=True))
)
STRUCTURES: dict[str, tuple[Level, ...]] = {
    "a6-draw": _DRAW_LEVELS,
    "a5-draw": _DRAW_LEVELS,
    "a5-triple": tuple(_triple_level(i + 1, s) for i, s in enumerate(_SMALL_BETS)),
    "abyssinia": tuple(
        _abyssinia_level(i + 1, b, a)
        for i, (b, a) in enumerate(zip(_ABYSSINIA_BETS, _ABYSSINIA_ANTES, strict=True))
    ),
}
assert set(STRUCTURES) == set(VARIANTS)
# the one-unit mapping of mixed tournaments (module docstring)
assert tuple(u // 2 for u in _SMALL_BETS) == _ABYSSINIA_BETS


def _tenfold(level: Level, number: int) -> Level:
    """``level``'s stakes times ten, as level ``number``."""
    return Level(
        number,
        tuple((k, tuple(10 * x for x in v) if isinstance(v, tuple) else 10 * v)
              for k, v in level.stakes),
    )  # fmt: skip


def _last_level() -> int:
    """The first level whose big bet (in every game) covers ``MOST_CHIPS``."""
    number, small = len(_SMALL_BETS), _SMALL_BETS[-1]
    while min(2 * small, small // 2) < MOST_CHIPS:  # Abyssinia's bet is half the unit
        number += 1
        small = _unit_past_sheet(number)
    return number


def _unit_past_sheet(number: int) -> int:
    steps, at = divmod(number - len(_SMALL_BETS) - 1, CYCLE)
    return _SMALL_BETS[len(_SMALL_BETS) - CYCLE + at] * int(10 ** (steps + 1))


#: the last level: past it the stakes stay (its big bet covers any tournament's chips)
LAST_LEVEL = _last_level()


@cache  # (a history page reads the level of each of its hands)
def level_at(variant_id: str, number: int) -> Level:
    """Level ``number`` (1-based) of the game; past ``LAST_LEVEL``, that one."""
    levels = STRUCTURES[variant_id]
    number = min(max(number, 1), LAST_LEVEL)
    if number <= len(levels):
        return levels[number - 1]
    return _tenfold(level_at(variant_id, number - CYCLE), number)


def level_number(variant_id: str, stakes: object) -> int | None:
    """The level whose stakes a hand record's header carries (None: not one of ours)."""
    if variant_id not in STRUCTURES:
        return None
    for number in range(1, LAST_LEVEL + 1):
        if level_at(variant_id, number).stakes_json() == stakes:
            return number
    return None


def level_seconds(speed: Speed) -> float:
    return MINUTES_PER_LEVEL[speed] * 60.0


def smallest_stack(variant_id: str) -> int:
    """The smallest starting stack: ``MIN_BIG_BETS`` big bets of level 1."""
    return MIN_BIG_BETS * level_at(variant_id, 1).big_bet


# ----- mixed tournaments: one unit per level, each game's stakes from it ----------


def unit(number: int) -> int:
    """Level ``number``'s stake unit (past ``LAST_LEVEL``, that one's)."""
    number = min(max(number, 1), LAST_LEVEL)
    if number <= len(_SMALL_BETS):
        return _SMALL_BETS[number - 1]
    return _unit_past_sheet(number)


def mixed_level(games: Sequence[str], number: int) -> dict[str, Level]:
    """Level ``number`` of each of ``games``: the stakes its unit maps to in each."""
    return {g: level_at(g, number) for g in games}


def smallest_mixed_stack(games: Sequence[str]) -> int:
    """The smallest starting stack of a mix: ``MIN_BIG_BETS`` big bets of its largest
    game at level 1 (every game can then be played that deep)."""
    return max(smallest_stack(g) for g in games)
