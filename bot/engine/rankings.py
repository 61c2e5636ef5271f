"""The three hand rankings of RULES.md §2: ``high``, ``a5`` and ``a6``.

Each ranking maps a five-card hand to an ``int`` where a **greater value is a
better hand** under that ranking (so for the lowball rankings the best low hand
has the largest value). Two hands get the same value exactly when they tie.
Values are dense: ``high`` and ``a6`` use 0..7461, ``a5`` uses 0..6174.

Evaluation uses two tables per ranking, built once at import:

* every hand that is not a flush is identified by the product of its five rank
  primes (bits 0-7 of a card), looked up in a dict;
* a flush (all five cards share the suit bit, bits 12-15) is identified by the
  OR of its rank bits (bits 16-28), looked up in a list of 8192 entries.

``a5`` ignores flushes, so it needs only the product lookup. ``high`` and ``a6`` look
up the product first too: only a hand of five distinct ranks can be a flush, and the
table marks those, so the (in CPython, costlier) suit test runs for half the hands.

The functions take a sequence of exactly five distinct card ints (see
``bot.engine.cards``); they do not validate their input beyond unpacking it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from enum import StrEnum
from itertools import combinations_with_replacement

from .cards import PRIMES, RANKS, Card

__all__ = [
    "CATEGORIES",
    "RANKINGS",
    "Category",
    "Ranking",
    "VALUE",
    "a5_value",
    "a6_value",
    "category",
    "describe",
    "high_value",
    "in_order",
    "shape",
]


class Ranking(StrEnum):
    """How five cards are ranked (RULES.md §2)."""

    HIGH = "high"  # high hand: the usual poker ranking
    A5 = "a5"  # ace-to-five low: straights and flushes do not count
    A6 = "a6"  # ace-to-six low: the ace is low, straights and flushes count against


class Category(StrEnum):
    """A kind of five-card hand (its value is the name ``describe`` starts from)."""

    STRAIGHT_FLUSH = "straight flush"
    QUADS = "quads"
    FULL_HOUSE = "full house"
    FLUSH = "flush"
    STRAIGHT = "straight"
    TRIPS = "trips"
    TWO_PAIR = "two pair"
    PAIR = "pair"
    NO_PAIR = "no pair"


RANKINGS = tuple(Ranking)
# Module globals: ``_analyse`` runs ~22,000 times at import (a class attribute costs more).
_HIGH, _A5, _A6 = Ranking.HIGH, Ranking.A5, Ranking.A6
_C = Category

# Categories of each ranking, from best to worst.
CATEGORIES: dict[str, tuple[Category, ...]] = {
    _HIGH: (
        _C.STRAIGHT_FLUSH,
        _C.QUADS,
        _C.FULL_HOUSE,
        _C.FLUSH,
        _C.STRAIGHT,
        _C.TRIPS,
        _C.TWO_PAIR,
        _C.PAIR,
        _C.NO_PAIR,
    ),
    _A5: (_C.NO_PAIR, _C.PAIR, _C.TWO_PAIR, _C.TRIPS, _C.FULL_HOUSE, _C.QUADS),
    _A6: (
        _C.NO_PAIR,
        _C.PAIR,
        _C.TWO_PAIR,
        _C.TRIPS,
        _C.STRAIGHT,
        _C.FLUSH,
        _C.FULL_HOUSE,
        _C.QUADS,
        _C.STRAIGHT_FLUSH,
    ),
}

_SINGULAR = (
    "deuce",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "jack",
    "queen",
    "king",
    "ace",
)
_PLURAL = tuple("sixes" if n == "six" else n + "s" for n in _SINGULAR)

_ACE = 12
_WHEEL_BITS = 0b1_0000_0000_1111  # A 5 4 3 2 as rank bits (2 = bit 0)
_BROADWAY_BITS = 0b1_1111_0000_0000  # A K Q J T


_GROUP_CATEGORY = {
    (1, 1, 1, 1, 1): _C.NO_PAIR,
    (2, 1, 1, 1): _C.PAIR,
    (2, 2, 1): _C.TWO_PAIR,
    (3, 1, 1): _C.TRIPS,
    (3, 2): _C.FULL_HOUSE,
    (4, 1): _C.QUADS,
}


def _facts(ranks: Sequence[int]) -> tuple[Category, list[int], list[int], int]:
    """Suit-blind facts of five ranks (rank indexes, 2=0 … A=12).

    Returns the pairing category, the ranks ordered by group size then rank
    (ace high), the same with the ace low, and the rank bits (0 if paired).
    E.g. K K 4 4 9 gives [K, K, 4, 4, 9]; a low A 2 3 4 7 gives [7, 4, 3, 2, A].
    """
    counts: dict[int, int] = {}
    for r in ranks:
        counts[r] = counts.get(r, 0) + 1
    cat = _GROUP_CATEGORY[tuple(sorted(counts.values(), reverse=True))]
    high = sorted(ranks, key=lambda r: counts[r] * 16 + r, reverse=True)
    low = sorted(ranks, key=lambda r: counts[r] * 16 + (r + 1) % 13, reverse=True)
    bits = sum(1 << r for r in ranks) if len(counts) == 5 else 0
    return cat, high, low, bits


def _straight_top(ranking: str, high: list[int], bits: int) -> int | None:
    """Top card of a straight under ``ranking`` (as a strength), or None.

    ``high``: rank index of the top card, the wheel's top is the five (3).
    ``a6``: ace-low strength of the top card (A=0 … K=12), T-J-Q-K-A is 13.
    Arguments: the five distinct ranks sorted ace-high first, and their rank bits.
    """
    if ranking == _A5 or not bits:
        return None
    if bits == _WHEEL_BITS:
        return 3 if ranking == _HIGH else 4
    if bits == _BROADWAY_BITS:
        return 12 if ranking == _HIGH else 13
    if high[0] - high[4] != 4:
        return None
    return high[0] if ranking == _HIGH else high[0] + 1


_Facts = tuple[Category, list[int], list[int], int]


def _analyse(
    ranking: str, facts: _Facts, flush: bool
) -> tuple[Category, tuple[int, tuple[int, ...]]]:
    """Category and a sort key (greater = better) of a hand under ``ranking``."""
    cat, high, low, bits = facts
    cats = CATEGORIES[ranking]
    top = _straight_top(ranking, high, bits)
    if ranking != _A5 and bits:
        if top is not None:
            cat = _C.STRAIGHT_FLUSH if flush else _C.STRAIGHT
        elif flush:
            cat = _C.FLUSH
    strength = len(cats) - cats.index(cat)
    if ranking == _HIGH:
        return cat, (strength, (top,) if top is not None else tuple(high))
    if top is not None:
        return cat, (strength, (-top,))
    return cat, (strength, tuple(-((r + 1) % 13) for r in low))


def _build() -> tuple[dict[str, dict[int, int]], dict[str, list[int]], dict[str, list[Category]]]:
    """Product dicts, flush lists and value→category lists for every ranking."""
    classes: list[tuple[tuple[int, ...], bool, _Facts]] = []
    for ranks in combinations_with_replacement(range(13), 5):
        if ranks[0] != ranks[4]:
            facts = _facts(ranks)
            classes.append((ranks, False, facts))
            if facts[3]:
                classes.append((ranks, True, facts))

    products: dict[str, dict[int, int]] = {}
    flushes: dict[str, list[int]] = {}
    cat_of: dict[str, list[Category]] = {}
    for ranking in RANKINGS:
        analysed = [_analyse(ranking, facts, flush) for _, flush, facts in classes]
        keys = sorted({key for _, key in analysed})
        dense = {key: i for i, key in enumerate(keys)}
        prod: dict[int, int] = {}
        flush_table = [-1] * 8192
        cats = [_C.NO_PAIR] * len(keys)  # every entry is set below
        for (multiset, flush, facts), (cat, key) in zip(classes, analysed, strict=True):
            value = dense[key]
            cats[value] = cat
            if flush:
                flush_table[facts[3]] = value
            else:
                product = 1
                for r in multiset:
                    product *= PRIMES[r]
                prod[product] = value
        products[ranking] = prod
        flushes[ranking] = flush_table
        cat_of[ranking] = cats
    return products, flushes, cat_of


def _flush_marked(products: dict[int, int], flushes: list[int]) -> dict[int, int]:
    """``products`` with the value of every five-distinct-rank hand stored as ``~value``
    (negative): only those can be flushes, so a hand with a pair or more (half of all
    hands) is decided by the one lookup, without the suit test. The suit test costs more
    than the lookup in CPython: its ANDs of whole card ints allocate, ``& 255`` does not."""
    marked = dict(products)
    for bits in (b for b, value in enumerate(flushes) if value >= 0):
        product = 1
        for r in range(13):
            if bits >> r & 1:
                product *= PRIMES[r]
        marked[product] = ~products[product]
    return marked


_PRODUCTS, _FLUSHES, _CATEGORY_OF = _build()
_HIGH_MARKED = _flush_marked(_PRODUCTS[_HIGH], _FLUSHES[_HIGH])
_HIGH_FLUSH = _FLUSHES[_HIGH]
_A5_PROD = _PRODUCTS[_A5]
_A6_MARKED = _flush_marked(_PRODUCTS[_A6], _FLUSHES[_A6])
_A6_FLUSH = _FLUSHES[_A6]


def high_value(cards: Sequence[Card]) -> int:
    """Value of five cards under ``high`` (greater = better)."""
    a, b, c, d, e = cards
    value = _HIGH_MARKED[(a & 255) * (b & 255) * (c & 255) * (d & 255) * (e & 255)]
    if value >= 0:  # a pair or more: never a flush
        return value
    if a & b & 0xF000 and a & b & c & d & e & 0xF000:  # most fail at the first two cards
        return _HIGH_FLUSH[(a | b | c | d | e) >> 16]
    return ~value


def a5_value(cards: Sequence[Card]) -> int:
    """Value of five cards under ace-to-five low (greater = better = lower hand)."""
    a, b, c, d, e = cards
    return _A5_PROD[(a & 255) * (b & 255) * (c & 255) * (d & 255) * (e & 255)]


def a6_value(cards: Sequence[Card]) -> int:
    """Value of five cards under ace-to-six low (greater = better = lower hand)."""
    a, b, c, d, e = cards
    value = _A6_MARKED[(a & 255) * (b & 255) * (c & 255) * (d & 255) * (e & 255)]
    if value >= 0:  # a pair or more: never a flush
        return value
    if a & b & 0xF000 and a & b & c & d & e & 0xF000:
        return _A6_FLUSH[(a | b | c | d | e) >> 16]
    return ~value


VALUE: dict[str, Callable[[Sequence[Card]], int]] = {
    _HIGH: high_value,
    _A5: a5_value,
    _A6: a6_value,
}


def category(ranking: str, cards: Sequence[Card]) -> Category:
    """Category name of five cards under ``ranking``, one of ``CATEGORIES[ranking]``."""
    return _CATEGORY_OF[ranking][VALUE[ranking](cards)]


def shape(ranking: str, cards: Sequence[Card]) -> tuple[Category, tuple[int, ...]]:
    """The category of five cards under ``ranking`` and their ranks (2=0 … A=12) in the
    order the hand is read: groups first, then highest first, the ace low in the lowball
    rankings; a straight from its top card (the wheel's ace last). Callers name and
    show hands from this; the category is one of ``CATEGORIES[ranking]``."""
    ranks = [(c >> 8) & 0xF for c in cards]
    flush = bool(cards[0] & cards[1] & cards[2] & cards[3] & cards[4] & 0xF000)
    facts = _facts(ranks)
    cat, _ = _analyse(ranking, facts, flush)
    order = facts[2] if ranking != _HIGH else facts[1]
    if cat in (_C.STRAIGHT, _C.STRAIGHT_FLUSH):  # read from the top card; the wheel's is the 5
        wheel = facts[3] == _WHEEL_BITS
        order = [3, 2, 1, 0, _ACE] if wheel else sorted(ranks, reverse=True)
    return cat, tuple(order)


def in_order(ranking: str, cards: Sequence[Card]) -> tuple[Card, ...]:
    """The five cards sorted the way ``shape`` reads them (e.g. ``7 7 10 6 2``)."""
    _, order = shape(ranking, cards)
    left = list(cards)
    out = []
    for rank in order:
        card = next(c for c in left if (c >> 8) & 0xF == rank)
        left.remove(card)
        out.append(card)
    return tuple(out)


def describe(ranking: str, cards: Sequence[Card]) -> str:
    """Short human name of five cards under ``ranking``.

    Examples: ``"5-4-3-2-A, five low"`` (a5), ``"6-4-3-2-A, six low"`` (a6),
    ``"king high"`` (high), ``"pair of nines"``, ``"two pair, kings and fours"``,
    ``"three nines"``, ``"straight, five high"``, ``"flush, king high"``,
    ``"full house, nines over fours"``, ``"four nines"``,
    ``"straight flush, nine high"``, ``"royal flush"``.
    """
    if ranking not in CATEGORIES:
        raise ValueError(f"unknown ranking {ranking!r}")
    cards = tuple(cards)
    if len(cards) != 5:
        raise ValueError(f"a hand has five cards, got {len(cards)}")
    ranks = [(c >> 8) & 0xF for c in cards]
    flush = bool(cards[0] & cards[1] & cards[2] & cards[3] & cards[4] & 0xF000)
    facts = _facts(ranks)
    cat, _ = _analyse(ranking, facts, flush)
    low = ranking != _HIGH
    shape = facts[2] if low else facts[1]
    first = shape[0]
    if cat == _C.NO_PAIR:
        if low:
            return "-".join(RANKS[r] for r in shape) + f", {_SINGULAR[first]} low"
        return f"{_SINGULAR[first]} high"
    if cat == _C.PAIR:
        return f"pair of {_PLURAL[first]}"
    if cat == _C.TWO_PAIR:
        return f"two pair, {_PLURAL[first]} and {_PLURAL[shape[2]]}"
    if cat == _C.TRIPS:
        return f"three {_PLURAL[first]}"
    if cat == _C.FULL_HOUSE:
        return f"full house, {_PLURAL[first]} over {_PLURAL[shape[3]]}"
    if cat == _C.QUADS:
        return f"four {_PLURAL[first]}"
    if cat == _C.FLUSH:
        return f"flush, {_SINGULAR[first]} high"
    # Straight or straight flush: name the top card. Ace high except the wheel.
    top_rank = 3 if facts[3] == _WHEEL_BITS else facts[1][0]
    if cat == _C.STRAIGHT_FLUSH and ranking == _HIGH and top_rank == _ACE:
        return "royal flush"
    return f"{cat}, {_SINGULAR[top_rank]} high"
