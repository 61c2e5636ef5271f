"""The four tables' fixed parameters (RULES.md §3–§6), as plain data."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from .rankings import Ranking


class Phase(StrEnum):
    """Where a hand is: dealt, a street (betting, draw or buying round), or over."""

    DEAL = "deal"
    BET = "bet"
    DRAW = "draw"
    BUY = "buy"
    SHOWDOWN = "showdown"
    COMPLETE = "complete"


# A round allows one bet and at most three raises (RULES.md §3).
MAX_BETS_PER_ROUND = 4


@dataclass(frozen=True)
class Variant:
    id: str
    name: str
    min_seats: int
    max_seats: int
    table_minimum: int
    ante: int
    blinds: tuple[int, int] | None  # (small, big), posted in the first betting round
    bet_sizes: tuple[int, ...]  # fixed bet size of each betting round, in order
    streets: tuple[Phase, ...]  # BET, DRAW or BUY phases in order; showdown follows
    ranking: Ranking  # ranking of the whole pot, or of the low half when split
    split: bool = False  # Abyssinia: high half by `high`, low half by `ranking`

    @property
    def draws(self) -> int:
        return self.streets.count(Phase.DRAW)


_SINGLE_DRAW = (Phase.BET, Phase.DRAW, Phase.BET)

VARIANTS: dict[str, Variant] = {
    v.id: v
    for v in (
        Variant(
            "a6-draw",
            "Ace-to-Six Lowball Draw",
            2,
            5,
            13,
            1,
            None,
            (1, 2),
            _SINGLE_DRAW,
            Ranking.A6,
        ),
        Variant(
            "a5-draw",
            "Ace-to-Five Lowball Draw",
            2,
            5,
            13,
            1,
            None,
            (1, 2),
            _SINGLE_DRAW,
            Ranking.A5,
        ),
        Variant(
            "a5-triple",
            "Ace-to-Five Triple Draw",
            2,
            6,
            48,
            0,
            (1, 2),
            (2, 2, 4, 4),
            (Phase.BET, Phase.DRAW) * 3 + (Phase.BET,),
            Ranking.A5,
        ),
        Variant(
            "abyssinia",
            "Abyssinia",
            2,
            8,
            41,
            1,
            None,
            (1,) * 5,
            (Phase.BUY, Phase.BET) * 5,
            Ranking.A5,
            split=True,
        ),
    )
}


def buy_price(rank: int) -> int:
    """Abyssinia's price of a card by rank index (2=0 … A=12): 2–5 cost 2, 6–K 1, ace 4."""
    if rank == 12:
        return 4
    return 2 if rank <= 3 else 1
