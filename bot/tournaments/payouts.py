"""The payout table, finishing places and prizes (split among tied players), pure.

The table is BARGE's unified one (docs/tournaments.md): 2-4 entrants pay first place
only; 5-8 pay 65/35 (its 2024 update); 9-15 pay 50/30/20; 16-24 pay 42/26/18/14.
Each share is floored and the chips left over go to first place, so the prizes add
up to the pool exactly. Players who go out in the same hand place by the chips they
started that hand with (more is better); equal, they share those places and the
prizes of the places are pooled and split evenly, any odd chips one each to the tied
players in the order given (seat order). Standings points are the payout table's
percentages (a winner of a 2-4 player event scores 100), split the same way, so a
freeroll scores like any other.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

# (largest field size, percentages by place), smallest fields first
PAYOUT_TABLE: tuple[tuple[int, tuple[int, ...]], ...] = (
    (4, (100,)),
    (8, (65, 35)),
    (15, (50, 30, 20)),
    (24, (42, 26, 18, 14)),
)


def percentages(entrants: int) -> tuple[int, ...]:
    """The payout percentages by place for a field of ``entrants`` (at least 2)."""
    if entrants < 2:
        raise ValueError(f"a tournament has at least 2 entrants, got {entrants}")
    for largest, shares in PAYOUT_TABLE:
        if entrants <= largest:
            return shares
    raise ValueError(f"no payout row for {entrants} entrants")


def prizes_by_place(pool: int, entrants: int) -> list[int]:
    """Prize of place 1, 2, ... (floored shares, the rest to first): adds up to ``pool``."""
    if pool < 0:
        raise ValueError(f"pool must be >= 0, got {pool}")
    shares = [pool * pct // 100 for pct in percentages(entrants)]
    shares[0] += pool - sum(shares)
    return shares


@dataclass(frozen=True)
class Bust:
    """A player out of a hand, with the chips they started that hand with."""

    user_id: int
    started_with: int


def places_for_busts(busts: Sequence[Bust], remaining: int) -> dict[int, int]:
    """Places of the players out in one hand, ``remaining`` players still in after it.

    The best of them takes place ``remaining + 1``; a group with equal starting
    chips all take the best place of the group (they share it and the ones below)."""
    ordered = sorted(busts, key=lambda b: -b.started_with)
    places: dict[int, int] = {}
    place = remaining + 1
    for i, bust in enumerate(ordered):
        if i and bust.started_with == ordered[i - 1].started_with:
            places[bust.user_id] = places[ordered[i - 1].user_id]
        else:
            places[bust.user_id] = place + i
    return places


def _split(
    values: Sequence[int], places: Mapping[int, int], order: Sequence[int]
) -> dict[int, int]:
    """Each player's share of ``values`` (indexed by place - 1): tied players, who hold
    the same place, pool the values of the places they cover and split them."""
    by_place: dict[int, list[int]] = {}
    for user in order:
        by_place.setdefault(places[user], []).append(user)
    out: dict[int, int] = {}
    for place, users in by_place.items():
        covered = values[place - 1 : place - 1 + len(users)]
        total = sum(covered)
        each, odd = divmod(total, len(users))
        for i, user in enumerate(users):
            out[user] = each + (1 if i < odd else 0)
    return out


def prizes(pool: int, places: Mapping[int, int], order: Sequence[int]) -> dict[int, int]:
    """Every entrant's prize by their final place (``order``: the entrants in seat order,
    for odd chips of a split). The prizes add up to ``pool``."""
    if sorted(order) != sorted(places):
        raise ValueError("order must list exactly the placed players")
    table = prizes_by_place(pool, len(places))
    values = table + [0] * (len(places) - len(table))
    return _split(values, places, order)


def points(places: Mapping[int, int], order: Sequence[int]) -> dict[int, int]:
    """Standings points: the payout table's percentages, split like the prizes."""
    shares = list(percentages(len(places)))
    values = shares + [0] * (len(places) - len(shares))
    return _split(values, places, order)
