"""Random legal play, with an injected RNG: for property tests, benchmarks and demos."""

from __future__ import annotations

import random

from .cards import FULL_DECK
from .hand import Hand
from .record import Action


def random_action(hand: Hand, rng: random.Random) -> Action:
    """A uniformly chosen legal action for the player to act."""
    d = hand.decision()
    assert d is not None, "the hand is complete"
    if d.phase == "draw":
        count = rng.randint(0, len(d.discardable))
        return Action(d.player, "discard", cards=tuple(rng.sample(d.discardable, count)))
    if d.phase == "buy":
        return Action(d.player, "buy", source=rng.choice(d.market).source)
    return Action(d.player, rng.choice(d.legal))


def new_random_hand(variant: str, seats: int, rng: random.Random, stack: int = 100) -> Hand:
    deck = list(FULL_DECK)
    rng.shuffle(deck)
    players = [(f"p{i}", stack) for i in range(seats)]
    return Hand.start(variant, players, rng.randrange(seats), deck, rng=rng)


def play_random_hand(variant: str, seats: int, rng: random.Random) -> Hand:
    hand = new_random_hand(variant, seats, rng)
    while not hand.complete:
        hand.apply(random_action(hand, rng))
    return hand
