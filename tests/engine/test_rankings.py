"""Hand rankings (RULES.md §2) and card text (RULES.md §1)."""

from __future__ import annotations

import itertools
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.engine import rankings
from bot.engine.cards import (
    FULL_DECK,
    CardError,
    format_cards,
    make_card,
    parse_card,
    parse_cards,
    rank_of,
)
from bot.engine.rankings import CATEGORIES, VALUE, a5_value, a6_value, category, describe

# --------------------------------------------------------------------------
# RULES.md §2, "Worked comparisons", copied as written there.

WORKED = [
    ("a6", "6♣ 4♥ 3♠ 2♦ A♣", "5♠ 4♦ 3♣ 2♥ A♦", "the wheel is a straight"),
    ("a6", "K♣ 9♦ 7♥ 4♠ 2♣", "A♠ 2♦ 3♣ 4♥ 5♦", "any no-pair beats a straight"),
    ("a6", "8♣ 6♥ 4♦ 3♣ A♦", "7♠ 5♠ 4♠ 3♠ A♠", "the second is a flush"),
    ("a6", "K♠ Q♦ J♣ 9♥ 8♠", "A♣ K♦ Q♥ J♠ T♣", "T-J-Q-K-A is a straight"),
    ("a6", "A♣ A♦ 3♥ 4♠ 5♣", "2♥ 2♠ 3♦ 4♦ 5♦", "aces are the lowest pair"),
    ("a5", "5♥ 4♥ 3♠ 2♦ A♣", "6♠ 5♦ 3♣ 2♥ A♦", "five-high beats six-high"),
    ("a5", "8♠ 5♦ 4♣ 3♥ 2♠", "8♣ 6♥ 4♦ 2♣ A♦", "eights tie, 5 below 6"),
    ("a5", "5♠ 4♠ 3♠ 2♠ A♠", "6♣ 4♦ 3♥ 2♠ A♣", "flushes and straights don't count"),
    ("a5", "7♠ 5♦ 4♣ 3♥ 2♠", "8♣ 4♦ 3♦ 2♣ A♦", "compare top cards first"),
    ("a5", "A♣ A♦ 3♥ 4♠ 5♣", "2♥ 2♠ 3♦ 4♦ 5♦", "pair of aces beats pair of deuces"),
    ("a5", "K♣ Q♦ J♥ 9♠ 8♣", "A♣ A♦ 2♥ 3♠ 4♣", "any no-pair beats any pair"),
    ("high", "9♠ 9♥ 9♦ K♣ 2♣", "8♠ 5♦ 4♣ 3♥ A♦", "trips beat eight-high"),
    ("high", "5♣ 4♦ 3♥ 2♠ A♣", "A♦ A♥ K♠ Q♣ J♦", "the wheel is a straight"),
]


@pytest.mark.parametrize(("ranking", "better", "worse", "why"), WORKED)
def test_worked_comparisons(ranking, better, worse, why):
    value = VALUE[ranking]
    b, w = parse_cards(better), parse_cards(worse)
    assert value(b) > value(w), why
    # Order of the cards in hand never matters.
    assert value(tuple(reversed(b))) == value(b)
    assert value(tuple(reversed(w))) == value(w)


def test_best_hands():
    a6_best = parse_cards("6♣ 4♥ 3♠ 2♦ A♣")
    assert a6_value(a6_best) == 7461
    assert a5_value(parse_cards("5♠ 4♠ 3♠ 2♠ A♠")) == 6174
    assert VALUE["high"](parse_cards("As Ks Qs Js Ts")) == 7461
    # a6: the same six-low suited is a flush, far worse.
    assert a6_value(parse_cards("6♣ 4♣ 3♣ 2♣ A♣")) < a6_value(parse_cards("K♣ Q♦ J♥ 9♠ 8♣"))


def test_suits_never_break_ties():
    for ranking, value in VALUE.items():
        assert value(parse_cards("8s 5d 4c 3h 2s")) == value(parse_cards("8d 5c 4h 3s 2d")), ranking
        assert value(parse_cards("Ks Kd 4c 4h 2s")) == value(parse_cards("Kc Kh 4d 4s 2c")), ranking


def test_a6_straight_edges():
    v = a6_value
    # No wraparound: J-Q-K-A-2 is a plain king-low no-pair hand.
    assert category("a6", parse_cards("Jc Qd Kh As 2c")) == "no pair"
    assert category("a6", parse_cards("Tc Jd Qh Ks Ac")) == "straight"
    assert category("a6", parse_cards("Ac 2d 3h 4s 5c")) == "straight"
    # Straights compare by top card, lower wins; T-J-Q-K-A is the worst.
    wheel = v(parse_cards("Ac 2d 3h 4s 5c"))
    six = v(parse_cards("2c 3d 4h 5s 6c"))
    king = v(parse_cards("9c Td Jh Qs Kc"))
    broadway = v(parse_cards("Tc Jd Qh Ks Ac"))
    assert wheel > six > king > broadway
    # Every straight beats every flush, every flush beats every full house.
    assert broadway > v(parse_cards("Ac 2c 3c 4c 6c")) > v(parse_cards("Ac Ad Ah 2c 2d"))
    # Straight flush is the worst category; its best is still worse than quads.
    assert v(parse_cards("Kc Kd Kh Ks Qc")) > v(parse_cards("Ac 2c 3c 4c 5c"))
    assert v(parse_cards("Ac 2c 3c 4c 5c")) > v(parse_cards("Ts Js Qs Ks As"))


def test_high_straight_edges():
    v = VALUE["high"]
    assert v(parse_cards("2c 3d 4h 5s 6c")) > v(parse_cards("Ac 2d 3h 4s 5c"))
    assert v(parse_cards("Ac 2d 3h 4s 5c")) > v(parse_cards("Ac Ad Ah Ks Qc"))
    assert category("high", parse_cards("Jc Qd Kh As 2c")) == "no pair"
    assert v(parse_cards("Ac 2c 3c 4c 5c")) > v(parse_cards("Kc Kd Kh Ks Ac"))


# --------------------------------------------------------------------------
# Exhaustive checks over all 2,598,960 hands.

HAND_COUNT = 2_598_960
DISTINCT = {"high": 7462, "a5": 6175, "a6": 7462}


def _reference(ranking: str, hand) -> tuple[str, tuple]:
    """Slow, independent statement of RULES.md §2: category and a key where a
    greater key is a better hand."""
    ranks = [rank_of(c) for c in hand]  # 2=0 … A=12
    flush = len({c & 0xF000 for c in hand}) == 1
    if ranking != "high":
        ranks = [(r + 1) % 13 for r in ranks]  # ace lowest: A=0, 2=1 … K=12
    groups = sorted(Counter(ranks).items(), key=lambda kv: (kv[1], kv[0]), reverse=True)
    shape = tuple(n for _, n in groups)
    ordered = tuple(r for r, n in groups for _ in range(n))
    straight_top = None
    if len(groups) == 5:
        s = sorted(ranks)
        if s[4] - s[0] == 4:
            straight_top = s[4]
        elif ranking == "high" and s == [0, 1, 2, 3, 12]:
            straight_top = 3  # the wheel, five high
        elif ranking == "a6" and s == [0, 9, 10, 11, 12]:
            straight_top = 13  # T-J-Q-K-A, the highest a6 straight
    if ranking == "a5":
        straight_top, flush = None, False
    name = {
        (1, 1, 1, 1, 1): "no pair",
        (2, 1, 1, 1): "pair",
        (2, 2, 1): "two pair",
        (3, 1, 1): "trips",
        (3, 2): "full house",
        (4, 1): "quads",
    }[shape]
    if straight_top is not None:
        name = "straight flush" if flush else "straight"
    elif flush:
        name = "flush"
    order = CATEGORIES[ranking]  # best first
    strength = len(order) - order.index(name)
    if ranking == "high":
        detail = (straight_top,) if straight_top is not None else ordered
    else:
        # Lowball: lower is better, so negate.
        detail = (-straight_top,) if straight_top is not None else tuple(-r for r in ordered)
    return name, (strength, detail)


@pytest.fixture(scope="module")
def classes():
    """One pass over every hand; returns {hand class: (values, example hand)}.

    A class is the multiset of ranks plus whether the hand is a flush, which is
    everything any ranking may look at. The pass asserts that every hand of a
    class gets the same three values (so suits never break ties).
    """
    high, a5, a6 = VALUE["high"], VALUE["a5"], VALUE["a6"]
    seen: dict[int, tuple[tuple[int, int, int], tuple[int, ...]]] = {}
    get = seen.get
    mismatches = []
    count = 0
    for hand in itertools.combinations(FULL_DECK, 5):
        a, b, c, d, e = hand
        key = (a & 255) * (b & 255) * (c & 255) * (d & 255) * (e & 255)
        if a & b & c & d & e & 0xF000:
            key = -key
        values = (high(hand), a5(hand), a6(hand))
        old = get(key)
        if old is None:
            seen[key] = (values, hand)
        elif old[0] != values:
            mismatches.append(hand)
        count += 1
    assert count == HAND_COUNT
    assert not mismatches[:5], [format_cards(h) for h in mismatches[:5]]
    return seen


def test_class_count(classes):
    # 6,175 rank multisets (no five of a kind) + 1,287 flush rank sets.
    assert len(classes) == 6175 + 1287


@pytest.mark.parametrize("index", range(3), ids=["high", "a5", "a6"])
def test_distinct_values(classes, index):
    ranking = ("high", "a5", "a6")[index]
    values = {vals[index] for vals, _ in classes.values()}
    assert len(values) == DISTINCT[ranking]
    assert values == set(range(DISTINCT[ranking]))  # dense 0..N-1


@pytest.mark.parametrize("index", range(3), ids=["high", "a5", "a6"])
def test_category_order(classes, index):
    ranking = ("high", "a5", "a6")[index]
    lo: dict[str, int] = {}
    hi: dict[str, int] = {}
    for vals, hand in classes.values():
        name, _ = _reference(ranking, hand)
        assert category(ranking, hand) == name, format_cards(hand)
        v = vals[index]
        lo[name] = min(lo.get(name, v), v)
        hi[name] = max(hi.get(name, v), v)
    order = CATEGORIES[ranking]  # best first
    assert set(lo) == set(order)
    for better, worse in itertools.pairwise(order):
        assert lo[better] > hi[worse], (ranking, better, worse)


@pytest.mark.parametrize("index", range(3), ids=["high", "a5", "a6"])
def test_full_order_matches_reference(classes, index):
    """Within and across categories: value order == the reference key order."""
    ranking = ("high", "a5", "a6")[index]
    pairs = sorted((_reference(ranking, hand)[1], vals[index]) for vals, hand in classes.values())
    for (k1, v1), (k2, v2) in itertools.pairwise(pairs):
        if k1 == k2:
            assert v1 == v2
        else:
            assert v1 < v2, (ranking, k1, k2)


def test_order_matches_pokerkit(classes):
    """Cross-check high and a5 against pokerkit on one hand of every class."""
    pk = pytest.importorskip("pokerkit")
    for index, hand_type in ((0, pk.StandardHighHand), (1, pk.RegularLowHand)):
        ours = []
        for vals, hand in classes.values():
            theirs = hand_type("".join(format_cards(hand)))
            ours.append((vals[index], theirs))
        ours.sort(key=lambda p: p[0])
        for (v1, h1), (v2, h2) in itertools.pairwise(ours):
            if v1 == v2:
                assert h1 == h2, (h1, h2)
            else:
                assert h1 < h2, (h1, h2)


cards5 = st.lists(st.sampled_from(FULL_DECK), min_size=5, max_size=5, unique=True)


@given(cards5, st.permutations(range(5)), st.permutations("cdhs"))
def test_order_and_suit_names_do_not_matter(hand, perm, suits):
    relabel = dict(zip("cdhs", suits, strict=True))
    shuffled = [hand[i] for i in perm]
    renamed = [make_card(rank_of(c), relabel[format_cards([c])[0][1]]) for c in hand]
    for ranking, value in VALUE.items():
        assert value(shuffled) == value(hand) == value(renamed)
        assert describe(ranking, shuffled) == describe(ranking, hand)


# --------------------------------------------------------------------------
# describe()

DESCRIBE = [
    ("a5", "8♠ 5♦ 4♣ 3♥ 2♠", "8-5-4-3-2, eight low"),
    ("a5", "A♣ 2♦ 3♥ 4♠ 5♣", "5-4-3-2-A, five low"),
    ("a5", "5♠ 4♠ 3♠ 2♠ A♠", "5-4-3-2-A, five low"),
    ("a5", "K♣ Q♦ J♥ 9♠ T♣", "K-Q-J-T-9, king low"),
    ("a5", "A♣ A♦ 3♥ 4♠ 5♣", "pair of aces"),
    ("a6", "6♣ 4♥ 3♠ 2♦ A♣", "6-4-3-2-A, six low"),
    ("a6", "5♠ 4♦ 3♣ 2♥ A♦", "straight, five high"),
    ("a6", "A♣ K♦ Q♥ J♠ T♣", "straight, ace high"),
    ("a6", "7♠ 5♠ 4♠ 3♠ A♠", "flush, seven high"),
    ("a6", "A♠ 2♠ 3♠ 4♠ 5♠", "straight flush, five high"),
    ("a6", "2♥ 2♠ 3♦ 4♦ 5♦", "pair of deuces"),
    ("high", "K♣ 9♦ 7♥ 4♠ 2♣", "king high"),
    ("high", "A♣ 9♦ 7♥ 4♠ 2♣", "ace high"),
    ("high", "9♣ 9♦ 7♥ 4♠ 2♣", "pair of nines"),
    ("high", "K♣ K♦ 4♥ 4♠ 2♣", "two pair, kings and fours"),
    ("high", "4♣ 4♦ K♥ K♠ 2♣", "two pair, kings and fours"),
    ("high", "9♠ 9♥ 9♦ K♣ 2♣", "three nines"),
    ("high", "5♣ 4♦ 3♥ 2♠ A♣", "straight, five high"),
    ("high", "T♣ J♦ Q♥ K♠ A♣", "straight, ace high"),
    ("high", "K♣ 9♣ 7♣ 4♣ 2♣", "flush, king high"),
    ("high", "4♣ 4♦ 9♥ 9♠ 9♣", "full house, nines over fours"),
    ("high", "6♣ 6♦ 6♥ 6♠ 2♣", "four sixes"),
    ("high", "5♥ 6♥ 7♥ 8♥ 9♥", "straight flush, nine high"),
    ("high", "A♥ 2♥ 3♥ 4♥ 5♥", "straight flush, five high"),
    ("high", "T♠ J♠ Q♠ K♠ A♠", "royal flush"),
]


@pytest.mark.parametrize(("ranking", "text", "name"), DESCRIBE)
def test_describe(ranking, text, name):
    assert describe(ranking, parse_cards(text)) == name


def test_describe_rejects_bad_input():
    with pytest.raises(ValueError):
        describe("badugi", parse_cards("As 2d 3h 4c 5s"))
    with pytest.raises(ValueError):
        describe("a5", parse_cards("As 2d 3h 4c"))


def test_describe_names_every_class(classes):
    for _, hand in classes.values():
        for ranking in rankings.RANKINGS:
            name = describe(ranking, hand)
            assert name and name == name.strip()


# --------------------------------------------------------------------------
# cards.py parsing (RULES.md §1)


def test_parse_both_notations_agree():
    letters = parse_cards("As Kd Qh Jc Ts 9d 2c")
    symbols = parse_cards("A♠ K♦ Q♥ J♣ T♠ 9♦ 2♣")
    assert letters == symbols
    assert format_cards(letters) == ["As", "Kd", "Qh", "Jc", "Ts", "9d", "2c"]


def test_parse_ten_and_case_and_separators():
    assert parse_card("10h") == parse_card("Th") == parse_card("th") == parse_card("10♥")
    assert parse_cards("as,kd, 10c") == parse_cards(["As", "Kd", "Tc"])
    assert parse_card("a♠\ufe0f") == parse_card("As")  # emoji variation selector


def test_full_deck_round_trip():
    assert len(set(FULL_DECK)) == 52
    for card in FULL_DECK:
        assert parse_card(format_cards([card])[0]) == card


@pytest.mark.parametrize("token", ["Ax", "1s", "11h", "Z♠", "s", "", "AsK"])
def test_parse_error_names_token(token):
    with pytest.raises(CardError) as err:
        parse_card(token)
    assert f"'{token}'" in str(err.value)


def test_parse_cards_error_names_bad_token():
    with pytest.raises(CardError, match="'Qx'"):
        parse_cards("As Kd Qx")
