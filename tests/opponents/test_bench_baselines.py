"""The bench's rule-based sparring partners (bench/opponents.py): ``td-pro`` plays by the
published triple-draw rules it cites, and every baseline plays whole legal matches."""

from __future__ import annotations

import pytest

from bench.opponents import (
    BASELINE_KINDS,
    GAMES,
    MIXED,
    MIXED_SEATS,
    POSITIONS,
    STACK,
    run_chunk,
    td_keep,
    td_opening_class,
)
from bot.engine.cards import format_cards, parse_cards


def kept(cards: str, left: int, opp_draw: int, multiway: bool = False) -> list[str]:
    return sorted(format_cards(td_keep(parse_cards(cards), left, opp_draw, multiway)))


def test_td_pro_stands_pat_or_breaks_after_the_second_draw_as_published():
    """Against one player drawing one with a draw to come: an eight and a nine stand pat,
    a ten is broken to its four low cards."""
    assert len(kept("8c 4d 3h 2s Ac", 1, 1)) == 5
    assert len(kept("9c 4d 3h 2s Ac", 1, 1)) == 5
    assert kept("Tc 4d 3h 2s Ac", 1, 1) == sorted(["4d", "3h", "2s", "Ac"])
    # Against a player drawing two the ten stands pat; against a pat hand the nine breaks.
    assert len(kept("Tc 4d 3h 2s Ac", 1, 2)) == 5
    assert len(kept("9c 4d 3h 2s Ac", 1, 0)) == 4


def test_td_pro_keeps_a_pat_seven_heads_up_and_breaks_24567_multiway():
    assert len(kept("7c 6d 5h 4s 2c", 3, 3)) == 5
    assert kept("7c 6d 5h 4s 2c", 3, 3, multiway=True) == sorted(["6d", "5h", "4s", "2c"])


def test_td_pro_draws_to_the_low_cards_within_its_caps():
    assert kept("Kc Qd 5h 3s Ac", 3, 3) == sorted(["5h", "3s", "Ac"])  # three to a wheel
    assert kept("Kc 8d 7h 3s Ac", 3, 3) == sorted(["7h", "3s", "Ac"])  # the eight goes early
    assert kept("Kc 8d 7h 3s Ac", 2, 1) == sorted(["8d", "7h", "3s", "Ac"])  # not later


@pytest.mark.parametrize(
    ("cards", "cls"),
    [
        ("7c 6d 4h 3s 2c", 4),  # a made seven
        ("Kc 5d 4h 2s Ac", 4),  # four to a wheel
        ("Kc 7d 4h 2s Ac", 3),  # four to a seven
        ("Kc Qd 4h 2s Ac", 3),  # three to a wheel
        ("Kc Qd 6h 2s Ac", 2),  # three to a six
        ("Kc Qd Jh 2s Ac", 1),  # A2: steal and defend
        ("Kc Qd Jh 9s 8c", 0),
    ],
)
def test_td_pro_starting_hand_classes(cards, cls):
    assert td_opening_class(parse_cards(cards)) == cls


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("baseline", BASELINE_KINDS)
def test_every_baseline_plays_a_table_session_against_hard(game, baseline):
    """One task of the bench (25 decks, both seats): every move legal (the engine refuses
    any other), every hand finished, and the chips add up."""
    chunk = run_chunk((game, 2, "hard", baseline, 7, False))
    assert chunk.hands == 50
    assert len(chunk.deck_nets) == 25
    # No hand moves more than a stack: per deck at most a stack per hand in big bets (one chip).
    assert all(abs(x) <= STACK * 100 for x in chunk.deck_nets)


def test_a_mixed_table_session_deals_every_game_in_turn():
    """``--games mixed``: each deck deals the next game of the rotation, at five seats too."""
    chunk = run_chunk((MIXED, MIXED_SEATS, "hard", "td-pro", 0, False))
    assert MIXED_SEATS == 5
    assert chunk.hands == 25 * 5
    assert len(chunk.deck_nets) == 25
    assert [GAMES[seed % len(GAMES)] for seed in range(4)] == list(GAMES)


def test_the_diagnosis_splits_the_result_by_position_and_by_how_hands_ended():
    """``--diagnose`` at six seats of triple draw: each kind of bucket (position, how the
    hand ended, starting class) covers every hand once, and its nets add up to the
    pairing's result."""
    chunk = run_chunk(("a5-triple", 6, "hard", "td-pro", 3, True))
    assert chunk.diag is not None
    result = sum(chunk.deck_nets) * 6 / 100  # big bets over all hands
    positions = {k: v for k, v in chunk.diag.items() if k.startswith("position ")}
    assert sorted(positions) == [f"position {p}" for p in sorted(POSITIONS[6])]
    for kind in ("position ", "end: ", "class "):
        rows = [v for k, v in chunk.diag.items() if k.startswith(kind) and " at " not in k]
        assert sum(n for n, _ in rows) == chunk.hands == 25 * 6
        assert sum(net for _, net in rows) == pytest.approx(result)
    assert any(k.startswith("did first: class ") for k in chunk.diag)
