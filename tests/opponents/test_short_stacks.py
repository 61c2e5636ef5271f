"""Computer players in tournament hands (RULES.md §8): short stacks and all-ins.

Engine-level hands: every move a player returns is legal (no raise the rules forbid,
no fold when nothing is owed, only the free blind card when all-in), and a call is
priced by the pots the player can win.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings

from bot.engine import Action
from bot.opponents import KINDS, LEVELS, Strategy, observe
from bot.opponents.betting import PotShare, winnable_pots
from tests.support.engine_helpers import TOURNEYS, deck_for, tournament_hand
from tests.support.tournament_hands import hand_of, side_pot_record, tournament


@settings(max_examples=60, deadline=None)
@given(TOURNEYS)
def test_every_move_in_a_tournament_hand_is_legal_and_never_a_free_fold(game):
    variant, stakes, stacks, dealer, seed = game
    rng = random.Random(seed)
    hand = tournament_hand(variant, stakes, stacks, dealer, rng)
    bots = {p: Strategy(rng.choice(KINDS), random.Random(rng.random())) for p in hand.players}
    while not hand.complete:
        player = hand.players[hand.to_act]
        obs = observe(hand, player)
        move = bots[player].decide(obs)
        d = obs.decision
        assert move.action in d.legal  # in every phase, not only the betting
        assert not (move.action == "fold" and d.to_call == 0)
        hand.apply(move)  # IllegalAction fails the test
    assert sum(hand.payouts) == hand.pot


def test_winnable_pots_of_a_short_caller_stop_at_its_stack():
    hand = hand_of(side_pot_record(["ann bet"]))  # Ann all-in for 15 more; Ben to act
    pots = winnable_pots(observe(hand, "ben"))
    assert pots == [PotShare(25 + 25 + 10, ("ann", "cara"))]
    stacks = {"ann": 200, "ben": 20, "cara": 200}  # Ben calls 20 all-in for his last 10
    short = hand_of(tournament("a5-draw", stacks, 2, deck_for([], ""), ["ann bet"], ANTE_10))
    obs = observe(short, "ben")
    assert obs.decision.costs["call"] == 10
    assert winnable_pots(obs) == [PotShare(20 + 20 + 10, ("ann", "cara"))]  # not Ann's 30


ANTE_10 = {"ante": 10, "small_bet": 20, "big_bet": 40}
# Dan (5 chips) buys the ace blind with his last 4 and is all-in; he goes on to a wheel
# straight flush: both halves of the main pot. Anna's straight beats Ben's kings high
# and low: the side pot is hers whatever happens.
KNOWN_DECK = deck_for([], "2c 2d 6h Kc As 7d Kd 2s 8c Qh 3s 9h Jc 4s Td 3h 5s")
KNOWN_ACTIONS = [
    "anna buy blind",
    "ben buy blind",
    "dan buy blind",
    "anna bet",
    "ben call",
    *(["anna buy blind", "ben buy blind", "dan buy blind", "anna check", "ben check"] * 3),
    "anna buy blind",
    "ben buy blind",
    "dan buy blind",
    "anna check",
    "ben bet",
]


@pytest.mark.parametrize("level", LEVELS)
def test_calls_for_the_side_pot_it_surely_wins_though_the_main_pot_is_lost(level):
    stacks = {"anna": 100, "ben": 100, "dan": 5}
    stakes = {"ante": 1, "bet": 1, "prices": [2, 1, 4]}
    hand = hand_of(tournament("abyssinia", stacks, 2, KNOWN_DECK, KNOWN_ACTIONS, stakes))
    assert hand.all_in == ("dan",) and hand.contributed == [7, 9, 5]
    obs = observe(hand, "anna")
    assert obs.decision.legal == ("call", "raise", "fold")
    assert winnable_pots(obs) == [PotShare(15, ("ben", "dan")), PotShare(7, ("ben",))]
    # Against everyone at once her share is 0 (Dan wins both halves), so a player that
    # priced the whole pot would fold; the side pot she cannot lose pays the call.
    move = Strategy(level, random.Random(1)).decide(obs)
    assert move == Action("anna", "call")
    hand.apply(move)
    assert hand.complete and hand.payouts == [7, 0, 15]
