"""Random legal play, with an injected RNG: for property tests, benchmarks and demos.

The agent reads the hand's cheap accessors (``legal_actions``, ``holdings``,
``buy_sources``) rather than building a full ``Decision`` each turn, and picks
with ``rng.random()`` (``seq[int(rng.random() * len(seq))]``): uniform like
``rng.choice``, at a fraction of its cost in a benchmark that plays millions of turns.
"""

from __future__ import annotations

import random
from functools import lru_cache
from itertools import combinations
from typing import Any

from .cards import FULL_DECK, format_card
from .hand import Decision, Hand
from .record import Action, ActionKind
from .variants import Phase

# Module globals: read on every turn of millions (a class attribute costs more).
_DRAW, _BUYING, _DISCARD, _BUY = Phase.DRAW, Phase.BUY, ActionKind.DISCARD, ActionKind.BUY


def random_action(hand: Hand, rng: random.Random) -> Action:
    """A uniformly chosen legal action for the player to act.

    Betting: uniform among the legal actions. Draw: a uniform count of cards
    (0 to all held), then a uniform subset of that size. Buying: uniform among
    the sources on offer (left, right, blind).
    """
    seat = hand.to_act
    assert seat is not None, "the hand is complete"
    player = hand.players[seat]
    pick = rng.random
    if hand.phase == _DRAW:
        held = hand.holdings[seat]
        subsets = _subsets(len(held), int(pick() * (len(held) + 1)))
        chosen = subsets[int(pick() * len(subsets))]
        return Action(player, _DISCARD, cards=tuple(map(held.__getitem__, chosen)))
    if hand.phase == _BUYING:
        sources = hand.buy_sources()
        return _simple_action(player, _BUY, sources[int(pick() * len(sources))])
    legal = hand.legal_actions()
    return _simple_action(player, legal[int(pick() * len(legal))])


@lru_cache(maxsize=64)
def _subsets(size: int, count: int) -> tuple[tuple[int, ...], ...]:
    """Every choice of ``count`` positions out of ``size``: a uniform pick is a uniform subset."""
    return tuple(combinations(range(size), count))


@lru_cache(maxsize=1024)
def _simple_action(player: str, kind: str, source: str | None = None) -> Action:
    """Betting and buying actions, shared: an Action is immutable, so reusing one is safe."""
    return Action(player, kind, source=source)


def new_random_hand(variant: str, seats: int, rng: random.Random, stack: int = 100) -> Hand:
    pick = rng.random
    # Sorting by independent uniform keys gives a uniformly random order, at about
    # half the cost of rng.shuffle's 51 calls to randbelow.
    deck = sorted(FULL_DECK, key=lambda _: pick())
    players = [(f"p{i}", stack) for i in range(seats)]
    return Hand.start(variant, players, int(rng.random() * seats), deck, rng=rng)


def play_random_hand(variant: str, seats: int, rng: random.Random) -> Hand:
    hand = new_random_hand(variant, seats, rng)
    while not hand.complete:
        hand.apply(random_action(hand, rng))
    return hand


def weighted_move(
    decision: Decision, rng: random.Random, *, fold: float = 1.0, max_discard: int = 5
) -> dict[str, Any]:
    """A random legal move as table-manager arguments (for tests and bench/tables.py).

    Betting leans passive (check/call 4, bet 2, raise 1, fold ``fold``; a zero
    weight never picks it); draws throw up to ``max_discard`` cards.
    """
    if decision.phase == Phase.DRAW:
        count = rng.randint(0, min(max_discard, len(decision.discardable)))
        cards = rng.sample(list(decision.discardable), count)
        return {"action": ActionKind.DISCARD, "cards": [format_card(c) for c in cards]}
    if decision.phase == Phase.BUY:
        return {"action": ActionKind.BUY, "source": rng.choice(decision.market).source}
    weights: dict[str, float] = {
        ActionKind.CHECK: 4,
        ActionKind.CALL: 4,
        ActionKind.BET: 2,
        ActionKind.RAISE: 1,
        ActionKind.FOLD: fold,
    }
    legal = [a for a in decision.legal if weights[a] > 0]
    return {"action": rng.choices(legal, [weights[a] for a in legal])[0]}
