"""The pure history package: replay steps, hand-history text, public log, statistics.

Random hands of every game check the privacy rule over everything a viewer's steps and
exports hold; the worked hand of RULES.md §7 checks the hand-history text line by line.
"""

from __future__ import annotations

import csv
import io
import random

import pytest

from bot.engine import Action, Hand
from bot.engine.cards import FULL_DECK, format_card
from bot.engine.record import parse_record
from bot.engine.simulate import new_random_hand, random_action
from bot.history.access import replay_access
from bot.history.hand_stats import hand_stats
from bot.history.handtext import hand_text
from bot.history.publiclog import public_log_csv
from bot.history.replay_steps import replay_steps
from bot.history.stored import StoredHand
from bot.storage.totals import SERIES_POINTS, HandStats, Totals
from tests.support.history_helpers import card_words, seen, step_cards, stored

TOP = ("8c", "6s", "4h", "5d", "3s", "3c", "2d", "2h", "Ac", "Ad", "5h")  # RULES.md §7's deck
GAMES = [("a6-draw", 5), ("a5-draw", 3), ("a5-triple", 6), ("abyssinia", 8)]


def random_hand(variant: str, seats: int, seed: int) -> Hand:
    rng = random.Random(seed)
    hand = new_random_hand(variant, seats, rng)
    while not hand.complete:
        hand.apply(random_action(hand, rng))
    return hand


@pytest.mark.parametrize(("variant", "seats"), GAMES)
def test_steps_and_exports_hold_only_what_each_viewer_saw(variant, seats):
    for seed in range(25):
        hand = random_hand(variant, seats, seed)
        record = hand.record()
        for viewer in [None, *hand.players]:
            allowed = seen(record, viewer)
            steps = replay_steps(record, viewer)
            assert len(steps) == len(record.actions) + 2 + int(hand.showdown)
            for step in steps:
                assert step_cards(step) <= allowed, (seed, viewer, step.kind)
        for player in hand.players:  # a player's own export (the public one is the log below)
            text = hand_text(stored(hand), player)
            assert card_words(text) <= seen(record, player), (seed, player)
        log, _ = public_log_csv([stored(hand)])
        assert card_words(log) <= seen(record, None), seed


def test_the_worked_hand_of_the_rules_as_pokerstars_text():
    record = parse_record(
        {
            "variant": "a5-draw",
            "seats": [{"player": "lena", "stack": 40}, {"player": "mike", "stack": 40}],
            "dealer": 1,
            "deck": list(TOP) + [format_card(c) for c in FULL_DECK if format_card(c) not in TOP],
            "actions": [
                {"player": "lena", "action": "bet"},
                {"player": "mike", "action": "call"},
                {"player": "lena", "action": "discard", "cards": ["8c"]},
                {"player": "mike", "action": "discard", "cards": []},
                {"player": "lena", "action": "bet"},
                {"player": "mike", "action": "call"},
            ],
        }
    )
    hand = StoredHand(12, 1, 99, "a5-draw", 0.0, 86400.0, record, {"lena": "Lena", "mike": "Mike"})
    assert hand_text(hand, "lena").splitlines() == [
        "PokerBot Hand #12: Ace-to-Five Lowball Draw (1/2 Fixed Limit, ante 1) - "
        "1970/01/02 00:00:00 UTC",
        "Table '99' 5-max Seat #2 is the button",
        "Seat 1: Lena (40 in chips)",
        "Seat 2: Mike (40 in chips)",
        "Lena: posts the ante 1",
        "Mike: posts the ante 1",
        "*** DEALING HANDS ***",
        "Dealt to Lena [8c 4h 3s 2d Ac]",
        "Lena: bets 1",
        "Mike: calls 1",
        "*** FIRST DRAW ***",
        "Lena: discards 1 card [8c]",
        "Dealt to Lena [4h 3s 2d Ac 5h]",
        "Mike: stands pat",
        "Lena: bets 2",
        "Mike: calls 2",
        "*** SHOW DOWN ***",
        "Lena: shows [4h 3s 2d Ac 5h]",
        "Mike: shows [6s 5d 3c 2h Ad]",
        "Lena collected 8 from pot with 5-4-3-2-A, five low",
        "*** SUMMARY ***",
        "Total pot 8",
        "Seat 1: Lena showed [4h 3s 2d Ac 5h] and won (8), net +4",
        "Seat 2: Mike (button) showed [6s 5d 3c 2h Ad] and lost, net -4",
    ]
    # Mike's export never names Lena's thrown eight; the public log names nobody's
    assert "8c" not in hand_text(hand, "mike")
    log, count = public_log_csv([hand])
    rows = list(csv.reader(io.StringIO(log)))
    assert count == len(rows) - 1 and "8c" not in log
    assert ['"Lena @ lena" draws 1', "1970-01-02T00:00:00.000Z", "5"] in rows
    assert ['"Mike @ mike" stands pat', "1970-01-02T00:00:00.000Z", "6"] in rows


def test_who_may_replay_what():
    hand = stored(random_hand("a5-draw", 3, 1))
    player = hand.record.seats[0].player
    assert replay_access(None, 1, 5).refused == "unknown"
    assert replay_access(hand, 2, 5).refused == "unknown"  # another server's hand
    live = stored(random_hand("a5-draw", 3, 1), finished=False)
    assert replay_access(live, 1, 5).refused == "live"
    assert replay_access(hand, 1, int(player[1:]) if player[1:].isdigit() else 0).refused is None
    spectator = replay_access(hand, 1, 424242)
    assert spectator.refused is None and spectator.viewer is None


def test_statistics_of_one_hand_and_the_running_totals():
    hand = Hand.start("a5-triple", [("1", 60), ("2", 60)], 0, FULL_DECK)
    for player, action in [("1", "call"), ("2", "check"), ("2", "pat"), ("1", "two")]:
        if action in ("pat", "two"):
            held = hand.holdings[hand.seat_of(player)]
            cards = tuple(held[:2]) if action == "two" else ()
            hand.apply(Action(player, "discard", cards=cards))
        else:
            hand.apply(Action(player, action))
    hand.apply(Action("2", "bet"))
    hand.apply(Action("1", "fold"))
    got = hand_stats(hand)
    assert got["1"] == HandStats(-2, 1, 0, 0, (2,), (0, 0, 0), 0, 0)  # the call was theirs
    assert got["2"] == HandStats(2, 1, 0, 0, (0,), (0, 0, 0), 0, 0)  # a bet is voluntary
    totals = Totals().add(got["2"], 5.0).add(got["2"], 6.0)
    assert (totals.hands, totals.net, totals.draw_times[0], totals.draw_pats[0]) == (2, 4, 2, 2)
    assert totals.public().draw_times == (0, 0, 0) and totals.public().vpip == 0


def test_the_chart_series_stays_bounded_and_ends_at_the_latest_hand():
    totals, net = Totals(), 0
    checked: dict[int, tuple[int, list[tuple[int, int]], int]] = {}
    for n in range(1, 20_001):
        step = HandStats(n % 7 - 3, 0, 0, 0, (), (0, 0, 0), 0, 0)
        net += step.net
        totals = totals.add(step, float(n))
        if n in (20, 20_000):
            checked[n] = (len(totals.series), totals.chart_points(), net)
    assert sorted(checked) == [20, 20_000]
    for n, (size, points, net_then) in checked.items():
        assert size <= SERIES_POINTS
        assert points[0] == (0, 0) and points[-1] == (n, net_then)
        assert all(a[0] < b[0] for a, b in zip(points, points[1:], strict=False))
    assert totals.stride & (totals.stride - 1) == 0  # a power of two
