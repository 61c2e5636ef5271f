"""Tournament hands of RULES.md §8.7 as records, shared by the engine's, the history's, the
UI's and the computer players' tests: the a5-draw side pot and the Abyssinia all-in."""

from __future__ import annotations

from bot.engine import Action, Hand, parse_header
from bot.engine.record import parse_actions
from tests.support.engine_helpers import deck_for, record

DRAW_10_20_40 = {"ante": 10, "small_bet": 20, "big_bet": 40}


def tournament(variant, stacks: dict[str, int], dealer, deck, actions, stakes=None) -> dict:
    rec = record(variant, list(stacks), dealer, deck, actions)
    for seat in rec["seats"]:
        seat["stack"] = stacks[seat["player"]]
    rec["allin"] = True
    if stakes is not None:
        rec["stakes"] = stakes
    return rec


def hand_of(rec: dict) -> Hand:
    hand = Hand(parse_header(rec))
    for action in parse_actions(rec["actions"]):
        assert isinstance(action, Action)
        hand.apply(action)
    return hand


# ----- 8.7: side pot, a5-draw

SIDE_POT_DECK = deck_for(["5h 4h 3s 2d Ac", "Kc Qd Jh 9s 8c", "7c 5d 4c 3h 2c"])
SIDE_POT_ACTIONS = [
    "ann bet",
    "ben raise",
    "cara call",
    "ann discard",
    "ben discard",
    "cara discard",
    "ben check",
    "cara bet",
    "ben call",
]


def side_pot_record(actions=SIDE_POT_ACTIONS) -> dict:
    stacks = {"ann": 25, "ben": 200, "cara": 200}
    return tournament("a5-draw", stacks, 2, SIDE_POT_DECK, actions, DRAW_10_20_40)


# ----- 8.7: Abyssinia all-in in the buys

ABY_DECK = deck_for([], "2c Kd 7c 3h 9s 9h 4c As 9d 5d 2d Kc 5s 3c 9c Qs 4d")
ABY_ACTIONS = [
    "anna buy left",
    "ben buy blind",
    "dan buy right",
    "anna bet",
    "ben call",
    "dan call",
    "anna buy blind",
    "ben buy blind",
    "dan buy blind",
    "anna bet",
    "ben call",
    *(["anna buy blind", "ben buy blind", "dan buy blind", "anna check", "ben check"] * 3),
]
ABY_STAKES = {"ante": 1, "bet": 1, "prices": [2, 1, 4]}


def aby_record(actions=ABY_ACTIONS) -> dict:
    stacks = {"anna": 100, "ben": 100, "dan": 5}
    return tournament("abyssinia", stacks, 2, ABY_DECK, actions, ABY_STAKES)
