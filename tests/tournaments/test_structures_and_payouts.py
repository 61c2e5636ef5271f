"""Structures follow RULES.md 8.1 and real limit sheets; payouts add up to the pool."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.engine import VARIANTS
from bot.tournaments import payouts, structures
from bot.tournaments.payouts import Bust


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_levels_rise_and_follow_section_8_1(variant: str) -> None:
    levels = structures.STRUCTURES[variant]
    assert [lv.number for lv in levels] == list(range(1, len(levels) + 1))
    previous = 0
    for level in levels:
        stakes = level.stakes_json()
        assert (
            set(stakes)
            == {
                "a6-draw": {"ante", "small_bet", "big_bet"},
                "a5-draw": {"ante", "small_bet", "big_bet"},
                "a5-triple": {"small_blind", "big_blind", "small_bet", "big_bet"},
                "abyssinia": {"ante", "bet", "prices"},
            }[variant]
        )
        for value in stakes.values():
            for v in value if isinstance(value, list) else [value]:
                assert isinstance(v, int) and v >= 1
        assert level.big_bet > previous  # every level raises the stakes
        previous = level.big_bet
        if variant == "a5-triple":  # limit blinds: BB = small bet, SB about half, no ante
            assert stakes["big_blind"] == stakes["small_bet"]
            assert stakes["small_blind"] * 2 == stakes["big_blind"]
            assert stakes["big_bet"] == 2 * stakes["small_bet"]
        elif variant == "abyssinia":  # prices in the cash table's proportion to the bet
            bet = stakes["bet"]
            assert stakes["prices"] == [2 * bet, bet, 4 * bet]
            assert stakes["ante"] <= bet  # type: ignore[operator]
        else:
            assert stakes["big_bet"] == 2 * stakes["small_bet"]  # type: ignore[operator]
            assert 4 * stakes["ante"] <= stakes["small_bet"] * 2  # type: ignore[operator]


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_default_stack_is_deep_and_last_level_holds(variant: str) -> None:
    level1 = structures.level_at(variant, 1)
    assert 50 * level1.big_bet <= structures.DEFAULT_STACK
    assert structures.smallest_stack(variant) == 50 * level1.big_bet
    last = structures.level_at(variant, structures.LAST_LEVEL)
    assert structures.level_at(variant, 999) == last
    assert structures.level_at(variant, 0) == level1


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_the_stakes_outgrow_any_tournaments_chips_so_every_tournament_ends(variant: str) -> None:
    """Fixed limit with stakes that stop rising never ends a big field: the benchmark's
    1,000 entrants (2,000 chips each) reached heads-up with 100 big bets of the sheet's last
    level and played on for ever. Past the sheet's 20 levels the stakes keep its rhythm (each
    level the one seven before, times ten), up to a level whose big bet covers the chips of
    the largest tournament there can be; they are whole numbers, in the sheet's rules."""
    sheet = structures.STRUCTURES[variant]
    assert [structures.level_at(variant, n) for n in range(1, len(sheet) + 1)] == list(sheet)
    last = structures.level_at(variant, 999)
    assert last.big_bet >= structures.MAX_STACK * 1000  # the most chips a tournament holds
    assert structures.LAST_LEVEL <= 60  # 4 hours of turbo levels, 12 of slow ones
    for n in range(len(sheet) + 1, structures.LAST_LEVEL + 1):
        level, before = structures.level_at(variant, n), structures.level_at(variant, n - 7)
        assert level.number == n and level.big_bet == 10 * before.big_bet
        assert level.stakes_json() == {
            k: [10 * x for x in v] if isinstance(v, list) else 10 * v
            for k, v in before.stakes_json().items()
        }
        assert structures.level_number(variant, level.stakes_json()) == n
    # the rhythm goes on: 10,000 then 15,000, 20,000, 30,000 ... as 1,000, 1,500, 2,000, 3,000
    assert [structures.unit(n) for n in range(19, 25)] == [8000, 10000, 15000, 20000, 30000, 40000]


def test_speeds() -> None:
    assert structures.level_seconds(structures.Speed.TURBO) == 240.0
    assert structures.level_seconds(structures.Speed.REGULAR) == 480.0
    assert structures.level_seconds(structures.Speed.SLOW) == 720.0


def test_barge_unified_rows() -> None:
    assert payouts.percentages(2) == (100,)
    assert payouts.percentages(4) == (100,)
    assert payouts.percentages(5) == (65, 35)
    assert payouts.percentages(8) == (65, 35)
    assert payouts.percentages(9) == (50, 30, 20)
    with pytest.raises(ValueError):
        payouts.percentages(1)


def test_the_rows_past_24_entrants_follow_the_published_sheets() -> None:
    # BARGE's unified sheet from 25 to 215 entrants, then Fabulous Poker's by entries
    assert payouts.percentages(25) == (36, 24, 17, 13, 10)
    assert payouts.percentages(100) == (26, 19, 15, 12, 9, 7, 5, 3, 2, 2)
    assert payouts.percentages(161)[:3] == (24.5, 18, 13.5)
    assert payouts.percentages(215)[-4:] == (0.75,) * 4
    assert payouts.paid_places(216) == 45
    assert payouts.percentages(1000)[:2] == (19.11, 11.8)
    assert payouts.paid_places(1000) == 153
    with pytest.raises(ValueError):
        payouts.shares(1001)


def test_every_field_from_2_to_1000_pays_exactly_the_pool_best_places_most() -> None:
    paid_before = 0
    for entrants in range(2, 1001):
        row = payouts.shares(entrants)
        assert sum(row) == payouts.WHOLE, entrants
        assert list(row) == sorted(row, reverse=True), entrants
        # more entrants never pay fewer places; the last paid place gets the fee back
        assert len(row) >= paid_before, entrants
        paid_before = len(row)
        for fee in (1, 7, 100, 12_345):
            pool = fee * entrants
            prizes = payouts.prizes_by_place(pool, entrants)
            assert sum(prizes) == pool, (entrants, fee)
            assert prizes == sorted(prizes, reverse=True), (entrants, fee)
            assert prizes[-1] >= fee, (entrants, fee)
        places = {u: u for u in range(1, entrants + 1)}
        order = list(places)
        got = payouts.prizes(100 * entrants, places, order)
        assert sum(got.values()) == 100 * entrants
        points = payouts.points(places, order)
        assert [points[u] > 0 for u in order] == [u <= len(row) for u in order]


def test_a_big_field_with_a_tie_splits_the_pooled_places() -> None:
    # 1,000 entrants of 10 chips: places 150 and 151 tied, they pool 0.15 % + 0.15 %
    places = {u: u for u in range(1, 1001)}
    places[151] = 150
    got = payouts.prizes(10_000, places, list(range(1, 1001)))
    assert sum(got.values()) == 10_000
    assert got[150] == got[151] == 15 and got[152] == 15 and got[154] == 0


def test_prizes_floor_and_remainder_to_first() -> None:
    assert payouts.prizes_by_place(1001, 6) == [651, 350]
    assert payouts.prizes_by_place(0, 3) == [0]
    places = {1: 1, 2: 2, 3: 3, 4: 4, 5: 5}
    assert payouts.prizes(1001, places, [1, 2, 3, 4, 5]) == {1: 651, 2: 350, 3: 0, 4: 0, 5: 0}


def test_two_out_in_one_hand_more_chips_places_higher() -> None:
    busts = [Bust(7, 100), Bust(8, 300), Bust(9, 50)]
    assert payouts.places_for_busts(busts, remaining=2) == {8: 3, 7: 4, 9: 5}


def test_equal_chips_share_places_and_split_their_prizes() -> None:
    # 5 entrants, 65/35 of 1001; two out together in the heads-up-making hand with
    # equal chips: they share place 2 and split 2nd + 3rd place prizes (350 + 0).
    places = payouts.places_for_busts([Bust(3, 500), Bust(4, 500)], remaining=1)
    assert places == {3: 2, 4: 2}
    final = {1: 1, **places, 5: 4, 6: 5}
    got = payouts.prizes(1001, final, [1, 3, 4, 5, 6])
    assert got == {1: 651, 3: 175, 4: 175, 5: 0, 6: 0}
    assert payouts.points(final, [1, 3, 4, 5, 6]) == {1: 65, 3: 18, 4: 17, 5: 0, 6: 0}


def test_heads_up_bust_both_share_first() -> None:
    # everyone left goes out in one hand with equal chips: first place is shared
    places = payouts.places_for_busts([Bust(1, 40), Bust(2, 40)], remaining=0)
    assert places == {1: 1, 2: 1}
    assert payouts.prizes(101, {**places, 3: 3}, [1, 2, 3]) == {1: 51, 2: 50, 3: 0}


@given(
    pool=st.integers(0, 10**7),
    starts=st.lists(st.integers(1, 5), min_size=2, max_size=24),
)
def test_prizes_always_add_up_to_the_pool(pool: int, starts: list[int]) -> None:
    # a random field, eliminated in random groups with random (often equal) chips
    users = list(range(len(starts)))
    places: dict[int, int] = {}
    remaining = len(users)
    i = 0
    while i < len(users):
        group = users[i : i + starts[i] % 3 + 1]
        remaining -= len(group)
        places.update(
            payouts.places_for_busts([Bust(u, starts[u]) for u in group], remaining=remaining)
        )
        i += len(group)
    got = payouts.prizes(pool, places, users)
    assert sum(got.values()) == pool
    assert all(v >= 0 for v in got.values())
    # no better place is paid less than a worse one
    for a in users:
        for b in users:
            if places[a] < places[b]:
                assert got[a] >= got[b] - 1  # an odd chip of a split may go either way
            elif places[a] == places[b]:  # a shared place is shared evenly
                assert abs(got[a] - got[b]) <= 1
            else:
                assert got[a] <= got[b] + 1


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_every_level_is_a_valid_engine_stakes(variant: str) -> None:
    from bot.engine.stakes import Stakes

    for level in structures.STRUCTURES[variant]:
        stakes = Stakes.from_json(variant, level.stakes_json())  # RecordError if bad
        assert stakes.to_json() == level.stakes_json()
