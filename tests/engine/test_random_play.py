"""Property tests: random legal play in every variant and seat count."""

from __future__ import annotations

import dataclasses
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.engine import VARIANTS, Hand, IllegalAction, public_view, seat_view
from bot.engine.replay import replay_json, state_json
from bot.engine.simulate import new_random_hand, random_action
from tests.support.engine_helpers import (
    GAMES,
    TOURNEYS,
    illegal_actions,
    snapshot,
    tournament_hand,
)


@settings(max_examples=150, deadline=None)
@given(GAMES)
def test_random_play_conserves_chips_and_replays(game):
    variant, seats, seed = game
    rng = random.Random(seed)
    hand = new_random_hand(variant, seats, rng)
    minimum = VARIANTS[variant].table_minimum
    steps = 0
    while not hand.complete:
        for bad in illegal_actions(hand, rng):  # at every step: cheap, and never skipped
            before = snapshot(hand)
            try:
                hand.apply(bad)
            except IllegalAction:
                pass
            else:
                raise AssertionError(f"illegal {bad} was accepted")
            assert snapshot(hand) == before
        # the record of any prefix replays to the same state
        assert replay_json(hand.record().to_json()) == state_json(hand)
        hand.apply(random_action(hand, rng))
        steps += 1
        assert hand.pot == sum(hand.contributed)
        assert max(hand.contributed) <= minimum
        assert steps < 400
    net = hand.net()
    assert sum(net.values()) == 0
    assert sum(hand.payouts) == hand.pot
    assert all(a.amount == sum(a.shares.values()) for a in hand.awards)
    assert replay_json(hand.record().to_json()) == state_json(hand)


def _ints(value) -> set[int]:
    """Every int inside a view (card ints are large; chip counts stay small)."""
    if dataclasses.is_dataclass(value):
        return _ints(dataclasses.asdict(value))
    if isinstance(value, dict):
        return _ints(list(value.keys())) | _ints(list(value.values()))
    if isinstance(value, (list, tuple, set)):
        return set().union(*(_ints(v) for v in value)) if value else set()
    return {value} if isinstance(value, int) and not isinstance(value, bool) else set()


def _cash_or_tournament(kind_and_game) -> tuple[Hand, random.Random]:
    kind, game = kind_and_game
    if kind == "cash":
        variant, seats, seed = game
        rng = random.Random(seed)
        return new_random_hand(variant, seats, rng), rng
    variant, stakes, stacks, dealer, seed = game
    rng = random.Random(seed)
    return tournament_hand(variant, stakes, stacks, dealer, rng), rng


@settings(max_examples=100, deadline=None)
@given(st.one_of(st.tuples(st.just("cash"), GAMES), st.tuples(st.just("tournament"), TOURNEYS)))
def test_views_never_show_hidden_cards(kind_and_game):
    hand, rng = _cash_or_tournament(kind_and_game)
    variant = hand.variant.id
    draw_game = not VARIANTS[variant].split
    while not hand.complete:
        view = public_view(hand)  # who is all-in, and each pot with its eligible players
        assert view.all_in == hand.all_in and view.tournament == hand.allin
        assert [p.players for p in view.pots] == [p.players for p in hand.pots()]
        assert sum(p.amount for p in view.pots) == view.pot
        held = {c for h in hand.holdings for c in h}
        stub = set(hand.stub[hand.stub_pos :])
        public = _ints(public_view(hand))
        assert not public & stub  # nobody sees the stub (Abyssinia's blind card)
        # a draw game shows no held card; Abyssinia's bought cards lie face up
        assert public & held <= (set() if draw_game else held)
        for player in hand.players:
            mine = set(hand.holdings[hand.seat_of(player)])
            seen = _ints(seat_view(hand, player))
            assert seen & held <= (mine if draw_game else held)
        hand.apply(random_action(hand, rng))
    if hand.showdown:
        assert public_view(hand).shown.keys() == {hand.players[s] for s in hand.active}
    else:
        assert public_view(hand).shown == {}
