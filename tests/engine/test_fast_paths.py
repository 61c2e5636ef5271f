"""The engine's fast paths agree with the slow, obviously-right ones they replace."""

from __future__ import annotations

import random

import pytest

from bot.engine import VARIANTS, Hand, RecordError, parse_header
from bot.engine.cards import FULL_DECK, format_cards
from bot.engine.rankings import describe
from bot.engine.simulate import new_random_hand, random_action


def _json_start(variant, seats, dealer, deck) -> Hand:
    """Hand.start as it used to be: through the JSON header and parse_header."""
    header = parse_header(
        {
            "variant": variant,
            "seats": [{"player": p, "stack": s} for p, s in seats],
            "dealer": dealer,
            "deck": format_cards(deck),
        }
    )
    return Hand(header)


def _state(hand: Hand) -> dict:
    return {k: v for k, v in vars(hand).items() if k not in ("rng", "header")}


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_start_builds_the_same_hand_as_the_json_header(variant):
    rng = random.Random(variant)
    v = VARIANTS[variant]
    for seats in range(v.min_seats, v.max_seats + 1):
        deck = list(FULL_DECK)
        rng.shuffle(deck)
        players = [(f"p{i}", v.table_minimum + i) for i in range(seats)]
        dealer = rng.randrange(seats)
        fast = Hand.start(variant, players, dealer, deck)
        slow = _json_start(variant, players, dealer, deck)
        assert fast.header == slow.header
        assert _state(fast) == _state(slow)


def _bad_starts():
    deck = list(FULL_DECK)
    two = [("a", 100), ("b", 100)]
    yield "nope", two, 0, deck
    yield "a5-draw", [("a", 100)], 0, deck
    yield "a5-draw", [("a", 100)] * 6, 0, deck
    yield "a5-draw", [("a", 100), ("a", 100)], 0, deck
    yield "a5-draw", [("", 100), ("b", 100)], 0, deck
    yield "a5-draw", [("a", 100), ("b", 1.5)], 0, deck
    yield "a5-draw", [("a", 100), ("b", 12)], 0, deck
    yield "a5-draw", two, 2, deck
    yield "a5-draw", two, -1, deck
    yield "a5-draw", two, True, deck
    yield "a5-draw", two, 0, deck[:51]
    yield "a5-draw", two, 0, deck + deck[:1]
    yield "a5-draw", two, 0, deck[:51] + deck[:1]


@pytest.mark.parametrize("args", list(_bad_starts()))
def test_start_refuses_exactly_as_the_json_header(args):
    with pytest.raises(RecordError) as slow:
        _json_start(*args)
    with pytest.raises(RecordError) as fast:
        Hand.start(*args)
    assert (fast.value.index, fast.value.message) == (slow.value.index, slow.value.message)


def test_start_refuses_a_deck_with_a_value_that_is_no_card():
    deck = [*FULL_DECK[:51], 7]
    with pytest.raises(RecordError, match="deck: 7 is not a card"):
        Hand.start("a5-draw", [("a", 100), ("b", 100)], 0, deck)


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_cheap_accessors_match_the_decision(variant):
    v = VARIANTS[variant]
    phases: set[str] = set()
    for seed in range(40):
        rng = random.Random(seed)
        hand = new_random_hand(variant, v.min_seats + seed % (v.max_seats - v.min_seats + 1), rng)
        while not hand.complete:
            d = hand.decision()
            phases.add(d.phase)
            assert hand.legal_actions() == d.legal
            if d.phase == "buy":
                assert hand.buy_sources() == tuple(o.source for o in d.market)
            elif d.phase == "bet":
                assert list(d.costs) == list(d.legal)
            else:
                assert d.phase == "draw", d.phase
            hand.apply(random_action(hand, rng))
        assert hand.decision() is None and hand.legal_actions() == ()
        for award in hand.awards:  # names come from a cache keyed by hand value
            ranking = {"high": "high", "low": "a5"}.get(award.label, v.ranking)
            for player, name in award.hand_names.items():
                assert name == describe(ranking, hand.holdings[hand.seat_of(player)])
    assert phases == ({"bet", "buy"} if v.split else {"bet", "draw"})  # each branch was taken


def test_random_draws_cover_every_count_and_stay_in_hand():
    rng = random.Random(5)
    counts = set()
    for _ in range(200):
        hand = new_random_hand("a5-triple", 6, rng)
        while not hand.complete:
            action = random_action(hand, rng)
            if action.action != "discard":
                hand.apply(action)
                continue
            held = hand.holdings[hand.to_act]
            assert set(action.cards) <= set(held)
            assert len(set(action.cards)) == len(action.cards)
            counts.add(len(action.cards))
            hand.apply(action)
    assert counts == {0, 1, 2, 3, 4, 5}
