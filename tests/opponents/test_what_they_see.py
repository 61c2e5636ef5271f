"""The strategies' inputs hold only what the seat may see (issue 11).

For a random hand of every game stopped at a random decision, a second deck is
made by permuting every card that seat has not seen (others' hidden cards, the
stub, others' discards), with the same actions replayed (others' discards renamed
by the same permutation). The seat's observation must be identical, and so must
every strategy's decision from it.
"""

from __future__ import annotations

import dataclasses
import random

from hypothesis import given, settings

from bot.engine import Hand, HandRecord
from bot.engine.cards import FULL_DECK
from bot.engine.simulate import new_random_hand, random_action
from bot.opponents import KINDS, LEVELS, Strategy, advise, observe
from tests.support.engine_helpers import GAMES


def random_decision_point(variant: str, seats: int, rng: random.Random) -> Hand:
    """A hand played at random up to a randomly chosen decision (not the end)."""
    full = new_random_hand(variant, seats, rng)
    while not full.complete:
        full.apply(random_action(full, rng))
    record = full.record()
    cut = rng.randrange(len(record.actions))
    return Hand.replay(dataclasses.replace(record, actions=record.actions[:cut]))


def seen_by(hand: Hand, player: str) -> set[int]:
    """Every card ``player`` has seen: its own, its own discards, all open cards."""
    seat = hand.seat_of(player)
    known = set(hand.holdings[seat])
    known.update(c for a in hand.actions if a.player == player for c in a.cards or ())
    if hand.variant.split:
        known.update(c for held in hand.holdings for c in held)
        known.update(c for c in hand.market if c is not None)
    return known


def with_hidden_cards_permuted(hand: Hand, player: str, rng: random.Random) -> Hand:
    known = seen_by(hand, player)
    hidden = [c for c in FULL_DECK if c not in known]
    moved = hidden[:]
    rng.shuffle(moved)
    sigma = dict(zip(hidden, moved, strict=True))
    sigma.update((c, c) for c in known)
    record = hand.record()
    other = HandRecord(
        record.variant,
        record.seats,
        record.dealer,
        [sigma[c] for c in record.deck],
        [[sigma[c] for c in r] for r in record.reshuffles],
        [
            dataclasses.replace(a, cards=tuple(sigma[c] for c in a.cards))
            if a.cards is not None
            else a
            for a in record.actions
        ],
    )
    assert other.deck != record.deck or len(hidden) < 2
    return Hand.replay(other)


def hand_and_twin(game: tuple[str, int, int]) -> tuple[Hand, str, Hand]:
    """A random decision point, the player to act, and its hidden-cards twin."""
    variant, seats, seed = game
    rng = random.Random(seed)
    hand = random_decision_point(variant, seats, rng)
    player = hand.players[hand.to_act]
    return hand, player, with_hidden_cards_permuted(hand, player, rng)


@settings(max_examples=150, deadline=None)
@given(GAMES)
def test_strategy_inputs_do_not_depend_on_hidden_cards(game):
    hand, player, twin = hand_and_twin(game)
    seed = game[2]
    assert [len(h) for h in twin.holdings] == [len(h) for h in hand.holdings]
    first, second = observe(hand, player), observe(twin, player)
    assert first == second
    kind = KINDS[seed % len(KINDS)]
    assert Strategy(kind, random.Random(seed)).decide(first) == Strategy(
        kind, random.Random(seed)
    ).decide(second)


def test_the_permutation_moves_what_the_seat_cannot_see():
    """The check above has teeth: the twin hand really holds other cards elsewhere."""
    rng = random.Random(5)
    hand = new_random_hand("a5-draw", 3, rng)
    player = hand.players[hand.to_act]
    twin = with_hidden_cards_permuted(hand, player, rng)
    me = hand.seat_of(player)
    assert twin.holdings[me] == hand.holdings[me]
    assert [h for s, h in enumerate(twin.holdings) if s != me] != [
        h for s, h in enumerate(hand.holdings) if s != me
    ]
    assert observe(twin, player) == observe(hand, player)


@settings(max_examples=40, deadline=None)
@given(GAMES)
def test_hints_do_not_depend_on_hidden_cards(game):
    """A hint is the same whatever the cards the player cannot see, so it reveals none."""
    hand, player, twin = hand_and_twin(game)
    for level in LEVELS:
        advice = advise(hand, player, level)
        assert advice == advise(twin, player, level)
        assert set(advice.action.cards or ()) <= set(hand.holdings[hand.seat_of(player)])
