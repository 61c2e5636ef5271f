"""The pure rotation of a mixed table: which game each hand is dealt in (issue 38)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.engine import VARIANTS
from bot.tables.models import Code, Refused
from bot.tables.rotation import EVERY_RANGE, Rotation, RotationKind

ALL = tuple(VARIANTS)


def deal_games(rotation: Rotation, players: list[int]) -> tuple[list[str], Rotation]:
    """The game of each hand dealt to ``players[i]`` players, and the rotation after."""
    games = []
    for n in players:
        games.append(rotation.upcoming)
        rotation = rotation.dealt(n)
        assert rotation.games[rotation.current] == games[-1]  # dealt what it announced
    return games, rotation


def test_an_orbit_of_each_game_in_the_order_given() -> None:
    rotation = Rotation.make("orbit", ["a5-triple", "a6-draw", "abyssinia"])
    games, _ = deal_games(rotation, [3] * 9 + [2] * 2)
    assert games == ["a5-triple"] * 3 + ["a6-draw"] * 3 + ["abyssinia"] * 3 + ["a5-triple"] * 2


def test_every_n_hands_whatever_the_players() -> None:
    rotation = Rotation.make("hands", ["a6-draw", "a5-draw"], every=2)
    games, _ = deal_games(rotation, [2, 5, 3, 2, 4])
    assert games == ["a6-draw", "a6-draw", "a5-draw", "a5-draw", "a6-draw"]


def test_dealers_choice_first_orbit_is_the_first_game_then_the_pick_or_the_next() -> None:
    rotation = Rotation.make("choice", ["a5-draw", "abyssinia", "a6-draw"])
    assert not rotation.awaiting_choice
    games, rotation = deal_games(rotation, [2, 2])
    assert games == ["a5-draw"] * 2 and rotation.awaiting_choice
    assert rotation.upcoming == "abyssinia"  # the default: the next game in the list
    assert rotation.between_hands == "a5-draw"  # shown until the choice is made
    picked = rotation.choose("a6-draw")
    assert not picked.awaiting_choice and picked.upcoming == "a6-draw"
    games, after = deal_games(picked, [2, 2])
    assert games == ["a6-draw"] * 2 and after.awaiting_choice
    assert after.upcoming == "a5-draw"  # after a6-draw the list wraps round


def test_the_state_survives_json() -> None:
    rotation = Rotation.make("hands", ALL, every=3).dealt(4).dealt(4)
    assert Rotation.from_json(rotation.to_json()) == rotation
    chosen = Rotation.make("choice", ALL).dealt(2).dealt(2).choose("abyssinia")
    assert Rotation.from_json(chosen.to_json()) == chosen


def test_table_limits_are_the_strictest_of_the_games() -> None:
    rotation = Rotation.make("orbit", ["a5-triple", "abyssinia"])
    assert rotation.seat_limit == 6  # triple draw seats 6, Abyssinia 8
    assert rotation.minimum == 48  # triple draw's minimum is the larger
    assert Rotation.make("orbit", ["a6-draw", "abyssinia"]).seat_limit == 5


@pytest.mark.parametrize(
    ("kind", "games", "every", "code"),
    [
        ("orbit", ["a6-draw", "holdem"], None, Code.UNKNOWN_GAME),
        ("orbit", ["a6-draw"], None, Code.MIX_TOO_FEW),
        ("orbit", ["a6-draw", "a6-draw"], None, Code.MIX_TOO_FEW),
        ("hands", ["a6-draw", "a5-draw"], 0, Code.BAD_EVERY),
        ("hands", ["a6-draw", "a5-draw"], EVERY_RANGE[1] + 1, Code.BAD_EVERY),
        ("hands", ["a6-draw", "a5-draw"], None, Code.BAD_EVERY),
        ("random", ["a6-draw", "a5-draw"], None, Code.BAD_ROTATION),
    ],
)
def test_bad_settings_are_refused(
    kind: str, games: list[str], every: int | None, code: Code
) -> None:
    with pytest.raises(Refused) as refused:
        Rotation.make(kind, games, every)
    assert refused.value.code is code


def test_a_choice_out_of_turn_or_of_another_game_is_refused() -> None:
    rotation = Rotation.make("choice", ["a6-draw", "a5-draw"])
    with pytest.raises(Refused) as early:
        rotation.choose("a5-draw")  # the first orbit is not chosen
    assert early.value.code is Code.NO_CHOICE_NOW
    due = rotation.dealt(2).dealt(2)
    with pytest.raises(Refused) as other:
        due.choose("abyssinia")  # not one of this table's games
    assert other.value.code is Code.UNKNOWN_GAME
    assert due.awaiting_choice  # refusals change nothing (the value is frozen)


rotations = st.builds(
    lambda kind, games, every: Rotation.make(kind, games, every),
    st.sampled_from([k.value for k in RotationKind]),
    st.lists(st.sampled_from(ALL), min_size=2, max_size=4, unique=True),
    st.integers(*EVERY_RANGE),
)


@settings(max_examples=200, deadline=None)
@given(rotations, st.lists(st.integers(2, 8), min_size=1, max_size=60), st.data())
def test_the_game_changes_only_at_block_ends_and_every_game_comes_round(
    rotation: Rotation, players: list[int], data: st.DataObject
) -> None:
    dealt: list[str] = []
    blocks: list[tuple[str, int]] = []  # each block's game and its first hand's players
    for n in players:
        if rotation.awaiting_choice:  # a chooser picks, or lets the time run out
            pick = data.draw(st.sampled_from((None, *rotation.games)))
            rotation = rotation.choose(pick) if pick else rotation.choose(rotation.upcoming)
        starts = rotation.left == 0
        game = rotation.upcoming
        rotation = rotation.dealt(n)
        dealt.append(game)
        if starts:
            blocks.append((game, n))
        else:  # within a block the game never changes
            assert game == dealt[-2]
    # each block is as long as it should be (the last may be cut short)
    position = 0
    for game, n in blocks:
        size = rotation.every if rotation.kind is RotationKind.HANDS else n
        run = dealt[position : position + size]
        assert set(run) == {game}
        position += size
    if rotation.kind is not RotationKind.CHOICE:  # every game comes round, in order
        order = [g for g, _ in blocks]
        assert order == [rotation.games[i % len(rotation.games)] for i in range(len(order))]
    else:  # the chooser picks any of the rotation's games, and only those
        assert {g for g, _ in blocks} <= set(rotation.games)
