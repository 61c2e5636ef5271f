"""A hand's stakes (RULES.md §8.1) as a small typed value: forced bets, bet sizes, prices.

Each variant uses only its own keys; the others are 0 (prices: None). ``to_json`` writes
exactly the variant's keys, so ``Stakes.from_json(v, s.to_json()) == s``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .record_error import RecordError

# The stakes keys of each variant, in the order RULES.md §8.1 lists them.
KEYS: dict[str, tuple[str, ...]] = {
    "a6-draw": ("ante", "small_bet", "big_bet"),
    "a5-draw": ("ante", "small_bet", "big_bet"),
    "a5-triple": ("small_blind", "big_blind", "small_bet", "big_bet"),
    "abyssinia": ("ante", "bet", "prices"),
}


@dataclass(frozen=True)
class Stakes:
    ante: int = 0
    small_blind: int = 0
    big_blind: int = 0
    small_bet: int = 0
    big_bet: int = 0
    bet: int = 0
    prices: tuple[int, int, int] | None = None  # Abyssinia: 2–5, 6–K, ace

    @classmethod
    def cash(cls, variant_id: str) -> Stakes:
        """The cash table's stakes of RULES.md §4–§6."""
        return _CASH[variant_id]

    @classmethod
    def from_json(cls, variant_id: str, obj: Any) -> Stakes:
        """Parse a record's ``"stakes"``; raise ``RecordError(None, …)`` when they are bad."""
        keys = KEYS[variant_id]
        if not isinstance(obj, dict):
            raise RecordError(None, f"stakes must be an object with the keys {', '.join(keys)}")
        missing = [k for k in keys if k not in obj]
        extra = sorted(str(k) for k in obj if k not in keys)
        if missing or extra:
            what = f"missing {missing[0]}" if missing else f"{extra[0][:24]} is not one"
            raise RecordError(
                None, f"stakes of {variant_id} take exactly {', '.join(keys)} ({what})"
            )
        values: dict[str, Any] = {}
        for key in keys:
            raw = obj[key]
            if key == "prices":
                if not isinstance(raw, list) or len(raw) != 3:
                    raise RecordError(None, "stakes: prices must be a list of three whole numbers")
                low, mid, ace = (_chips(f"prices[{i}]", v) for i, v in enumerate(raw))
                values[key] = (low, mid, ace)
            else:
                values[key] = _chips(key, raw)
        stakes = cls(**values)
        stakes._check(variant_id)
        return stakes

    def _check(self, variant_id: str) -> None:
        if variant_id == "abyssinia":
            return
        if self.big_bet < self.small_bet:
            raise RecordError(None, "stakes: big_bet must be at least small_bet")
        if variant_id == "a5-triple":
            if self.big_blind != self.small_bet:
                raise RecordError(None, "stakes: big_blind must equal small_bet")
            if self.small_blind >= self.big_blind:
                raise RecordError(None, "stakes: small_blind must be below big_blind")

    def to_json(self) -> dict[str, Any]:
        """The variant's keys only (the fields that are set)."""
        out: dict[str, Any] = {}
        for key in ("ante", "small_blind", "big_blind", "small_bet", "big_bet", "bet"):
            value = getattr(self, key)
            if value:
                out[key] = value
        if self.prices is not None:
            out["prices"] = list(self.prices)
        return out

    def table_minimum(self, variant_id: str) -> int:
        """A cash table's minimum at these stakes (RULES.md §8.6's formula)."""
        if variant_id == "abyssinia":
            return self.ante + 5 * max(self.prices or (0,)) + 20 * self.bet
        if variant_id == "a5-triple":
            return 8 * self.small_bet + 8 * self.big_bet
        return self.ante + 4 * self.small_bet + 4 * self.big_bet

    def bet_sizes(self, variant_id: str) -> tuple[int, ...]:
        """The fixed bet size of each betting round, in order."""
        if variant_id == "abyssinia":
            return (self.bet,) * 5
        if variant_id == "a5-triple":
            return (self.small_bet, self.small_bet, self.big_bet, self.big_bet)
        return (self.small_bet, self.big_bet)

    @property
    def blinds(self) -> tuple[int, int] | None:
        """(small, big) when the game has blinds, else None."""
        return (self.small_blind, self.big_blind) if self.big_blind else None

    def price(self, rank: int) -> int:
        """Abyssinia's price of a card by rank index (2=0 … A=12)."""
        two_to_five, six_to_king, ace = self.prices or (2, 1, 4)
        if rank == 12:
            return ace
        return two_to_five if rank <= 3 else six_to_king


def _chips(key: str, value: Any) -> int:
    if type(value) is not int or value < 1:
        raise RecordError(None, f"stakes: {key} must be a whole number of chips, at least 1")
    return value


_CASH = {
    "a6-draw": Stakes(ante=1, small_bet=1, big_bet=2),
    "a5-draw": Stakes(ante=1, small_bet=1, big_bet=2),
    "a5-triple": Stakes(small_blind=1, big_blind=2, small_bet=2, big_bet=4),
    "abyssinia": Stakes(ante=1, bet=1, prices=(2, 1, 4)),
}
