"""Draw-game knowledge: which cards to keep, and how strong a low hand is.

Strength is measured against the hands that reach a showdown: a reference
sample of final hands of a sound drawing rule, built once per game from a
fixed seed (deterministic, no global random). ``pct`` tables turn a hand's
value into the share of those hands it beats, overall or given how many cards
that player took at their latest draw (draws are public).
"""

from __future__ import annotations

import random
import zlib
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Sequence
from functools import cache, lru_cache
from itertools import combinations

from bot.engine.cards import FULL_DECK, Card, make_card
from bot.engine.rankings import VALUE, Category, Ranking, category

CAP = 8  # the highest card worth keeping for a draw
# The highest top card to stand pat with, by the number of draws left (this one included).
PAT_TOP = {1: 10, 2: 9, 3: 8}
REF_HANDS = 6000
MIN_BUCKET = 60  # fewer reference hands than this in a bucket: use the whole reference
FINAL_SAMPLES = 48


def low(card: Card) -> int:
    """Rank for lowball: ace 1, deuce 2, … king 13."""
    rank = (card >> 8) & 0xF  # 2=0 … K=11, A=12
    return 1 if rank == 12 else rank + 2


def top(cards: Sequence[Card]) -> int:
    return max(low(c) for c in cards)


def is_made(cards: Sequence[Card], ranking: str) -> bool:
    """Five different ranks, and in Ace-to-Six no straight or flush."""
    return len(cards) == 5 and category(ranking, cards) == Category.NO_PAIR


_LOW = {c: low(c) for c in FULL_DECK}


def distinct_low(cards: Sequence[Card]) -> list[Card]:
    """One card of each rank, lowest first."""
    seen: set[int] = set()
    out = []
    lows = _LOW
    for c in sorted(cards, key=lows.__getitem__):
        r = lows[c]
        if r not in seen:
            seen.add(r)
            out.append(c)
    return out


def rule_keep(cards: Sequence[Card], ranking: str, draws_left: int, loosen: int = 0) -> list[Card]:
    """A plain sound rule: pat on a good enough made hand (``loosen`` ranks rougher for a
    player who stands pat rough), else keep the low cards (at most 4)."""
    if is_made(cards, ranking) and top(cards) <= PAT_TOP[min(draws_left, 3)] + loosen:
        return list(cards)
    return [c for c in distinct_low(cards) if _LOW[c] <= CAP][:4]


# ----- the reference of showdown hands --------------------------------------


class Reference:
    """Final values of the rule player, overall and by the count taken at each draw
    (with ``loosen``: of a rule player who stands pat that many ranks rougher)."""

    def __init__(self, ranking: str, draws: int, loosen: int = 0) -> None:
        key = f"{ranking}/{draws}" + (f"/loosen{loosen}" if loosen else "")
        rng = random.Random(zlib.crc32(key.encode()))
        value = VALUE[ranking]
        finals: list[int] = []
        by_draw: dict[tuple[int, int], list[int]] = {}
        for _ in range(REF_HANDS):
            pool = rng.sample(FULL_DECK, 5 + 5 * draws)
            held, pos, counts = pool[:5], 5, []
            for d in range(draws):
                keep = rule_keep(held, ranking, draws - d, loosen)
                n = 5 - len(keep)
                held = keep + pool[pos : pos + n]
                pos += n
                counts.append(min(n, 3))
            v = value(held)
            finals.append(v)
            for d, n in enumerate(counts):
                by_draw.setdefault((d, n), []).append(v)
        self.all = sorted(finals)
        self.by_draw = {k: sorted(v) for k, v in by_draw.items() if len(v) >= MIN_BUCKET}

    def values(self, draw_index: int | None, count: int | None) -> list[int]:
        if draw_index is None or count is None:
            return self.all
        return self.by_draw.get((draw_index, min(count, 3)), self.all)


@cache
def reference(ranking: str, draws: int, loosen: int = 0) -> Reference:
    return Reference(ranking, draws, loosen)


MAX_LOOSEN = 3  # the roughest pat rule a reference is built for: a king with one draw left


def loosen_of(pat_top: int) -> int:
    """How many ranks rougher than the sound rule a player stands pat, from the roughest
    top card they were read to stand pat on with one draw left."""
    return min(MAX_LOOSEN, max(0, pat_top - PAT_TOP[1]))


def beats(value: int, sorted_values: Sequence[int]) -> float:
    """Share of ``sorted_values`` that ``value`` beats, ties counting half."""
    lo = bisect_left(sorted_values, value)
    hi = bisect_right(sorted_values, value)
    return (lo + (hi - lo) / 2) / len(sorted_values)


# ----- choosing the discard ---------------------------------------------------


def last_round_value(
    mine: tuple[int, ...], theirs: Sequence[int], pot: int, bet: int, cap: int = 4
) -> float:
    """Our chips back, on average over our final values ``mine``, from a pot of ``pot``
    and a last betting round against a player who bets and raises anything (``theirs``:
    the sorted final values they may hold): capped when we win more than half, one bet
    called when the pot pays for it, folded otherwise."""
    total = 0.0
    for v in mine:
        q = beats(v, theirs)
        total += max(0.0, q * pot + (2 * q - 1) * bet, q * pot + cap * (2 * q - 1) * bet)
    return total / len(mine)


def choose_keep(
    cards: Sequence[Card], ranking: str, draws_left: int, dead: Sequence[Card] = ()
) -> list[Card]:
    """The keep of a sound player: ``rule_keep``, but a one-card draw picks which card to
    throw by counting every card it could catch (so an Ace-to-Six draw avoids straight
    and flush cards, and a broken made hand keeps the best four)."""
    keep = rule_keep(cards, ranking, draws_left)
    if len(keep) == 5:
        return keep
    lows = [c for c in distinct_low(cards) if low(c) <= CAP]
    if len(lows) < 4:
        return keep
    ref = reference(ranking, 1).all
    value = VALUE[ranking]
    unseen = [c for c in FULL_DECK if c not in cards and c not in dead]
    best, best_score = keep, -1.0
    for four in combinations(lows[:5], 4):
        score = sum(beats(value([*four, c]), ref) for c in unseen) / len(unseen)
        if score > best_score + 1e-9:
            best, best_score = list(four), score
    return best


@lru_cache(maxsize=50_000)
def final_values(
    ranking: str, draws_left: int, kept: tuple[Card, ...], samples: int = FINAL_SAMPLES
) -> tuple[int, ...]:
    """Sampled final values after keeping ``kept`` now and drawing by rule afterwards."""
    # str(): the seed is the ranking's text, a Ranking member's repr is not.
    rng = random.Random(zlib.crc32(repr((str(ranking), draws_left, kept)).encode()))
    value = VALUE[ranking]
    rest = [c for c in FULL_DECK if c not in kept]
    out = []
    need = 5 * draws_left
    for _ in range(samples):
        for i in range(need):  # a partial shuffle: the first ``need`` cards are a sample
            j = i + int(rng.random() * (len(rest) - i))
            rest[i], rest[j] = rest[j], rest[i]
        pool = rest[:need]
        n = 5 - len(kept)
        held, pos = [*kept, *pool[:n]], n
        for d in range(1, draws_left):
            keep = rule_keep(held, ranking, draws_left - d)
            n = 5 - len(keep)
            held = keep + pool[pos : pos + n]
            pos += n
        out.append(value(held))
    return tuple(out)


# ----- equity -------------------------------------------------------------------

# The highest card an opponent is assumed to keep, by how many cards they took last.
KEPT_TOP = {0: 10, 1: 8, 2: 7}
ROUGH_PAT_TOP = 12  # … standing pat, for a player whose pat hands shown were rougher than ten


def table_equity(
    ranking: str,
    draws: int,
    mine: Sequence[int],
    opponents: Sequence[tuple[int, ...]],
    loosen: Sequence[int] = (),
) -> float:
    """Chance to hold the best hand at showdown: ``mine`` are sampled final values of ours,
    ``opponents`` the public draw counts of each opponent still in (compared with the
    reference of players who took as many at their latest draw; ``loosen``, per opponent,
    reads them from the reference of a player who stands pat that much rougher)."""
    refs = [
        reference(ranking, draws, loosen[i] if i < len(loosen) else 0).values(
            len(d) - 1 if d else None, d[-1] if d else None
        )
        for i, d in enumerate(opponents)
    ]
    total = 0.0
    for v in mine:
        p = 1.0
        for values in refs:
            p *= beats(v, values)
        total += p
    return total / len(mine)


def sample_current(
    pool: list[Card], pos: int, drawn: tuple[int, ...], pat_top: int = KEPT_TOP[0]
) -> tuple[list[Card], int]:
    """An opponent's current five cards, consistent with how many they took last time
    (standing pat with a top card up to ``pat_top``)."""
    if not drawn:
        return pool[pos : pos + 5], pos + 5
    taken = drawn[-1]
    limit = pat_top if taken == 0 else KEPT_TOP.get(taken, 6)
    kept: list[Card] = []
    ranks: set[int] = set()
    end = min(len(pool), pos + 16)
    i = pos
    while i < end and len(kept) < 5 - taken:
        c = pool[i]
        r = low(c)
        if r <= limit and r not in ranks:
            ranks.add(r)
            kept.append(c)
        i += 1
    fill = 5 - len(kept)
    return kept + pool[i : i + fill], i + fill


def _value_or_worst(value: Callable[[Sequence[Card]], int]) -> Callable[[Sequence[Card]], int]:
    def safe(cards: Sequence[Card]) -> int:
        try:
            return value(cards)
        except (KeyError, ValueError, IndexError):
            return -1

    return safe


# ----- ranges: what an opponent holds, given what they did ---------------------------
#
# A hand's ``strength`` is the expected share of the reference's showdown hands it
# will beat, with every remaining draw played by rule. Among the reference player's
# own hands it averages one half at every stage, so one scale serves every round:
# an opponent who bets or raises is assumed to hold a strength above a threshold,
# one who only checks mostly below one (see ``action_weight``).

_RAINBOW = "cdhs"
# Final values sampled per keep, and how many evenly spaced quantiles of them are kept:
# many samples for a steady read, few values so comparing two keeps stays cheap.
SIGNATURE_SAMPLES = 128
SIGNATURE_QUANTILES = 32


def _card_of(rank_low: int, suit: str) -> Card:
    return make_card(12 if rank_low == 1 else rank_low - 2, suit)


@cache
def signature_finals(ranking: str, draws_left: int, ranks: tuple[int, ...]) -> tuple[int, ...]:
    """Sorted sampled final values of keeping cards of these low ranks (rainbow suits)
    with ``draws_left`` draws to come, each played by rule."""
    kept = tuple(_card_of(r, _RAINBOW[i % 4]) for i, r in enumerate(ranks))
    values = sorted(final_values(ranking, draws_left, kept, SIGNATURE_SAMPLES))
    step = SIGNATURE_SAMPLES // SIGNATURE_QUANTILES
    return tuple(values[i] for i in range(step // 2, SIGNATURE_SAMPLES, step))


@cache
def _signature_strength(ranking: str, draws: int, draws_left: int, ranks: tuple[int, ...]) -> float:
    ref = reference(ranking, draws).all
    finals = signature_finals(ranking, draws_left, ranks)
    return sum(beats(v, ref) for v in finals) / len(finals)


def finals_of(
    cards: Sequence[Card], ranking: str, draws_left: int, keep: Sequence[Card] | None = None
) -> tuple[int, ...]:
    """Sorted final values of a hand played by rule (or from ``keep``) from now on."""
    if draws_left:
        kept = list(keep) if keep is not None else rule_keep(cards, ranking, draws_left)
        if len(kept) < 5:
            return signature_finals(ranking, draws_left, tuple(sorted(low(c) for c in kept)))
    return (_value_or_worst(VALUE[ranking])(cards),)


def strength(cards: Sequence[Card], ranking: str, draws: int, draws_left: int) -> float:
    """Expected share of the reference's showdown hands this hand beats, by rule from now."""
    if draws_left:
        kept = rule_keep(cards, ranking, draws_left)
        if len(kept) < 5:
            ranks = tuple(sorted(low(c) for c in kept))
            return _signature_strength(ranking, draws, draws_left, ranks)
    return beats(_value_or_worst(VALUE[ranking])(cards), reference(ranking, draws).all)


GAMES = ((Ranking.A6, 1), (Ranking.A5, 1), (Ranking.A5, 3))  # (ranking, draws) of the draw games


def warm_up() -> None:
    """Build every reference table the draw-game players read, so no
    decision pays for it: the showdown references, and the final values and strength of
    every keep a rule player can make (up to four distinct ranks from ace to eight)."""
    for ranking, draws in GAMES:
        for loosen in range(MAX_LOOSEN + 1):
            reference(ranking, draws, loosen)
        reference(ranking, 1)  # choose_keep scores one-card draws against it
        for left in range(1, draws + 1):
            for n in range(5):
                for ranks in combinations(range(1, CAP + 1), n):
                    _signature_strength(ranking, draws, left, ranks)


def cache_sizes() -> dict[str, int]:
    """How many entries each reference table holds (a warm-up check reads them)."""
    return {
        "reference": reference.cache_info().currsize,
        "signature_finals": signature_finals.cache_info().currsize,
        "signature_strength": _signature_strength.cache_info().currsize,
    }
