"""Tournament hands (RULES.md §8) in the history package: replay steps, the PokerStars
export with its "Main pot … Side pot-1 …" lines, the public log and the statistics."""

from __future__ import annotations

import dataclasses
import random

import pytest

from bot.engine.record import parse_record
from bot.engine.simulate import random_action
from bot.history.hand_stats import hand_stats
from bot.history.handtext import hand_text, roman
from bot.history.publiclog import public_log_csv
from bot.history.replay_steps import replay_steps
from tests.support.engine_helpers import LEVEL_ROWS, tournament_hand
from tests.support.history_helpers import card_words, seen, step_cards, stored
from tests.support.tournament_hands import (
    DRAW_10_20_40,
    SIDE_POT_DECK,
    aby_record,
    hand_of,
    side_pot_record,
    tournament,
)


def short_stacks_hand():
    """Ann and Ben are all-in from their antes; Cara's 5 above them comes back."""
    stacks = {"ann": 5, "ben": 5, "cara": 200}
    actions = ["ann discard", "ben discard", "cara discard"]
    return hand_of(tournament("a5-draw", stacks, 2, SIDE_POT_DECK, actions, DRAW_10_20_40))


def test_replay_steps_of_a_tournament_record_keep_its_stakes_and_all_ins():
    record = parse_record(side_pot_record())
    steps = replay_steps(record, "ben")
    assert steps[0].public.stakes.ante == 10 and steps[0].public.tournament
    bet = steps[1]
    assert (bet.actor, bet.action, bet.amount, bet.all_in) == ("ann", "bet", 15, True)
    raise_ = steps[2]
    assert (raise_.action, raise_.amount, raise_.to_call, raise_.all_in) == ("raise", 35, 15, False)
    final = steps[-1].public
    assert [(p.amount, p.winners) for p in final.pots] == [(75, ("ann",)), (120, ("cara",))]
    assert final.net == {"ann": 50, "ben": -85, "cara": 35}


def test_pokerstars_text_of_the_side_pot_hand_line_by_line():
    text = hand_text(stored(hand_of(side_pot_record())), "ann")
    assert text.splitlines() == [
        "PokerBot Hand #7: Ace-to-Five Lowball Draw (20/40 Fixed Limit, ante 10)"
        " - 1970/01/01 00:00:20 UTC",
        "Table '2' 5-max Seat #3 is the button",
        "Seat 1: Nameann (25 in chips)",
        "Seat 2: Nameben (200 in chips)",
        "Seat 3: Namecara (200 in chips)",
        "Nameann: posts the ante 10",
        "Nameben: posts the ante 10",
        "Namecara: posts the ante 10",
        "*** DEALING HANDS ***",
        "Dealt to Nameann [5h 4h 3s 2d Ac]",
        "Nameann: bets 15 and is all-in",
        "Nameben: raises 20 to 35",
        "Namecara: calls 35",
        "*** FIRST DRAW ***",
        "Nameann: stands pat",
        "Dealt to Nameann [5h 4h 3s 2d Ac]",
        "Nameben: stands pat",
        "Namecara: stands pat",
        "Nameben: checks",
        "Namecara: bets 40",
        "Nameben: calls 40",
        "*** SHOW DOWN ***",
        "Nameann: shows [5h 4h 3s 2d Ac]",
        "Nameben: shows [Kc Qd Jh 9s 8c]",
        "Namecara: shows [7c 5d 4c 3h 2c]",
        "Nameann collected 75 from main pot with 5-4-3-2-A, five low",
        "Namecara collected 120 from side pot-1 with 7-5-4-3-2, seven low",
        "*** SUMMARY ***",
        "Total pot 195 Main pot 75. Side pot-1 120.",
        "Seat 1: Nameann showed [5h 4h 3s 2d Ac] and won (75), net +50",
        "Seat 2: Nameben showed [Kc Qd Jh 9s 8c] and lost, net -85",
        "Seat 3: Namecara (button) showed [7c 5d 4c 3h 2c] and won (120), net +35",
    ]


def test_pokerstars_text_of_abyssinia_pays_each_half_of_each_pot():
    lines = hand_text(stored(hand_of(aby_record())), "dan").splitlines()
    assert "Namedan: buys [As] blind for 2 and is all-in" in lines
    assert "Namedan: receives [2d] blind, free (all-in)" in lines
    assert lines[lines.index("*** SHOW DOWN ***") + 4 :][:6] == [
        "Nameanna collected 8 from high main pot with three nines",
        "Namedan collected 7 from low main pot with K-4-3-2-A, king low",
        "Nameanna collected 6 from high side pot-1 with three nines",
        "Nameben collected 5 from low side pot-1 with pair of fives",
        "*** SUMMARY ***",
        "Total pot 26 Main pot 15. Side pot-1 11.",
    ]


def test_pokerstars_text_returns_the_uncalled_chips_and_short_antes_are_all_in():
    lines = hand_text(stored(short_stacks_hand()), "cara").splitlines()
    assert "Nameann: posts the ante 5 and is all-in" in lines
    assert "Namecara: posts the ante 10" in lines
    assert "Uncalled bet (5) returned to Namecara" in lines
    assert "Nameann collected 15 from pot with 5-4-3-2-A, five low" in lines
    assert "Total pot 15" in lines
    assert lines[-1] == "Seat 3: Namecara (button) showed [7c 5d 4c 3h 2c] and lost, net -5"


def test_short_big_blind_is_posted_as_such_in_the_text():
    stakes = {"small_blind": 10, "big_blind": 20, "small_bet": 20, "big_bet": 40}
    rec = tournament("a5-triple", {"sam": 500, "ann": 500, "bob": 5}, 0, SIDE_POT_DECK, [], stakes)
    lines = hand_text(stored(hand_of(rec), finished=False), "sam").splitlines()
    assert "Nameann: posts small blind 10" in lines
    assert "Namebob: posts big blind 5 and is all-in" in lines


def test_a_tournament_hand_is_headed_as_pokerstars_heads_one():
    """Issue 36 item 5: "PokerStars Hand #N: Tournament #T, … Level II (10/20)"; the
    tournament's table is "'T 1'", and no "(practice)" note (its chips are its own)."""
    sng = dataclasses.replace(
        stored(hand_of(side_pot_record())), practice=True, tournament_id=3, level=2
    )
    lines = hand_text(sng, "ann").splitlines()
    assert lines[:2] == [
        "PokerBot Hand #7: Tournament #3, Ace-to-Five Lowball Draw Fixed Limit - Level II "
        "(20/40) - 1970/01/01 00:00:20 UTC",
        "Table '3 1' 5-max Seat #3 is the button",
    ]
    assert "Total pot 195 Main pot 75. Side pot-1 120." in lines  # the rest as before
    unknown = hand_text(dataclasses.replace(sng, level=None), "ann").splitlines()[0]
    assert " - Level ? (20/40) - " in unknown  # stakes of no level of ours
    log, _ = public_log_csv([sng])
    assert "(Ace-to-Five Lowball Draw, 20/40 Fixed Limit, ante 10) (tournament #3, level 2)" in log
    plain, _ = public_log_csv([stored(hand_of(side_pot_record()))])
    assert "tournament" not in plain
    assert [roman(n) for n in (1, 2, 4, 9, 14, 19, 20)] == [
        "I", "II", "IV", "IX", "XIV", "XIX", "XX"
    ]  # fmt: skip


def test_public_log_names_the_main_and_side_pots():
    log, _ = public_log_csv([stored(hand_of(side_pot_record()))])
    assert '""Nameann @ ann"" bets 15 and go all in' in log
    assert '""Nameann @ ann"" collected 75 from the main pot with 5-4-3-2-A' in log
    assert '""Namecara @ cara"" collected 120 from side pot 1 with 7-5-4-3-2' in log


def test_stats_do_not_count_chips_coming_back_as_a_showdown_won():
    stats = hand_stats(short_stacks_hand())
    assert stats["cara"].showdown == 1 and stats["cara"].showdown_won == 0
    assert stats["cara"].net == -5
    assert stats["ann"].showdown_won == 1 and stats["ann"].net == 10
    side = hand_stats(hand_of(side_pot_record()))
    assert [side[p].showdown_won for p in ("ann", "ben", "cara")] == [1, 0, 1]
    aby = hand_stats(hand_of(aby_record()))
    assert (aby["dan"].won_high, aby["dan"].won_low) == (0, 1)
    assert (aby["anna"].won_high, aby["anna"].won_low) == (1, 0)


@pytest.mark.parametrize("variant", sorted(LEVEL_ROWS))
def test_tournament_steps_and_exports_hold_only_what_each_viewer_saw(variant):
    for seed in range(15):
        rng = random.Random(seed)
        seats = rng.randint(2, 5)
        stakes = rng.choice(LEVEL_ROWS[variant])
        unit = stakes.get("big_bet") or stakes.get("bet")
        stacks = [rng.randint(1, 12 * unit) for _ in range(seats)]
        hand = tournament_hand(variant, stakes, stacks, rng.randrange(seats), rng)
        while not hand.complete:
            hand.apply(random_action(hand, rng))
        record = hand.record()
        for viewer in [None, *hand.players]:
            allowed = seen(record, viewer)
            for step in replay_steps(record, viewer):
                assert step_cards(step) <= allowed, (seed, viewer, step.kind)
        for player in hand.players:  # the hand's text is each player's own
            text = hand_text(stored(hand), player)
            assert card_words(text) <= seen(record, player), (seed, player)
            assert f"Total pot {hand.pot - _returned(hand)}" in text
        log, _ = public_log_csv([stored(hand)])
        assert card_words(log) <= seen(record, None), seed


def _returned(hand) -> int:
    pots = hand.pots()
    if len(pots) < 2:
        return 0
    return sum(p.amount for p in pots if len(p.players) == 1)
