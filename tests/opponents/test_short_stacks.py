"""Computer players in tournament hands (RULES.md §8): short stacks and all-ins.

Engine-level hands: every move a player returns is legal (no raise the rules forbid,
no fold when nothing is owed, only the free blind card when all-in), and a call is
priced by the pots the player can win.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings

from bot.engine import VARIANTS, Action
from bot.engine.cards import parse_cards
from bot.opponents import KINDS, LEVELS, Strategy, observe, push_fold
from bot.opponents.betting import PotShare, winnable_pots
from tests.support.engine_helpers import LEVEL_ROWS, TOURNEYS, deck_for, tournament_hand
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


# ----- push or fold (bot.opponents.push_fold) ------------------------------------------


def _short_hands(count: int):
    """Seeded tournament hands of every game where every stack is short: from 1 chip to
    just under ``SHORT_BIG_BETS`` big bets."""
    rng = random.Random(36)
    for i in range(count):
        variant = sorted(VARIANTS)[i % len(VARIANTS)]
        v = VARIANTS[variant]
        stakes = rng.choice(LEVEL_ROWS[variant])
        unit = stakes.get("big_bet") or stakes.get("bet")
        seats = rng.randint(v.min_seats, v.max_seats)
        stacks = [rng.randint(1, push_fold.SHORT_BIG_BETS * unit - 1) for _ in range(seats)]
        yield variant, tournament_hand(variant, stakes, stacks, rng.randrange(seats), rng), rng


def test_no_short_stack_move_is_ever_refused_by_the_engine():
    """Hundreds of short-stack hands of every game, every player a computer level: the
    engine refuses none of their moves (no raise it cannot cover, none at the cap, none
    after only incomplete all-ins), and the first round is push or fold."""
    first_round: dict[str, set[str]] = {v: set() for v in VARIANTS}
    for variant, hand, rng in _short_hands(400):
        bots = {p: Strategy(rng.choice(LEVELS), random.Random(rng.random())) for p in hand.players}
        while not hand.complete:
            player = hand.players[hand.to_act]
            obs = observe(hand, player)
            move = bots[player].decide(obs)
            assert move.action in obs.decision.legal
            first = obs.decision.phase == "bet" and obs.public.round == 1
            assert not first or move == push_fold.decide(obs)  # every level plays the rule
            if first:
                first_round[variant].add(move.action)
            hand.apply(move)  # IllegalAction fails the test
        assert sum(hand.payouts) == hand.pot
    for variant, seen in first_round.items():  # both pushes and folds happened
        assert "fold" in seen and seen & {"bet", "raise"}, (variant, seen)


@pytest.mark.parametrize(
    ("variant", "cards", "desperate", "push"),
    [
        ("a5-draw", "As 3d 5h 8c Kd", False, True),  # four to an eight
        ("a5-draw", "As 3d 9h 9c Kd", False, False),
        ("a5-draw", "As 3d 7h 9c Kd", True, True),  # three to a seven, desperate
        ("a6-draw", "2s 4d 6h 8c 8d", False, True),
        ("a6-draw", "2s 4d Th Jc Qd", True, False),
        ("a5-triple", "As 4d 7h Jc Qd", False, True),  # three to a seven
        ("a5-triple", "As 4d 8h Jc Qd", False, False),
        ("a5-triple", "As 6d 8h Jc Qd", True, True),  # two to a six, desperate
        ("abyssinia", "Ah", False, True),
        ("abyssinia", "4c", False, True),
        ("abyssinia", "Kd", False, True),
        ("abyssinia", "9d", False, False),
        ("abyssinia", "9d", True, True),
    ],
)
def test_the_push_rule_of_each_game(variant, cards, desperate, push):
    assert push_fold.pushes(variant, parse_cards(cards), desperate) is push


def _first_decision(variant: str, stacks: list[int]):
    stakes = LEVEL_ROWS[variant][0]
    hand = tournament_hand(variant, stakes, stacks, 0, random.Random(1))
    while hand.decision().phase != "bet":  # Abyssinia buys first
        obs = observe(hand, hand.players[hand.to_act])
        hand.apply(Strategy("normal", random.Random(2)).decide(obs))
    return hand, observe(hand, hand.players[hand.to_act])


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_deep_stacks_play_their_level_and_short_ones_push_or_fold(variant):
    unit = LEVEL_ROWS[variant][0].get("big_bet") or LEVEL_ROWS[variant][0].get("bet")
    _, deep = _first_decision(variant, [push_fold.SHORT_BIG_BETS * unit] * 3)
    assert push_fold.depth(deep) == push_fold.SHORT_BIG_BETS
    assert push_fold.decide(deep) is None  # ten big bets: not short
    _, short = _first_decision(variant, [push_fold.SHORT_BIG_BETS * unit - 1] * 3)
    move = push_fold.decide(short)
    assert move is not None and move.action in ("bet", "raise", "call", "check", "fold")
    assert not (move.action == "fold" and short.decision.to_call == 0)


def test_a_stack_that_cannot_cover_the_call_calls_all_in_and_never_raises():
    # a5-draw, ante 1, bets 1/2: Ann bets 1, Ben has 1 chip left after his ante
    stakes = LEVEL_ROWS["a5-draw"][0]
    hand = tournament_hand("a5-draw", stakes, [40, 2, 40], 2, random.Random(3))
    hand.apply(Action(hand.players[hand.to_act], "bet"))
    obs = observe(hand, hand.players[hand.to_act])
    assert obs.public.seats[obs.seat].stack == 1 and "raise" not in obs.decision.legal
    assert push_fold.push(obs).action == "call"


def test_a_committed_short_stack_does_not_fold_after_the_first_round():
    # a5-draw, ante 1, bets 1/2, 6 chips each: both push, the first round is capped at
    # 4 bets, so each has 5 chips in and 1 behind when the second round opens
    hand, _ = _first_decision("a5-draw", [6, 6])
    while (
        hand.decision().phase != "bet" or observe(hand, hand.players[hand.to_act]).public.round == 1
    ):
        player = hand.players[hand.to_act]
        seen = observe(hand, player)
        if seen.decision.phase == "bet":
            hand.apply(push_fold.push(seen))
        else:
            hand.apply(Action(player, "discard", cards=()))
    later = observe(hand, hand.players[hand.to_act])
    me = later.public.seats[later.seat]
    assert (me.in_pot, me.stack) == (5, 1)
    assert push_fold.decide(later) == push_fold.push(later)
    assert push_fold.decide(later).action == "bet"
