"""Building decks and records for engine tests, written the way RULES.md writes hands, and
probing a hand: its state, the actions it must refuse."""

from __future__ import annotations

import copy
import random

from hypothesis import strategies as st

from bot.engine import VARIANTS, Action, Hand, Stakes
from bot.engine.cards import FULL_DECK, format_card, parse_cards


def deck_for(hands: list[str], then: str = "") -> list[str]:
    """A full deck dealing ``hands`` (in dealing order, i.e. from left of the dealer)
    one card at a time, followed by the cards of ``then``, then every other card."""
    parsed = [parse_cards(h) for h in hands]
    order = [parsed[seat][i] for i in range(5) for seat in range(len(parsed))]
    order += parse_cards(then)
    assert len(set(order)) == len(order), "a card is used twice"
    return [format_card(c) for c in order + [c for c in FULL_DECK if c not in order]]


def rotate_to_seats(hands: list[str], dealer: int) -> list[str]:
    """Turn hands given per seat (index 0 first) into dealing order from left of the dealer."""
    n = len(hands)
    return [hands[(dealer + 1 + i) % n] for i in range(n)]


def record(variant: str, players: list[str], dealer: int, deck: list[str], actions, stack=100):
    return {
        "variant": variant,
        "seats": [{"player": p, "stack": stack} for p in players],
        "dealer": dealer,
        "deck": deck,
        "reshuffles": [],
        "actions": [_action(a) for a in actions],
    }


def _action(text: str) -> dict:
    """'lena bet', 'lena discard 8c 7d', 'anna buy blind'."""
    player, name, *rest = text.split()
    out = {"player": player, "action": name}
    if name == "discard":
        out["cards"] = rest
    if name == "buy":
        out["from"] = rest[0]
    return out


#: (variant, seats, seed) for every game and seat count
GAMES = st.sampled_from(sorted(VARIANTS)).flatmap(
    lambda v: st.tuples(
        st.just(v), st.integers(VARIANTS[v].min_seats, VARIANTS[v].max_seats), st.integers(0, 2**32)
    )
)

#: the example record of RULES.md §7
RULES_EXAMPLE = {
    "variant": "a5-draw",
    "seats": [{"player": "lena", "stack": 40}, {"player": "mike", "stack": 40}],
    "dealer": 1,
    "deck": deck_for([], "8c 6s 4h 5d 3s 3c 2d 2h Ac Ad 5h"),
    "reshuffles": [],
    "actions": [
        {"player": "lena", "action": "bet"},
        {"player": "mike", "action": "call"},
        {"player": "lena", "action": "discard", "cards": ["8c"]},
        {"player": "mike", "action": "discard", "cards": []},
        {"player": "lena", "action": "bet"},
        {"player": "mike", "action": "call"},
    ],
}


#: realistic tournament level rows per game (RULES.md §8.1 keys), from the first level up
LEVEL_ROWS: dict[str, list[dict]] = {
    "a6-draw": [
        {"ante": a, "small_bet": s, "big_bet": 2 * s}
        for a, s in ((1, 1), (1, 2), (2, 4), (5, 10), (10, 20), (25, 50))
    ],
    "a5-triple": [
        {"small_blind": b // 2, "big_blind": b, "small_bet": b, "big_bet": 2 * b}
        for b in (2, 4, 10, 20, 50, 100)
    ],
    "abyssinia": [
        {"ante": a, "bet": b, "prices": [2 * b, b, 4 * b]} for a, b in ((1, 1), (1, 2), (2, 5))
    ],
}
LEVEL_ROWS["a5-draw"] = LEVEL_ROWS["a6-draw"]


@st.composite
def tourneys(draw):
    """(variant, stakes JSON, stacks, dealer, seed) of a random tournament hand: two players
    to the game's maximum, stacks from 1 chip up (often shorter than a round's bets)."""
    variant = draw(st.sampled_from(sorted(VARIANTS)))
    v = VARIANTS[variant]
    seats = draw(st.integers(v.min_seats, v.max_seats))
    stakes = draw(st.sampled_from(LEVEL_ROWS[variant]))
    unit = stakes.get("big_bet") or stakes.get("bet")
    stack = st.one_of(st.integers(1, 3 * unit), st.integers(1, 40 * unit))
    stacks = draw(st.lists(stack, min_size=seats, max_size=seats))
    dealer = draw(st.integers(0, seats - 1))
    return variant, stakes, stacks, dealer, draw(st.integers(0, 2**32))


TOURNEYS = tourneys()


def tournament_hand(variant, stakes, stacks, dealer, rng):
    """A tournament Hand (``"allin": true``) with a random deck from ``rng``."""

    deck = sorted(FULL_DECK, key=lambda _: rng.random())
    seats = [(f"p{i}", s) for i, s in enumerate(stacks)]
    parsed = Stakes.from_json(variant, stakes)
    return Hand.start(variant, seats, dealer, deck, rng=rng, stakes=parsed, allin=True)


def snapshot(hand: Hand) -> dict:
    state = {k: v for k, v in vars(hand).items() if k not in ("rng", "header")}
    return copy.deepcopy(state)


def illegal_actions(hand: Hand, rng: random.Random) -> list[Action]:
    d = hand.decision()
    others = [p for p in hand.players if p != d.player]
    bad = [Action(rng.choice(others), "check"), Action(d.player, "shove")]
    if d.phase == "bet":
        bad += [
            Action(d.player, k)
            for k in ("check", "bet", "call", "raise", "fold")
            if k not in d.legal
        ]
        bad += [Action(d.player, "discard", cards=()), Action(d.player, "buy", source="left")]
    else:
        bad += [Action(d.player, "fold"), Action(d.player, "bet")]
    if d.phase == "draw":
        foreign = next(c for c in FULL_DECK if c not in d.discardable)
        bad.append(Action(d.player, "discard", cards=(foreign,)))
    return bad
