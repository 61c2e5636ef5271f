"""The payout table, finishing places and prizes (split among tied players), pure.

The table (docs/tournaments.md) is kept in hundredths of a percent of the pool (a row
adds up to 10,000). Up to 24 entrants it is BARGE's unified one: 2-4 pay first place
only; 5-8 pay 65/35 (its 2024 update); 9-15 pay 50/30/20; 16-24 pay 42/26/18/14.
From 25 to 215 it is the rest of the BARGE Unified Tournament Payouts sheet (its last
column, 161 entrants, up to 215); from 216 to 1,000, Fabulous Poker's published prize
structure by entries (paying about 15 % of the field). Each share is floored and the
chips left over go to first place, so the prizes add up to the pool exactly. Players
who go out in the same hand place by the chips they started that hand with (more is
better); equal, they share those places and the prizes of the places are pooled and
split evenly, any odd chips one each to the tied players in the order given (seat
order). Standings points are the payout table's percentages floored to whole points, at
least 1 for a paid place (a winner of a 2-4 player event scores 100), split the same
way, so a freeroll scores like any other.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

WHOLE = 10_000  # a row's shares are hundredths of a percent: they add up to this
LARGEST = 1000  # the largest field the table has a row for


def _run(*groups: tuple[int, int]) -> tuple[int, ...]:
    """Shares written as (places, share each), best places first."""
    return tuple(share for count, share in groups for _ in range(count))


# (largest field size, shares by place in hundredths of a percent), smallest fields first
PAYOUT_TABLE: tuple[tuple[int, tuple[int, ...]], ...] = (
    # BARGE unified payouts (mb2-doc src/barge/payouts.md, its 2024 update for 5-8)
    (4, (10000,)),
    (8, (6500, 3500)),
    (15, (5000, 3000, 2000)),
    (24, (4200, 2600, 1800, 1400)),
    # BARGE Unified Tournament Payouts sheet (mb2-doc src/barge/Unified_BARGE_payouts.pdf)
    (35, (3600, 2400, 1700, 1300, 1000)),
    (47, (3100, 2200, 1700, 1300, 1000, 700)),
    (60, (2800, 2100, 1600, 1300, 1000, 700, 500)),
    (80, (2700, 2000, 1500, 1200, 1000, 700, 500, 400)),
    (100, (2600, 1900, 1500, 1200, 900, 700, 500, 300, 200, 200)),
    (120, (2500, 1900, 1400, 1100, 900, 700, 500, 300, 200, 200, 150, 150)),
    (140, (2500, 1900, 1400, 1100, 800, 600, 400, 300, 200, 200, 150, 150, 100, 100, 100)),
    (160, (2500, 1800, 1400, 1100, 800, 600, 400, 300, 200, 200, 150, 150,
           100, 100, 100, 100)),
    (215, (2450, 1800, 1350, 1100, 700, 500, 400, 300, 200, 200, 150, 150,
           100, 100, 100, 100, 75, 75, 75, 75)),
    # Fabulous Poker prize structures, part 2 (fabulouspoker.com/poker-tournaments-online/
    # prize-structures): places 10-12, 13-15, ... are paid alike
    (290, (2150, 1325, 950, 725, 550, 420, 310, 250, 200)
          + _run((3, 160), (3, 130), (3, 105), (9, 85), (9, 70), (9, 60))),
    (415, (2050, 1275, 900, 670, 520, 390, 290, 230, 180)
          + _run((3, 140), (3, 110), (3, 90), (9, 75), (9, 60), (9, 50), (18, 45))),
    (550, (1950, 1225, 850, 650, 500, 370, 270, 220, 170)
          + _run((3, 130), (3, 105), (3, 85), (9, 65), (9, 55), (9, 45), (18, 40),
                 (18, 35))),
    (700, (1925, 1200, 825, 640, 490, 360, 265, 215, 165)
          + _run((3, 130), (3, 105), (3, 80), (9, 60), (9, 50), (9, 40), (18, 35),
                 (18, 30), (18, 25))),
    (900, (1920, 1190, 825, 635, 485, 355, 260, 210, 160)
          + _run((3, 125), (3, 100), (3, 75), (9, 55), (9, 45), (9, 35), (18, 29),
                 (18, 24), (18, 21), (27, 19))),
    (LARGEST, (1911, 1180, 820, 630, 480, 350, 255, 205, 155)
          + _run((3, 123), (3, 95), (3, 70), (9, 52), (9, 42), (9, 33), (18, 26),
                 (18, 21), (18, 18), (27, 16), (27, 15))),
)  # fmt: skip


def shares(entrants: int) -> tuple[int, ...]:
    """The shares of the pool by place, in hundredths of a percent, for a field of
    ``entrants`` (2 to :data:`LARGEST`)."""
    if entrants < 2:
        raise ValueError(f"a tournament has at least 2 entrants, got {entrants}")
    for largest, row in PAYOUT_TABLE:
        if entrants <= largest:
            return row
    raise ValueError(f"no payout row for {entrants} entrants")


def paid_places(entrants: int) -> int:
    """How many places a field of ``entrants`` pays."""
    return len(shares(entrants))


def percentages(entrants: int) -> tuple[float, ...]:
    """The payout percentages by place (whole numbers where they are whole)."""
    return tuple(s // 100 if s % 100 == 0 else s / 100 for s in shares(entrants))


def prizes_by_place(pool: int, entrants: int) -> list[int]:
    """Prize of place 1, 2, ... (floored shares, the rest to first): adds up to ``pool``."""
    if pool < 0:
        raise ValueError(f"pool must be >= 0, got {pool}")
    prizes = [pool * share // WHOLE for share in shares(entrants)]
    prizes[0] += pool - sum(prizes)
    return prizes


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
    """Standings points: the payout table's percentages floored, at least 1 for a paid
    place, split like the prizes."""
    whole = [max(1, share // 100) for share in shares(len(places))]
    values = whole + [0] * (len(places) - len(whole))
    return _split(values, places, order)
