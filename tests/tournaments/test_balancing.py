"""The multi-table planner: seat draw, who moves where, breaking, holds, hand-for-hand."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.tournaments.balancing import (
    ConservationError,
    Field,
    Move,
    MoveReason,
    Plan,
    Seat,
    TableState,
    apply_plan,
    draw_seats,
    eliminate,
    hand_for_hand,
    late_seat,
    next_big_blind,
    plan,
    table_count,
    worst_seat,
)


def table(number: int, seats: dict[int, int], button: int | None = None, *, busy: bool = False):
    """A table whose seat n holds player ``seats[n]`` with 1000 + player chips."""
    rows = tuple(Seat(n, p, 1000 + p) for n, p in sorted(seats.items()))
    return TableState(number, rows, button, busy)


def fld(size: int, *tables: TableState) -> Field:
    """A field of ``tables`` whose highest number breaks first."""
    return Field(size, tables, tuple(sorted((t.number for t in tables), reverse=True)))


def counts(field: Field) -> list[int]:
    return [t.count for t in field.tables]


def test_the_draw_deals_round_robin_across_ceil_n_over_size_tables() -> None:
    stacks = {p: 3000 for p in range(1, 21)}
    field = draw_seats(stacks, 6, random.Random(7))
    assert counts(field) == [5, 5, 5, 5]  # ceil(20 / 6) = 4 tables
    assert field.break_order == (4, 3, 2, 1)  # fixed at the start, highest first
    seated = sorted(s.player for t in field.tables for s in t.seats)
    assert seated == list(range(1, 21))
    assert field.chips() == 60_000
    assert all(0 <= s.seat < 6 for t in field.tables for s in t.seats)
    again = draw_seats(stacks, 6, random.Random(7))
    assert again == field  # the injected RNG decides everything
    assert draw_seats(stacks, 6, random.Random(8)) != field


def test_the_mover_is_the_player_about_to_post_the_big_blind() -> None:
    # button at seat 0: seat 1 deals next, seat 2 posts the small blind, seat 3 the big
    assert next_big_blind(table(1, {0: 10, 1: 11, 2: 12, 3: 13, 4: 14}, 0)).player == 13
    # the button wraps around: seat 4 dealt, seat 0 deals, 1 small, 3 big (2 is empty)
    assert next_big_blind(table(1, {0: 10, 1: 11, 3: 13, 4: 14}, 4)).player == 13
    # heads-up the dealer posts the small blind and the other the big one
    assert next_big_blind(table(1, {0: 10, 2: 12}, 0)).player == 10


def test_the_destination_seat_is_the_one_that_posts_the_big_blind_soonest() -> None:
    # seats 0, 1, 3 taken, button 0: seat 1 deals next. Seat 2 would be the small blind
    # (three hands from the big one); seats 4 and 5 would post the big blind at once.
    assert worst_seat(table(2, {0: 20, 1: 21, 3: 23}, 0), 6) == 4
    # button at 3: seat 0 deals, 1 small blind; seat 2 posts the big blind next
    assert worst_seat(table(2, {0: 20, 1: 21, 3: 23}, 3), 6) == 2


def test_balancing_moves_the_next_big_blind_into_the_worst_seat() -> None:
    full = table(1, {n: 10 + n for n in range(6)}, 0)
    field = fld(6, full, table(2, {0: 20, 1: 21, 3: 23, 4: 24}, 0))
    result = plan(field, random.Random(1))
    assert result.moves == (Move(13, 1, 3, 2, 5, MoveReason.BALANCE),)
    after = apply_plan(field, result)
    assert counts(after) == [5, 5]
    assert after.chips() == field.chips()
    assert after.table(2).seats[-1] == Seat(5, 13, 1013)  # the stack moved with the player


def test_a_table_in_a_hand_is_never_touched_and_its_partner_waits() -> None:
    full = table(1, {n: 10 + n for n in range(6)}, 0, busy=True)
    busy = fld(6, full, table(2, {0: 20, 1: 21, 2: 22, 3: 23}))
    result = plan(busy, random.Random(1))
    assert result.moves == ()
    assert result.hold == {2}  # the short table deals no hand until table 1's ends
    idle = replace_table(busy, table(1, {n: 10 + n for n in range(6)}, 0))
    assert plan(idle, random.Random(1)).moves != ()


def replace_table(field: Field, new: TableState) -> Field:
    tables = tuple(new if t.number == new.number else t for t in field.tables)
    return Field(field.size, tables, field.break_order)


def test_a_table_breaks_when_the_players_fit_on_one_fewer_in_the_fixed_order() -> None:
    one, two = table(1, {0: 10, 1: 11, 2: 12, 3: 13}), table(2, {0: 20, 1: 21, 2: 22, 3: 23})
    field = fld(6, one, two, table(3, {0: 30, 1: 31, 2: 32}))
    result = plan(field, random.Random(3))
    assert result.broken == (3,)
    assert sorted(m.player for m in result.moves) == [30, 31, 32]
    assert {m.reason for m in result.moves} == {MoveReason.BREAK}
    after = apply_plan(field, result)
    assert [t.number for t in after.tables] == [1, 2]
    assert sorted(counts(after)) == [5, 6]
    assert after.break_order == (2, 1)
    assert after.chips() == field.chips()


def test_a_break_waits_for_the_hand_at_the_breaking_table() -> None:
    one, two = table(1, {0: 10, 1: 11, 2: 12, 3: 13}), table(2, {0: 20, 1: 21, 2: 22, 3: 23})
    field = fld(6, one, two, table(3, {0: 30, 1: 31, 2: 32}, busy=True))
    result = plan(field, random.Random(3))
    assert result.moves == () and result.broken == ()
    assert result.hold == {1, 2}  # the tables that will take its players wait for it


def test_hand_for_hand_starts_at_the_bubble_and_holds_the_idle_tables() -> None:
    assert not hand_for_hand(players_left=6, paid_places=4, tables=2)
    assert hand_for_hand(players_left=5, paid_places=4, tables=2)  # the bubble
    assert hand_for_hand(players_left=4, paid_places=4, tables=2)
    assert not hand_for_hand(players_left=5, paid_places=4, tables=1)  # one table: no wait
    field = fld(6, table(1, {0: 10, 1: 11, 2: 12}, busy=True), table(2, {0: 20, 1: 21}))
    # five players fit on one table: the break waits for table 1's hand, table 2 waits
    result = plan(field, random.Random(1), paid_places=4)
    assert result.hold == {2}
    field = fld(3, table(1, {0: 10, 1: 11, 2: 12}, busy=True), table(2, {0: 20, 1: 21}))
    result = plan(field, random.Random(1), paid_places=4)
    assert result.hand_for_hand and result.moves == () and result.hold == {2}
    assert not plan(field, random.Random(1), paid_places=2).hand_for_hand


def test_a_late_player_sits_at_a_table_with_the_fewest_players() -> None:
    field = fld(3, table(1, {0: 10, 1: 11, 2: 12}), table(2, {0: 20, 2: 22}, busy=True))
    seated, move = late_seat(field, 99, 3000, random.Random(1))
    assert (move.to_table, move.to_seat, move.reason) == (2, 1, MoveReason.LATE)
    assert seated.chips() == field.chips() + 3000
    full, move = late_seat(seated, 98, 3000, random.Random(1))
    assert move.to_table == 3  # every table was full: a new one opens and breaks first
    assert full.break_order == (3, 2, 1)
    with pytest.raises(ValueError, match="already seated"):
        late_seat(full, 98, 3000, random.Random(1))


def test_a_plan_that_would_lose_or_duplicate_chips_is_refused() -> None:
    field = Field(6, (table(1, {0: 10, 1: 11}), table(2, {0: 20}, busy=True)), (2, 1))
    taken = Plan(moves=(Move(10, 1, 0, 1, 1, MoveReason.BALANCE),))
    with pytest.raises(ConservationError, match="not free"):
        apply_plan(field, taken)
    into_hand = Plan(moves=(Move(10, 1, 0, 2, 3, MoveReason.BALANCE),))
    with pytest.raises(ConservationError, match="in a hand"):
        apply_plan(field, into_hand)
    wrong_seat = Plan(moves=(Move(10, 1, 1, 1, 4, MoveReason.BALANCE),))
    with pytest.raises(ConservationError, match="not in that seat"):
        apply_plan(field, wrong_seat)
    seated = Plan(broken=(1,))
    with pytest.raises(ConservationError, match="still seated"):
        apply_plan(field, seated)
    with pytest.raises(ConservationError, match="out with 1010 chips"):
        eliminate(field, [10])


def bust(field: Field, players: list[int], rng: random.Random) -> Field:
    """Each player in ``players`` loses their stack to a player left in play, then
    leaves: the chips in play do not change."""
    stacks = {s.player: s.stack for t in field.tables for s in t.seats}
    for player in players:
        winner = rng.choice(sorted(p for p in stacks if p not in players))
        stacks[winner] += stacks[player]
        stacks[player] = 0
    tables = tuple(  # and the buttons anywhere, as hands have moved them
        TableState(
            t.number,
            tuple(Seat(s.seat, s.player, stacks[s.player]) for s in t.seats),
            rng.choice([None, *range(field.size)]),
        )
        for t in field.tables
    )
    return eliminate(Field(field.size, tables, field.break_order), players)


def with_busy(field: Field, busy: set[int]) -> Field:
    tables = tuple(TableState(t.number, t.seats, t.button, t.number in busy) for t in field.tables)
    return Field(field.size, tables, field.break_order)


@settings(max_examples=200, deadline=None)
@given(st.integers(2, 6), st.integers(2, 80), st.integers(0, 2**32), st.integers(1, 30))
def test_any_plan_keeps_every_player_and_chip_and_ends_within_one(
    size: int, players: int, seed: int, rounds: int
) -> None:
    rng = random.Random(seed)
    field = draw_seats({p: rng.randint(1, 5000) for p in range(1, players + 1)}, size, rng)
    total = field.chips()
    for _ in range(rounds):
        if field.players_left < 2:
            break
        out = rng.sample(sorted(s.player for t in field.tables for s in t.seats),
                         rng.randint(0, min(3, field.players_left - 1)))  # fmt: skip
        field = bust(field, out, rng)
        # some tables are in a hand: the plan never touches them and still conserves
        busy = {t.number for t in field.tables if rng.random() < 0.4}
        mid = with_busy(field, busy)
        step = plan(mid, rng, paid_places=3)
        touched = {m.from_table for m in step.moves} | {m.to_table for m in step.moves}
        assert not touched & busy and not set(step.broken) & busy
        assert not step.hold & busy  # only idle tables are held
        field = apply_plan(mid, step)  # raises ConservationError on any loss
        assert field.chips() == total
        # then every hand ends: plans run until nothing is left to do
        field = with_busy(field, set())
        for _ in range(len(field.tables) + 1):
            step = plan(field, rng)
            if not step.moves and not step.broken:
                break
            assert not step.hold
            field = apply_plan(field, step)
        assert field.chips() == total
        seated = [s.player for t in field.tables for s in t.seats]
        assert len(seated) == len(set(seated)) == field.players_left
        assert max(counts(field)) - min(counts(field)) <= 1
        assert len(field.tables) == table_count(field.players_left, field.size)
