"""The worked hands of RULES.md and each betting/drawing/buying rule, one test each."""

from __future__ import annotations

import json

import pytest

from bot.engine import Action, Hand, IllegalAction, RecordError, parse_header
from bot.engine.record import parse_actions
from bot.engine.replay import replay_json
from tests.support.engine_helpers import RULES_EXAMPLE, deck_for, record, rotate_to_seats


def hand_of(rec: dict) -> Hand:
    header = parse_header(rec)
    hand = Hand(header)
    for action in parse_actions(rec["actions"]):
        assert isinstance(action, Action)
        hand.apply(action)
    return hand


def test_rules_section_7_example_record_replays_to_the_documented_state():
    out = replay_json(RULES_EXAMPLE)
    assert out["complete"] is True
    assert out["pot"] == 8
    assert out["to_act"] is None and out["legal"] == []
    assert out["payouts"] == {"lena": 8, "mike": 0}
    assert out["net"] == {"lena": 4, "mike": -4}
    assert sorted(out["hands"]["lena"]) == sorted(["5h", "4h", "3s", "2d", "Ac"])
    assert sorted(out["hands"]["mike"]) == sorted(["6s", "5d", "3c", "2h", "Ad"])
    assert out["error"] is None


def test_worked_a5_draw_hand_lena_draws_to_the_wheel_and_wins():
    deck = deck_for(["8c 4h 3s 2d Ac", "6s 5d 3c 2h Ad"], then="5h")
    rec = record(
        "a5-draw",
        ["lena", "mike"],
        1,
        deck,
        [
            "lena check",
            "mike check",
            "lena discard 8c",
            "mike discard",
            "lena check",
            "mike check",
        ],
    )
    hand = hand_of(rec)
    assert hand.complete
    assert hand.net() == {"lena": 1, "mike": -1}
    assert hand.awards[0].hand_names["lena"] == "5-4-3-2-A, five low"


def test_worked_abyssinia_hand_splits_a_pot_of_32_into_16_and_16():
    # Market 2c (left) and Kd (right); Cara's blind buy turns up As and costs 4.
    deck = deck_for([], "2c Kd 7c 8s Qh 9s 5d As 9h 4c 9d 3h Kc Ad")
    actions = [
        "anna buy left",
        "ben buy blind",
        "cara buy right",
        "anna bet",
        "ben call",
        "cara call",
        "anna buy blind",
        "ben buy blind",
        "cara buy blind",
        "anna bet",
        "ben call",
        "cara fold",
        "anna buy blind",
        "ben buy blind",
        "anna check",
        "ben check",
        "anna buy blind",
        "ben buy blind",
        "anna bet",
        "ben call",
        "anna buy blind",
        "ben buy blind",
        "anna check",
        "ben check",
    ]
    hand = hand_of(record("abyssinia", ["anna", "ben", "cara"], 2, deck, actions))
    assert sorted(hand.holdings[0]) == sorted(hand_of_text("9s 9h 9d Kc 2c"))
    assert sorted(hand.holdings[1]) == sorted(hand_of_text("8s 5d 4c 3h Ad"))
    assert hand.pot == 32
    high, low = hand.awards
    assert (high.label, high.shares, high.hand_names) == (
        "high",
        {"anna": 16},
        {"anna": "three nines"},
    )
    assert (low.label, low.shares) == ("low", {"ben": 16})
    assert low.hand_names["ben"].endswith("eight low")
    # gross 16 each; net subtracts ante, purchases (anna 6, ben 11, cara 1+4) and bets
    assert hand.net() == {"anna": 16 - 1 - 6 - 3, "ben": 16 - 1 - 11 - 3, "cara": -1 - 5 - 1}


def hand_of_text(text: str) -> list[int]:
    from bot.engine import parse_cards

    return parse_cards(text)


def test_abyssinia_prices_deuce_2_king_1_blind_ace_4():
    deck = deck_for([], "2c Kd 7c 8h As")
    hand = hand_of(record("abyssinia", ["anna", "ben", "cara"], 2, deck, []))
    offers = {o.source: o.price for o in hand.decision().market}
    assert offers == {"left": 2, "right": 1, "blind": None}
    hand.apply(Action("anna", "buy", source="left"))  # 2c costs 2, slot refilled with 7c
    hand.apply(Action("ben", "buy", source="right"))  # Kd costs 1
    hand.apply(Action("cara", "buy", source="blind"))  # As costs 4
    assert hand.contributed == [1 + 2, 1 + 1, 1 + 4]
    assert hand.market == hand_of_text("7c 8h")


def test_abyssinia_odd_pot_chip_goes_to_the_high_half():
    hand = _abyssinia_checked_down(["anna", "ben"])
    high, low = hand.awards
    assert high.amount + low.amount == hand.pot
    assert high.amount - low.amount == hand.pot % 2


def _abyssinia_checked_down(players: list[str]) -> Hand:
    deck = deck_for([], "")
    hand = hand_of(record("abyssinia", players, 1, deck, []))
    while not hand.complete:
        d = hand.decision()
        hand.apply(
            Action(d.player, "buy", source="blind")
            if d.phase == "buy"
            else Action(d.player, "check")
        )
    return hand


def test_single_draw_round_two_opens_with_round_one_first_bettor():
    deck = deck_for(["Kc Qc Jc 9d 7s", "2c 3c 4d 6h 8s", "5c 5d 9h Th Js"])
    # dealer seat 2 (cara): anna acts first; ben makes the first bet.
    rec = record(
        "a6-draw",
        ["anna", "ben", "cara"],
        2,
        deck,
        [
            "anna check",
            "ben bet",
            "cara call",
            "anna call",
            "anna discard",
            "ben discard",
            "cara discard",
        ],
    )
    assert hand_of(rec).decision().player == "ben"
    # if the first bettor folded, the next player still in clockwise opens
    rec2 = record(
        "a6-draw",
        ["anna", "ben", "cara"],
        2,
        deck,
        [
            "anna check",
            "ben bet",
            "cara raise",
            "anna call",
            "ben fold",
            "anna discard",
            "cara discard",
        ],
    )
    assert hand_of(rec2).decision().player == "cara"
    # checked around: first player still in left of the dealer
    rec3 = record(
        "a6-draw",
        ["anna", "ben", "cara"],
        1,
        deck,
        [
            "cara check",
            "anna check",
            "ben check",
            "cara discard",
            "anna discard",
            "ben discard",
        ],
    )
    assert hand_of(rec3).decision().player == "cara"


def test_round_two_bets_are_two_and_round_one_bets_are_one():
    deck = deck_for(["Kc Qc Jc 9d 7s", "2c 3c 4d 6h 8s"])
    hand = hand_of(record("a5-draw", ["a", "b"], 1, deck, ["a bet", "b raise", "a call"]))
    assert hand.contributed == [1 + 2, 1 + 2]
    hand.apply(Action("a", "discard", cards=()))
    hand.apply(Action("b", "discard", cards=()))
    assert hand.decision().costs == {"check": 0, "bet": 2}


def test_cap_one_bet_three_raises_fourth_raise_refused():
    deck = deck_for(["Kc Qc Jc 9d 7s", "2c 3c 4d 6h 8s"])
    hand = hand_of(
        record("a5-draw", ["a", "b"], 1, deck, ["a bet", "b raise", "a raise", "b raise"])
    )
    d = hand.decision()
    assert d.legal == ("call", "fold") and d.raises_left == 0
    with pytest.raises(IllegalAction, match="capped.*legal now: call, fold"):
        hand.apply(Action("a", "raise"))
    hand.apply(Action("a", "call"))
    assert hand.contributed == [5, 5] and hand.phase == "draw"


def test_fold_is_not_offered_when_nothing_is_owed():
    deck = deck_for(["Kc Qc Jc 9d 7s", "2c 3c 4d 6h 8s"])
    hand = hand_of(record("a5-draw", ["a", "b"], 1, deck, []))
    assert hand.decision().legal == ("check", "bet")
    with pytest.raises(IllegalAction, match="may not fold when nothing is owed"):
        hand.apply(Action("a", "fold"))


def test_check_raise_is_allowed():
    deck = deck_for(["Kc Qc Jc 9d 7s", "2c 3c 4d 6h 8s", "5c 5d 9h Th Js"])
    hand = hand_of(
        record("a5-draw", ["a", "b", "c"], 2, deck, ["a check", "b bet", "c call", "a raise"])
    )
    assert hand.decision().player == "b" and hand.decision().to_call == 1


def test_all_but_one_fold_takes_the_pot_without_showdown():
    deck = deck_for(["Kc Qc Jc 9d 7s", "2c 3c 4d 6h 8s", "5c 5d 9h Th Js"])
    hand = hand_of(record("a6-draw", ["a", "b", "c"], 2, deck, ["a bet", "b fold", "c fold"]))
    assert hand.complete and not hand.showdown
    assert hand.payouts == [4, 0, 0] and hand.net() == {"a": 2, "b": -1, "c": -1}
    assert replay_json(record("a6-draw", ["a", "b", "c"], 2, deck, ["a bet", "b fold", "c fold"]))[
        "hands"
    ] == {"a": ["Kc", "Qc", "Jc", "9d", "7s"]}


def test_tie_splits_the_pot_and_the_odd_chip_goes_left_of_the_dealer():
    # dealer is seat 1: order from its left is seat 2, seat 0, then the dealer.
    hands = ["5c 4c 3d 2d Ac", "5h 4h 3s 2s Ah", "Kc Qd Jh 9s 8s"]
    deck = deck_for(rotate_to_seats(hands, 1))
    actions = [
        "c check",
        "a check",
        "b check",
        "c discard",
        "a discard",
        "b discard",
        "c check",
        "a check",
        "b check",
    ]
    hand = hand_of(record("a5-draw", ["a", "b", "c"], 1, deck, actions))
    assert hand.payouts == [2, 1, 0]  # pot 3: seat 0 comes before the dealer


def test_several_odd_chips_go_one_each_clockwise_and_the_dealer_last():
    hands = ["5c 4c 3c 2c Ac", "5h 4h 3h 2h Ah", "5d 4d 3d 2d Ad", "Kc Qd Jh 9s 8s"]
    dealer = 1
    deck = deck_for(rotate_to_seats(hands, dealer))
    # order: c(2), d(3), a(0), b(1=dealer). pot 4 antes + 4 = 8 split three ways: 3, 3, 2.
    actions = [
        "c bet",
        "d call",
        "a call",
        "b call",
        "c discard",
        "d discard",
        "a discard",
        "b discard",
        "c check",
        "d check",
        "a check",
        "b check",
    ]
    hand = hand_of(record("a5-draw", ["a", "b", "c", "d"], dealer, deck, actions))
    assert hand.pot == 8
    assert hand.payouts == [3, 2, 3, 0]


def test_a6_draw_straight_loses_to_king_high():
    hands = ["Kc 9d 7h 4s 2c", "As 2d 3c 4h 5d"]
    deck = deck_for(rotate_to_seats(hands, 1))
    actions = ["a check", "b check", "a discard", "b discard", "a check", "b check"]
    hand = hand_of(record("a6-draw", ["a", "b"], 1, deck, actions))
    assert hand.payouts == [2, 0]


def test_triple_draw_blinds_and_big_blind_option():
    deck = deck_for(["Kc Qc Jc 9d 7s", "2c 3c 4d 6h 8s", "5c 5d 9h Th Js"])
    hand = hand_of(record("a5-triple", ["a", "b", "c"], 0, deck, [], stack=48))
    # dealer a, small blind b, big blind c; a acts first
    assert hand.contributed == [0, 1, 2]
    d = hand.decision()
    assert d.player == "a" and d.legal == ("call", "raise", "fold") and d.costs["raise"] == 4
    hand.apply(Action("a", "call"))
    hand.apply(Action("b", "call"))
    d = hand.decision()
    assert d.player == "c" and d.legal == ("check", "raise")
    hand.apply(Action("c", "check"))
    assert hand.phase == "draw" and hand.decision().player == "b"


def test_triple_draw_heads_up_dealer_posts_small_blind_and_acts_first():
    deck = deck_for(["Kc Qc Jc 9d 7s", "2c 3c 4d 6h 8s"])
    hand = hand_of(record("a5-triple", ["a", "b"], 0, deck, [], stack=48))
    assert hand.contributed == [1, 2] and hand.decision().player == "a"
    hand.apply(Action("a", "call"))
    hand.apply(Action("b", "check"))
    assert hand.decision().player == "b"  # the other player draws first
    hand.apply(Action("b", "discard", cards=()))
    hand.apply(Action("a", "discard", cards=()))
    assert hand.decision().player == "b"  # and opens rounds 2-4
    assert hand.decision().costs == {"check": 0, "bet": 2}


def test_triple_draw_bet_sizes_2_2_4_4_and_table_minimum_48():
    deck = deck_for(["Kc Qc Jc 9d 7s", "2c 3c 4d 6h 8s"])
    acts = ["a raise", "b raise", "a raise", "b call"]
    for _ in range(3):
        acts += ["b discard", "a discard", "b bet", "a raise", "b raise", "a raise", "b call"]
    hand = hand_of(record("a5-triple", ["a", "b"], 0, deck, [], stack=48))
    capped_rounds = 0
    for action in parse_actions(record("a5-triple", ["a", "b"], 0, deck, acts)["actions"]):
        if action.action != "call":
            hand.apply(action)
            continue
        # every round's third raise was just made: raising is over
        d = hand.decision()
        assert d.player == action.player and d.legal == ("call", "fold")
        with pytest.raises(IllegalAction):
            hand.apply(Action(action.player, "raise"))
        capped_rounds += 1
        hand.apply(action)
    assert capped_rounds == 4 and hand.complete
    assert hand.contributed == [48, 48]


def _triple_six_way_draw_record():
    players = ["p0", "p1", "p2", "p3", "p4", "p5"]
    deck = deck_for([], "")
    rec = record("a5-triple", players, 5, deck, [], stack=48)
    # round 1: p2 acts first (left of big blind p1); everybody calls, big blind checks
    rec["actions"] = [{"player": p, "action": "call"} for p in ["p2", "p3", "p4", "p5", "p0"]] + [
        {"player": "p1", "action": "check"}
    ]
    return rec, deck


def _hand_cards(hand: Hand, player: str) -> list[str]:
    from bot.engine.cards import format_cards

    return format_cards(hand.holdings[hand.seat_of(player)])


def test_triple_draw_reshuffle_serves_from_the_dead_cards():
    rec, deck = _triple_six_way_draw_record()
    hand = hand_of(rec)
    # draw 1, everyone throws five: 22 cards in the stub serve four players and two cards
    for p in ["p0", "p1", "p2", "p3"]:
        hand.apply(Action(p, "discard", cards=tuple(hand.holdings[hand.seat_of(p)])))
    dead = list(hand.dead)
    assert len(dead) == 20 and hand.stub_pos == 50
    thrown = tuple(hand.holdings[hand.seat_of("p4")])
    base = hand_of(rec)
    for p in ["p0", "p1", "p2", "p3"]:
        base.apply(Action(p, "discard", cards=tuple(base.holdings[base.seat_of(p)])))
    # without the reshuffle in the record: refused, nothing changes
    with pytest.raises(IllegalAction, match="reshuffled stub"):
        hand.apply(Action("p4", "discard", cards=thrown))
    assert hand.dead == dead and hand.stub_pos == 50
    # with a reshuffle of the wrong cards: refused
    from bot.engine.cards import format_cards

    wrong = dead[:-1] + [thrown[0]]
    rec_wrong = dict(rec, reshuffles=[format_cards(wrong)])
    hw = Hand(parse_header(rec_wrong))
    for a in base.actions:
        hw.apply(a)
    with pytest.raises(IllegalAction, match="must hold exactly the 20 dead cards"):
        hw.apply(Action("p4", "discard", cards=thrown))
    # with the right reshuffle: two from the old stub, three from the new one
    new_stub = list(reversed(dead))
    rec_ok = dict(rec, reshuffles=[format_cards(new_stub)])
    h = Hand(parse_header(rec_ok))
    for a in base.actions:
        h.apply(a)
    h.apply(Action("p4", "discard", cards=thrown))
    got = h.holdings[h.seat_of("p4")]
    assert got == [h.header.deck[50], h.header.deck[51]] + new_stub[:3]
    assert h.dead == list(thrown)  # the dead pile starts again with the cards just thrown
    h.apply(Action("p5", "discard", cards=tuple(h.holdings[h.seat_of("p5")])))
    assert h.holdings[h.seat_of("p5")] == new_stub[3:8]
    assert len(h.dead) == 10


def test_live_table_shuffles_a_missing_reshuffle_with_the_injected_rng_and_records_it():
    import random

    rec, _ = _triple_six_way_draw_record()
    hand = Hand(parse_header(rec), rng=random.Random(7))
    for a in parse_actions(rec["actions"]):
        hand.apply(a)
    for p in ["p0", "p1", "p2", "p3", "p4", "p5"]:
        hand.apply(Action(p, "discard", cards=tuple(hand.holdings[hand.seat_of(p)])))
    saved = hand.record().to_json()
    assert len(saved["reshuffles"]) == 1 and len(saved["reshuffles"][0]) == 20
    again = replay_json(json.loads(json.dumps(saved)))
    assert again["error"] is None
    assert again["hands"] == {p: _hand_cards(hand, p) for p in hand.players}


def test_folded_hands_become_dead_cards_in_triple_draw():
    rec, _ = _triple_six_way_draw_record()
    rec["actions"] = [
        {"player": "p2", "action": "fold"},
        {"player": "p3", "action": "call"},
    ]
    hand = hand_of(rec)
    assert sorted(hand.dead) == sorted(hand.holdings[2])


def test_timeout_defaults():
    deck = deck_for(["Kc Qc Jc 9d 7s", "2c 3c 4d 6h 8s"])
    hand = hand_of(record("a5-draw", ["a", "b"], 1, deck, []))
    assert hand.default_action() == Action("a", "check")
    hand.apply(Action("a", "bet"))
    assert hand.default_action() == Action("b", "fold")
    hand.apply(Action("b", "call"))
    assert hand.default_action() == Action("a", "discard", cards=())
    aby = hand_of(record("abyssinia", ["a", "b"], 1, deck_for([], "2c Kd"), []))
    assert aby.default_action() == Action("a", "buy", source="right")  # K costs 1, deuce 2
    tie = hand_of(record("abyssinia", ["a", "b"], 1, deck_for([], "Qc Kd"), []))
    assert tie.default_action() == Action("a", "buy", source="left")  # equal price: left


@pytest.mark.parametrize(
    ("action", "message"),
    [
        ({"player": "b", "action": "check"}, "it is a's turn, not b's"),
        ({"player": "zed", "action": "check"}, "zed is not seated"),
        ({"player": "a", "action": "discard", "cards": []}, "discard is not allowed now"),
        ({"player": "a", "action": "buy", "from": "left"}, "buy is not allowed now"),
        ({"player": "a", "action": "call"}, "there is no bet to call"),
        ({"player": "a", "action": "shove"}, "unknown action"),
    ],
)
def test_bad_actions_name_the_index_and_keep_the_state_before(action, message):
    deck = deck_for(["Kc Qc Jc 9d 7s", "2c 3c 4d 6h 8s"])
    rec = record("a5-draw", ["a", "b"], 1, deck, [])
    rec["actions"] = [action]
    out = replay_json(rec)
    assert out["error"]["index"] == 0 and message in out["error"]["message"]
    assert out["to_act"] == "a" and out["legal"] == ["check", "bet"] and out["pot"] == 2
    assert out["net"] == {"a": -1, "b": -1} and out["payouts"] == {"a": 0, "b": 0}


def test_discarding_a_card_not_held_is_refused():
    deck = deck_for(["Kc Qc Jc 9d 7s", "2c 3c 4d 6h 8s"])
    rec = record("a5-draw", ["a", "b"], 1, deck, ["a check", "b check", "a discard 2c"])
    out = replay_json(rec)
    assert out["error"]["index"] == 2 and "don't hold 2c" in out["error"]["message"]


def test_action_after_the_hand_ends_is_refused():
    deck = deck_for(["Kc Qc Jc 9d 7s", "2c 3c 4d 6h 8s"])
    rec = record("a5-draw", ["a", "b"], 1, deck, ["a bet", "b fold", "a check"])
    out = replay_json(rec)
    assert out["error"] == {"index": 2, "message": "the hand is complete; no more actions"}
    assert out["complete"] is True and out["payouts"] == {"a": 3, "b": 0}


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"variant": "razz"}, "unknown variant"),
        ({"deck": deck_for([], "")[:51]}, "52 cards"),
        ({"deck": deck_for([], "")[:51] + ["Ac"]}, "appears twice"),
        ({"seats": [{"player": "a", "stack": 100}]}, "seats 2 to 5"),
        (
            {"seats": [{"player": "a", "stack": 12}, {"player": "b", "stack": 100}]},
            "below the table minimum 13",
        ),
        ({"seats": [{"player": "a", "stack": 100}, {"player": "a", "stack": 100}]}, "seated twice"),
        ({"dealer": 2}, "dealer must be a seat index"),
        ({"reshuffles": [["As"]]}, "only triple draw"),
    ],
)
def test_bad_headers_give_index_null(change, message):
    rec = record("a5-draw", ["a", "b"], 1, deck_for([], ""), [])
    rec.update(change)
    out = replay_json(rec)
    assert out["error"]["index"] is None and message in out["error"]["message"]
    with pytest.raises(RecordError):
        parse_header(rec)


def test_table_minimums():
    deck = deck_for([], "")
    for variant, minimum, n in [("a6-draw", 13, 5), ("a5-triple", 48, 6), ("abyssinia", 41, 8)]:
        ok = record(variant, [f"p{i}" for i in range(n)], 0, deck, [], stack=minimum)
        assert replay_json(ok)["error"] is None
        low = record(variant, [f"p{i}" for i in range(n)], 0, deck, [], stack=minimum - 1)
        assert replay_json(low)["error"]["index"] is None
        too_many = record(variant, [f"p{i}" for i in range(n + 1)], 0, deck, [], stack=minimum)
        assert "seats" in replay_json(too_many)["error"]["message"]
