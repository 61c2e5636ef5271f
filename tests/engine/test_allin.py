"""Tournament hands (RULES.md §8): the worked hands of §8.7 and each all-in rule, one test each.

Every worked hand runs through the engine and through ``python -m bot.engine replay``.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from bot.engine import (
    Action,
    IllegalAction,
    Pot,
    Stakes,
    public_view,
    seat_view,
)
from bot.engine.replay import replay_json
from tests.support.engine_helpers import deck_for, record
from tests.support.tournament_hands import (
    ABY_ACTIONS,
    DRAW_10_20_40,
    SIDE_POT_ACTIONS,
    SIDE_POT_DECK,
    aby_record,
    hand_of,
    side_pot_record,
    tournament,
)

TRIPLE_10_20 = {"small_blind": 10, "big_blind": 20, "small_bet": 20, "big_bet": 40}


def cli(rec: dict) -> dict:
    proc = subprocess.run(
        [sys.executable, "-m", "bot.engine", "replay", "-"],
        input=json.dumps(rec),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.stderr == ""
    out = json.loads(proc.stdout)
    assert (proc.returncode == 0) == (out["error"] is None)
    return out


# ----- 8.7: side pot, a5-draw


def test_8_7_side_pot_ann_bets_all_in_15_as_a_full_bet_and_ben_raises_to_35():
    hand = hand_of(side_pot_record(SIDE_POT_ACTIONS[:1]))
    assert hand.all_in == ("ann",) and hand.contributed == [25, 10, 10]
    d = hand.decision()
    assert d.player == "ben" and d.legal == ("call", "raise", "fold")
    assert d.to_call == 15 and d.costs == {"call": 15, "raise": 35, "fold": 0}
    assert d.raises_left == 3  # Ann's 15 was a full bet: it counts toward the cap


def test_8_7_side_pot_pays_ann_the_main_pot_and_cara_the_side_pot():
    hand = hand_of(side_pot_record())
    assert hand.complete and hand.contributed == [25, 85, 85] and hand.pot == 195
    assert hand.pots() == [
        Pot(75, ("ann", "ben", "cara"), ("ann",)),
        Pot(120, ("ben", "cara"), ("cara",)),
    ]
    assert hand.net() == {"ann": 50, "ben": -85, "cara": 35}
    assert hand.stacks() == {"ann": 75, "ben": 115, "cara": 235}


def test_8_7_side_pot_through_the_replay_cli():
    out = cli(side_pot_record())
    assert out["complete"] is True and out["pot"] == 195 and out["error"] is None
    assert out["pots"] == [
        {"amount": 75, "players": ["ann", "ben", "cara"], "winners": ["ann"]},
        {"amount": 120, "players": ["ben", "cara"], "winners": ["cara"]},
    ]
    assert out["all_in"] == ["ann"]
    assert out["payouts"] == {"ann": 75, "ben": 0, "cara": 120}
    assert out["net"] == {"ann": 50, "ben": -85, "cara": 35}
    # In the middle of the hand the pots are known, the winners not yet.
    mid = cli(side_pot_record(SIDE_POT_ACTIONS[:3]))
    assert mid["pots"] == [
        {"amount": 75, "players": ["ann", "ben", "cara"], "winners": []},
        {"amount": 40, "players": ["ben", "cara"], "winners": []},
    ]
    assert mid["to_act"] == "ann" and mid["legal"] == ["discard"]


# ----- 8.7: incomplete raise, a5-triple round 3

TRIPLE_TO_ROUND_3 = [
    "cara call",
    "ann call",
    "ben check",
    "ann discard",
    "ben discard",
    "cara discard",
    "ann check",
    "ben check",
    "cara check",
    "ann discard",
    "ben discard",
    "cara discard",
    "ann bet",
    "ben raise",
    "cara call",
]


def triple_record(ben_stack: int, actions) -> dict:
    stacks = {"ann": 100, "ben": ben_stack, "cara": 100}
    return tournament("a5-triple", stacks, 2, deck_for([], ""), actions)


def test_8_7_incomplete_raise_ann_may_call_1_or_fold_not_raise():
    hand = hand_of(triple_record(2 + 5, TRIPLE_TO_ROUND_3))
    assert hand.all_in == ("ben",) and hand.round_bets == [4, 5, 5]
    d = hand.decision()
    assert d.player == "ann" and d.legal == ("call", "fold") and d.costs["call"] == 1
    assert d.raises_left == 3  # Ben's one more did not count toward the cap
    before = hand.record().to_json()
    with pytest.raises(IllegalAction) as refused:
        hand.apply(Action("ann", "raise"))
    assert refused.value.code == "not_reopened" and "legal now: call, fold" in str(refused.value)
    assert hand.record().to_json() == before and hand.decision() == d
    out = cli(triple_record(7, [*TRIPLE_TO_ROUND_3, "ann raise"]))
    assert out["error"]["index"] == len(TRIPLE_TO_ROUND_3) and out["legal"] == ["call", "fold"]


def test_8_7_incomplete_raise_had_ben_gone_all_in_for_6_ann_could_raise_to_10():
    hand = hand_of(triple_record(2 + 6, TRIPLE_TO_ROUND_3))
    d = hand.decision()
    assert d.player == "ann" and d.legal == ("call", "raise", "fold")
    assert d.costs == {"call": 2, "raise": 6, "fold": 0}  # she has 4 in: raise to 10
    assert d.raises_left == 2
    hand.apply(Action("ann", "raise"))
    assert hand.round_bets == [10, 6, 6] and hand.decision().player == "cara"


def test_incomplete_raise_hand_plays_out_with_a_side_pot():
    rest = ["ann call", "ann discard", "ben discard", "cara discard", "ann bet", "cara call"]
    hand = hand_of(triple_record(7, [*TRIPLE_TO_ROUND_3, *rest]))
    assert hand.complete and hand.contributed == [11, 7, 11]
    assert [(p.amount, p.players) for p in hand.pots()] == [
        (21, ("ann", "ben", "cara")),
        (8, ("ann", "cara")),
    ]
    assert sum(hand.payouts) == hand.pot


# ----- 8.7: short big blind, a5-triple


def test_8_7_short_big_blind_three_players_call_the_full_big_blind():
    stacks = {"sam": 500, "ann": 500, "bob": 12}  # ann small blind, bob big blind
    rec = tournament("a5-triple", stacks, 0, deck_for([], ""), [], TRIPLE_10_20)
    hand = hand_of(rec)
    assert hand.contributed == [0, 10, 12] and hand.all_in == ("bob",)
    d = hand.decision()
    assert d.player == "sam" and d.legal == ("call", "raise", "fold")
    assert d.to_call == 20 and d.costs == {"call": 20, "raise": 40, "fold": 0}
    out = cli(rec)
    assert out["to_act"] == "sam" and out["all_in"] == ["bob"] and out["pot"] == 22


def test_8_7_short_big_blind_heads_up_the_dealer_calls_2_and_nobody_raises():
    stacks = {"dee": 500, "bob": 12}  # heads-up: the dealer posts the small blind
    rec = tournament("a5-triple", stacks, 0, deck_for([], ""), [], TRIPLE_10_20)
    hand = hand_of(rec)
    d = hand.decision()
    assert d.player == "dee" and d.legal == ("call", "fold") and d.costs["call"] == 2
    hand.apply(Action("dee", "call"))
    assert hand.contributed == [12, 12] and hand.phase == "draw"
    # No later betting round is played: nobody else has chips.
    for _ in range(3):
        for player in ("bob", "dee"):
            hand.apply(Action(player, "discard", cards=()))
    assert hand.complete and sum(hand.payouts) == 24
    done = cli(
        dict(
            rec,
            actions=[{"player": "dee", "action": "call"}]
            + [
                {"player": p, "action": "discard", "cards": []}
                for _ in range(3)
                for p in ("bob", "dee")
            ],
        )
    )
    assert done["complete"] is True and len(done["pots"]) == 1 and done["pots"][0]["amount"] == 24


def test_short_small_blind_changes_nothing_for_the_others():
    stacks = {"sam": 500, "ann": 4, "bob": 500}
    hand = hand_of(tournament("a5-triple", stacks, 0, deck_for([], ""), [], TRIPLE_10_20))
    assert hand.contributed == [0, 4, 20] and hand.all_in == ("ann",)
    d = hand.decision()
    assert d.player == "sam" and d.costs == {"call": 20, "raise": 40, "fold": 0}
    hand.apply(Action("sam", "call"))
    d = hand.decision()  # the big blind's option, the small blind being all-in
    assert d.player == "bob" and d.legal == ("check", "raise")


# ----- 8.7: small all-ins that add up, a5-draw round 2


def add_up_record(players: list[str], actions: list[str]) -> dict:
    stacks = {p: 1000 for p in players}
    stacks.update(ben=10 + 50, cara=10 + 60)
    dealer = len(players) - 1  # dan deals: round 1 checked around, round 2 starts with ann
    round_1 = [f"{p} check" for p in players] + [f"{p} discard" for p in players]
    return tournament("a5-draw", stacks, dealer, deck_for([], ""), round_1 + actions, DRAW_10_20_40)


def test_8_7_small_all_ins_add_up_to_a_full_raise():
    rec = add_up_record(["ann", "ben", "cara", "dan"], ["ann bet", "ben raise", "cara raise"])
    hand = hand_of(rec)
    assert hand.round_bets == [40, 50, 60, 0] and hand.all_in == ("ben", "cara")
    d = hand.decision()
    assert d.player == "dan" and d.legal == ("call", "raise", "fold")
    assert d.costs == {"call": 60, "raise": 100, "fold": 0}
    hand.apply(Action("dan", "call"))
    d = hand.decision()
    assert d.player == "ann" and d.legal == ("call", "raise", "fold") and d.to_call == 20
    assert d.costs["raise"] == 60  # to 100
    out = cli(dict(rec, actions=[*rec["actions"], {"player": "dan", "action": "call"}]))
    assert out["to_act"] == "ann" and out["legal"] == ["call", "raise", "fold"]


def test_8_7_small_all_ins_eve_who_called_50_faces_10_and_may_not_raise():
    players = ["ann", "ben", "eve", "cara", "dan"]
    hand = hand_of(
        add_up_record(players, ["ann bet", "ben raise", "eve call", "cara raise", "dan call"])
    )
    d = hand.decision()
    assert d.player == "ann" and d.legal == ("call", "raise", "fold")
    hand.apply(Action("ann", "call"))
    d = hand.decision()
    assert d.player == "eve" and d.legal == ("call", "fold") and d.to_call == 10
    hand.apply(Action("eve", "call"))
    assert hand.complete
    assert [(p.amount, p.players) for p in hand.pots()] == [
        (60 * 5, ("ann", "ben", "eve", "cara", "dan")),
        (10 * 4, ("ann", "eve", "cara", "dan")),
    ]


# ----- 8.7: Abyssinia all-in in the buys


def test_8_7_abyssinia_dan_pays_his_last_2_for_an_ace_and_is_all_in():
    hand = hand_of(aby_record(ABY_ACTIONS[:6]))
    assert hand.stacks()["dan"] == 2
    hand = hand_of(aby_record(ABY_ACTIONS[:9]))
    assert hand.all_in == ("dan",) and hand.contributed[2] == 5 and hand.stacks()["dan"] == 0
    d = hand.decision()  # the betting goes on without him
    assert d.player == "anna" and d.legal == ("check", "bet")


def test_8_7_abyssinia_all_in_player_receives_the_top_card_free_and_only_blind():
    hand = hand_of(aby_record(ABY_ACTIONS[:13]))
    d = hand.decision()
    assert d.player == "dan" and [o.source for o in d.market] == ["blind"]
    assert hand.buy_sources() == ("blind",)
    with pytest.raises(IllegalAction) as refused:
        hand.apply(Action("dan", "buy", source="left"))
    assert refused.value.code == "all_in_buys_blind"
    hand.apply(Action("dan", "buy", source="blind"))
    assert hand.contributed[2] == 5  # free


def test_8_7_abyssinia_main_pot_halves_to_all_side_pot_halves_to_the_others():
    hand = hand_of(aby_record())
    assert hand.complete and hand.contributed == [9, 12, 5]
    assert hand.pots() == [
        Pot(15, ("anna", "ben", "dan"), ("anna", "dan"), ("anna",), ("dan",)),
        Pot(11, ("anna", "ben"), ("anna", "ben"), ("anna",), ("ben",)),
    ]
    assert hand.payouts == [8 + 6, 5, 7]
    out = cli(aby_record())
    assert out["pots"] == [
        {"amount": 15, "players": ["anna", "ben", "dan"], "high": ["anna"], "low": ["dan"]},
        {"amount": 11, "players": ["anna", "ben"], "high": ["anna"], "low": ["ben"]},
    ]
    assert out["all_in"] == ["dan"] and out["payouts"] == {"anna": 14, "ben": 5, "dan": 7}


# ----- other rules of §8


def test_ante_bigger_than_the_stack_posts_it_all_and_the_player_still_draws():
    stacks = {"ann": 4, "ben": 200, "cara": 200}
    actions = ["ben check", "cara check", "ann discard", "ben discard", "cara discard"]
    hand = hand_of(tournament("a5-draw", stacks, 2, SIDE_POT_DECK, actions, DRAW_10_20_40))
    assert hand.contributed == [4, 10, 10] and hand.all_in == ("ann",)
    assert hand.decision().player == "ben"  # round 2 starts with the next player with chips


def test_no_betting_round_when_fewer_than_two_have_chips():
    stacks = {"ann": 5, "ben": 5, "cara": 200}
    actions = ["ann discard", "ben discard", "cara discard"]
    hand = hand_of(tournament("a5-draw", stacks, 2, SIDE_POT_DECK, actions, DRAW_10_20_40))
    assert hand.complete and hand.contributed == [5, 5, 10]
    # Cara's 5 above the all-ins has no other taker: it comes back to her.
    assert hand.pots() == [Pot(15, ("ann", "ben", "cara"), ("ann",)), Pot(5, ("cara",), ("cara",))]
    assert hand.payouts == [15, 0, 5]


def test_a_bet_nobody_can_call_comes_back():
    stacks = {"ann": 15, "ben": 200}
    actions = ["ben bet", "ann call"]
    hand = hand_of(tournament("a5-draw", stacks, 0, SIDE_POT_DECK, actions, DRAW_10_20_40))
    assert hand.contributed == [15, 30] and hand.phase == "draw"
    assert [(p.amount, p.players) for p in hand.pots()] == [(30, ("ann", "ben")), (15, ("ben",))]


def test_all_in_call_for_less_and_fold_leave_the_others_to_the_side_pot():
    stacks = {"ann": 200, "ben": 20, "cara": 200}
    actions = ["ann bet", "ben call", "cara raise", "ann fold"]
    hand = hand_of(tournament("a5-draw", stacks, 2, SIDE_POT_DECK, actions, DRAW_10_20_40))
    # Ben called 20 all-in for 10; Cara's raise to 40 against nobody with chips: Ann folded.
    assert hand.contributed == [30, 20, 50] and hand.phase == "draw"
    assert hand.pots() == [Pot(60, ("ben", "cara")), Pot(40, ("cara",))]


def test_cash_record_replays_without_the_new_keys():
    rec = record("a5-draw", ["a", "b"], 0, deck_for([], ""), ["b bet", "a call"])
    assert set(replay_json(rec)) == {
        "complete",
        "pot",
        "to_act",
        "legal",
        "payouts",
        "net",
        "hands",
        "error",
    }


def test_views_show_who_is_all_in_each_pot_and_the_stakes():

    hand = hand_of(side_pot_record(SIDE_POT_ACTIONS[:3]))
    view = public_view(hand)
    assert view.tournament and view.all_in == ("ann",)
    assert [s.all_in for s in view.seats] == [True, False, False]
    assert view.pots == (Pot(75, ("ann", "ben", "cara")), Pot(40, ("ben", "cara")))
    assert view.stakes == Stakes(ante=10, small_bet=20, big_bet=40)
    mine = seat_view(hand, "ben")
    assert mine.public == view and len(mine.cards) == 5
    done = public_view(hand_of(side_pot_record()))
    assert [p.winners for p in done.pots] == [("ann",), ("cara",)]
    assert [(a.label, a.pot, a.shares) for a in done.awards] == [
        ("pot", 0, {"ann": 75}),
        ("pot", 1, {"cara": 120}),
    ]


def test_replay_cli_refuses_bad_tournament_headers_with_index_null():
    for change in ({"allin": "yes"}, {"stakes": None}, {"stakes": {"ante": 10}}):
        rec = dict(side_pot_record(), **change)
        out = cli(rec)
        assert out["error"]["index"] is None and out["complete"] is False
    rec = side_pot_record()
    del rec["allin"]  # a cash hand at these stakes: Ann's 25 is below the minimum 250
    out = cli(rec)
    assert out["error"]["index"] is None
    assert "below the table minimum 250" in out["error"]["message"]
