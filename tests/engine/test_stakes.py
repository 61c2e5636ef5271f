"""Stakes (RULES.md §8.1) and the tournament header keys (§8.6): parsing, refusing, writing."""

from __future__ import annotations

import json

import pytest

from bot.engine import Hand, RecordError, Stakes, parse_header
from bot.engine.cards import FULL_DECK
from bot.engine.record import new_header
from bot.engine.replay import replay_json
from tests.support.engine_helpers import deck_for, record


def test_cash_stakes_are_sections_4_to_6_and_give_the_table_minimums():
    assert Stakes.cash("a5-draw").to_json() == {"ante": 1, "small_bet": 1, "big_bet": 2}
    assert Stakes.cash("a5-triple").to_json() == {
        "small_blind": 1,
        "big_blind": 2,
        "small_bet": 2,
        "big_bet": 4,
    }
    assert Stakes.cash("abyssinia").to_json() == {"ante": 1, "bet": 1, "prices": [2, 1, 4]}
    minimums = {v: Stakes.cash(v).table_minimum(v) for v in ("a6-draw", "a5-triple", "abyssinia")}
    assert minimums == {"a6-draw": 13, "a5-triple": 48, "abyssinia": 41}


def test_table_minimum_formula_of_8_6():
    assert (
        Stakes.from_json("a5-draw", {"ante": 10, "small_bet": 20, "big_bet": 40}).table_minimum(
            "a5-draw"
        )
        == 10 + 80 + 160
    )
    triple = {"small_blind": 10, "big_blind": 20, "small_bet": 20, "big_bet": 40}
    assert Stakes.from_json("a5-triple", triple).table_minimum("a5-triple") == 160 + 320
    aby = {"ante": 2, "bet": 3, "prices": [4, 2, 9]}
    assert Stakes.from_json("abyssinia", aby).table_minimum("abyssinia") == 2 + 45 + 60


@pytest.mark.parametrize("variant", ["a6-draw", "a5-draw", "a5-triple", "abyssinia"])
def test_stakes_round_trip_through_json(variant):
    stakes = Stakes.cash(variant)
    assert Stakes.from_json(variant, json.loads(json.dumps(stakes.to_json()))) == stakes


@pytest.mark.parametrize(
    ("variant", "stakes", "message"),
    [
        ("a5-draw", {"ante": 1, "small_bet": 1}, "missing big_bet"),
        ("a5-draw", {"ante": 1, "small_bet": 1, "big_bet": 2, "bet": 1}, "bet is not one"),
        ("a5-draw", {"ante": 0, "small_bet": 1, "big_bet": 2}, "ante must be"),
        ("a5-draw", {"ante": 1, "small_bet": 2, "big_bet": 1}, "big_bet must be at least"),
        ("a5-draw", {"ante": True, "small_bet": 1, "big_bet": 2}, "ante must be"),
        ("a5-draw", {"ante": 1.5, "small_bet": 1, "big_bet": 2}, "ante must be"),
        ("a5-draw", [1, 1, 2], "must be an object"),
        ("a5-draw", None, "must be an object"),
        (
            "a5-triple",
            {"small_blind": 1, "big_blind": 3, "small_bet": 2, "big_bet": 4},
            "big_blind must equal small_bet",
        ),
        (
            "a5-triple",
            {"small_blind": 2, "big_blind": 2, "small_bet": 2, "big_bet": 4},
            "small_blind must be below",
        ),
        ("a5-triple", {"ante": 1, "small_bet": 1, "big_bet": 2}, "missing small_blind"),
        ("abyssinia", {"ante": 1, "bet": 1, "prices": [2, 1]}, "three whole numbers"),
        ("abyssinia", {"ante": 1, "bet": 1, "prices": [2, 0, 4]}, "prices[1] must be"),
        ("abyssinia", {"ante": 1, "bet": 1, "prices": "2,1,4"}, "three whole numbers"),
    ],
)
def test_bad_stakes_are_a_bad_header_with_index_null(variant, stakes, message):
    with pytest.raises(RecordError) as caught:
        Stakes.from_json(variant, stakes)
    assert caught.value.index is None and message in caught.value.message
    rec = record(variant, ["a", "b"], 0, deck_for([], ""), [], stack=10_000)
    rec["stakes"] = stakes
    out = replay_json(rec)
    assert out["error"]["index"] is None and message in out["error"]["message"]


@pytest.mark.parametrize("value", [False, 1, "true", None, [True]])
def test_allin_other_than_true_is_a_bad_header(value):
    rec = record("a5-draw", ["a", "b"], 0, deck_for([], ""), [])
    rec["allin"] = value
    out = replay_json(rec)
    assert out["error"]["index"] is None and "allin must be true" in out["error"]["message"]


def test_allin_hands_deal_in_any_stack_of_one_chip_or_more():
    rec = record("a5-triple", ["a", "b", "c"], 0, deck_for([], ""), [], stack=1)
    assert "below the table minimum 48" in replay_json(rec)["error"]["message"]
    rec["allin"] = True
    assert replay_json(rec)["error"] is None
    rec["seats"][1]["stack"] = 0
    out = replay_json(rec)
    assert (
        out["error"]["index"] is None and "b's stack 0 is below 1 chip" in out["error"]["message"]
    )


def test_stakes_without_allin_are_a_cash_hand_with_the_formula_minimum():
    rec = record("a5-draw", ["a", "b"], 0, deck_for([], ""), [], stack=249)
    rec["stakes"] = {"ante": 10, "small_bet": 20, "big_bet": 40}
    assert "below the table minimum 250" in replay_json(rec)["error"]["message"]
    rec["seats"][0]["stack"] = rec["seats"][1]["stack"] = 250
    assert replay_json(rec)["error"] is None


def test_header_json_writes_the_new_keys_only_when_set():
    rec = record("abyssinia", ["a", "b"], 0, deck_for([], ""), [])
    del rec["actions"], rec["reshuffles"]
    cash = parse_header(rec)
    assert cash.stakes is None and cash.allin is False
    assert json.dumps(cash.header_json()) == json.dumps(rec)  # byte-for-byte what it was
    rec["allin"] = True
    rec["stakes"] = {"ante": 5, "bet": 10, "prices": [20, 10, 40]}
    header = parse_header(rec)
    assert header.allin and header.stakes == Stakes(ante=5, bet=10, prices=(20, 10, 40))
    assert header.header_json() == rec
    assert parse_header(header.header_json()) == header


def test_new_header_takes_stakes_and_allin_and_checks_them_as_a_record_would():
    stakes = Stakes(small_blind=10, big_blind=20, small_bet=20, big_bet=40)
    header = new_header(
        "a5-triple", [("a", 5), ("b", 500)], 0, FULL_DECK, stakes=stakes, allin=True
    )
    assert header.stakes == stakes and header.allin
    hand = Hand(header)
    assert hand.record().header_json() == header.header_json()
    with pytest.raises(RecordError, match="below the table minimum 480"):
        new_header("a5-triple", [("a", 479), ("b", 500)], 0, FULL_DECK, stakes=stakes)
    bad = Stakes(small_blind=10, big_blind=30, small_bet=20, big_bet=40)
    with pytest.raises(RecordError, match="big_blind must equal small_bet"):
        new_header("a5-triple", [("a", 500), ("b", 500)], 0, FULL_DECK, stakes=bad, allin=True)
