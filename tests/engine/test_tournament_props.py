"""Property tests over random tournament hands (RULES.md §8) of every game and seat count.

Stacks run from 1 chip up and the stakes come from realistic level rows, so short
blinds, all-in bets, incomplete raises and several side pots all turn up.
"""

from __future__ import annotations

import random

from hypothesis import given, settings

from bot.engine import Action, Hand, IllegalAction
from bot.engine.record import parse_record
from bot.engine.replay import replay_json, state_json
from bot.engine.simulate import random_action
from tests.support.engine_helpers import TOURNEYS, illegal_actions, snapshot, tournament_hand


def check_invariants(hand: Hand) -> None:
    assert hand.pot == sum(hand.contributed)
    assert all(stack >= 0 for stack in hand.stacks().values())
    for seat, flag in enumerate(hand.is_all_in):
        assert flag == (hand.chips_left(seat) == 0 and not hand.folded[seat])
    pots = hand.pots()
    assert sum(p.amount for p in pots) == hand.pot
    assert all(p.amount > 0 and p.players for p in pots)
    still_in = {hand.players[s] for s in hand.in_seats}
    for pot in pots:
        assert set(pot.players) <= still_in
        assert set(pot.winners) <= set(pot.players)
        assert set(pot.high) | set(pot.low) <= set(pot.players)


@settings(max_examples=200, deadline=None)
@given(TOURNEYS)
def test_random_tournament_hands_conserve_chips_and_replay(game):
    variant, stakes, stacks, dealer, seed = game
    rng = random.Random(seed)
    hand = tournament_hand(variant, stakes, stacks, dealer, rng)
    steps = 0
    while not hand.complete:
        check_invariants(hand)
        for bad in illegal_actions(hand, rng):  # at every step, a refused action changes nothing
            before = snapshot(hand)
            try:
                hand.apply(bad)
            except IllegalAction:
                pass
            else:
                raise AssertionError(f"illegal {bad} was accepted")
            assert snapshot(hand) == before
        # the record of every prefix replays to the same state
        assert replay_json(hand.record().to_json()) == state_json(hand)
        hand.apply(random_action(hand, rng))
        steps += 1
        assert steps < 400
    check_invariants(hand)
    # Payouts add up to every chip put in, a pot with one eligible player included.
    assert sum(hand.payouts) == hand.pot
    assert sum(hand.net().values()) == 0
    assert all(a.amount == sum(a.shares.values()) for a in hand.awards)
    for index, pot in enumerate(hand.pots()):
        paid = sum(a.amount for a in hand.awards if a.pot == index)
        assert paid == pot.amount
        assert pot.winners and set(pot.winners) <= set(pot.players)
        assert len(pot.players) > 1 or pot.winners == pot.players  # a lone player wins it
    assert all(s >= 0 for s in hand.stacks().values())
    # Replay equality: the record, through JSON, gives the same state.
    record = hand.record().to_json()
    assert replay_json(record) == state_json(hand)
    again = Hand.replay(parse_record(record))
    assert again.payouts == hand.payouts and again.pots() == hand.pots()


@settings(max_examples=100, deadline=None)
@given(TOURNEYS)
def test_legal_actions_are_exactly_what_section_8_3_allows(game):
    variant, stakes, stacks, dealer, seed = game
    rng = random.Random(seed)
    hand = tournament_hand(variant, stakes, stacks, dealer, rng)
    while not hand.complete:
        d = hand.decision()
        if d.phase == "bet":
            seat = d.seat
            left = hand.chips_left(seat)
            assert not hand.is_all_in[seat] and left > 0
            others = [s for s in hand.in_seats if s != seat and not hand.is_all_in[s]]
            assert ("fold" in d.legal) == (d.to_call > 0)
            raising = "bet" in d.legal or "raise" in d.legal
            may_raise = d.raises_left > 0 and left > d.to_call and bool(others)
            last = hand.acted_at[seat]
            reopened = (
                last is None or 2 * (hand.current_bet - last) >= hand.bet_sizes[hand.bet_round]
            )
            if raising:  # never at the cap, short, or with nobody to answer
                assert may_raise
            else:  # or else: only incomplete all-ins since this player acted
                assert not (may_raise and reopened)
            if "call" in d.legal:
                assert d.costs["call"] == min(d.to_call, left)
            else:  # nothing to call: a check
                assert d.to_call == 0 and "check" in d.legal
            assert all(cost <= left for cost in d.costs.values())
            assert d.to_call > 0 or raising  # nobody acts who may only check
        elif d.phase == "buy" and hand.is_all_in[d.seat]:
            assert [o.source for o in d.market] == ["blind"]
            before = hand.contributed[d.seat]
            hand.apply(Action(d.player, "buy", source="blind"))
            assert hand.contributed[d.seat] == before
            continue
        else:
            assert d.phase in ("buy", "draw"), d.phase
        hand.apply(random_action(hand, rng))
