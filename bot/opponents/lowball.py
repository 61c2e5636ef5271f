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

from bot.engine.cards import FULL_DECK, Card
from bot.engine.rankings import VALUE, category

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
    return len(cards) == 5 and category(ranking, cards) == "no pair"


def distinct_low(cards: Sequence[Card]) -> list[Card]:
    """One card of each rank, lowest first."""
    seen: set[int] = set()
    out = []
    for c in sorted(cards, key=low):
        if low(c) not in seen:
            seen.add(low(c))
            out.append(c)
    return out


def rule_keep(cards: Sequence[Card], ranking: str, draws_left: int) -> list[Card]:
    """A plain sound rule: pat on a good enough made hand, else keep the low cards (at most 4)."""
    if is_made(cards, ranking) and top(cards) <= PAT_TOP[min(draws_left, 3)]:
        return list(cards)
    return [c for c in distinct_low(cards) if low(c) <= CAP][:4]


# ----- the reference of showdown hands --------------------------------------


class Reference:
    """Final values of the rule player, overall and by the count taken at each draw."""

    def __init__(self, ranking: str, draws: int) -> None:
        rng = random.Random(zlib.crc32(f"{ranking}/{draws}".encode()))
        value = VALUE[ranking]
        finals: list[int] = []
        by_draw: dict[tuple[int, int], list[int]] = {}
        for _ in range(REF_HANDS):
            pool = rng.sample(FULL_DECK, 5 + 5 * draws)
            held, pos, counts = pool[:5], 5, []
            for d in range(draws):
                keep = rule_keep(held, ranking, draws - d)
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
def reference(ranking: str, draws: int) -> Reference:
    return Reference(ranking, draws)


def beats(value: int, sorted_values: list[int]) -> float:
    """Share of ``sorted_values`` that ``value`` beats, ties counting half."""
    lo = bisect_left(sorted_values, value)
    hi = bisect_right(sorted_values, value)
    return (lo + (hi - lo) / 2) / len(sorted_values)


# ----- choosing the discard ---------------------------------------------------


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
def final_values(ranking: str, draws_left: int, kept: tuple[Card, ...]) -> tuple[int, ...]:
    """Sampled final values after keeping ``kept`` now and drawing by rule afterwards."""
    rng = random.Random(zlib.crc32(repr((ranking, draws_left, kept)).encode()))
    value = VALUE[ranking]
    rest = [c for c in FULL_DECK if c not in kept]
    out = []
    for _ in range(FINAL_SAMPLES):
        pool = rng.sample(rest, 5 * draws_left)
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

# Reading the last betting round (hard level): the reference strength an opponent who
# bet is assumed to hold, and how much a sample that contradicts their action counts.
BET_STRENGTH = 0.55
BLUFF_WEIGHT = 0.15
CHECK_STRENGTH = 0.8
SLOWPLAY_WEIGHT = 0.35
# The highest card an opponent is assumed to keep, by how many cards they took last.
_KEPT_TOP = {0: 10, 1: 8, 2: 7}


def table_equity(
    ranking: str,
    draws: int,
    mine: Sequence[int],
    opponents: Sequence[tuple[int, ...]],
) -> float:
    """Chance to hold the best hand at showdown: ``mine`` are sampled final values of ours,
    ``opponents`` the public draw counts of each opponent still in (compared with the
    reference of players who took as many at their latest draw)."""
    ref = reference(ranking, draws)
    refs = [ref.values(len(d) - 1 if d else None, d[-1] if d else None) for d in opponents]
    total = 0.0
    for v in mine:
        p = 1.0
        for values in refs:
            p *= beats(v, values)
        total += p
    return total / len(mine)


def _sample_current(pool: list[Card], pos: int, drawn: tuple[int, ...]) -> tuple[list[Card], int]:
    """An opponent's current five cards, consistent with how many they took last time."""
    if not drawn:
        return pool[pos : pos + 5], pos + 5
    taken = drawn[-1]
    limit = _KEPT_TOP.get(taken, 6)
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


def simulate_equity(
    ranking: str,
    draws: int,
    mine: Sequence[Card],
    keep: Sequence[Card],
    my_draws_left: int,
    unseen: Sequence[Card],
    opponents: Sequence[tuple[int, ...]],
    samples: int,
    rng: random.Random,
    signals: Sequence[str | None] = (),
) -> float:
    """Monte Carlo over the cards this seat has not seen: opponents' hands are dealt from
    them consistent with the number of cards each took (public), every remaining draw is
    played by rule, and the share of showdowns won (ties split) is returned.

    ``signals`` reads the last betting round from each opponent's actions: after a
    ``"bet"`` (bet or raise) a sample where they hold a weak hand counts little (a
    bluff is rare), after a ``"check"`` a sample where they hold a strong one counts
    less (they would mostly have bet it)."""
    value = _value_or_worst(VALUE[ranking])
    ref = reference(ranking, draws).all
    signals = list(signals) or [None] * len(opponents)
    pool = list(unseen)
    won = total = 0.0
    for _ in range(samples):
        rng.shuffle(pool)
        # Long triple-draw samples may need more cards than are unseen: the table would
        # reshuffle discards; the sample reuses its own order (a rare repeated card in one
        # hand just scores as the worst hand).
        pool2 = pool + pool
        pos = 0
        if my_draws_left:
            n = 5 - len(keep)
            held = [*keep, *pool2[:n]]
            pos = n
            for d in range(1, my_draws_left):
                kept = rule_keep(held, ranking, my_draws_left - d)
                n = 5 - len(kept)
                held = kept + pool2[pos : pos + n]
                pos += n
            ours = value(held)
        else:
            ours = value(mine)
        best, ties, weight = -1, 0, 1.0
        for drawn, signal in zip(opponents, signals, strict=True):
            held, pos = _sample_current(pool2, pos, drawn)
            for d in range(len(drawn), draws):
                kept = rule_keep(held, ranking, draws - d)
                n = 5 - len(kept)
                held = kept + pool2[pos : pos + n]
                pos += n
            v = value(held)
            if signal is not None:
                strength = beats(v, ref)
                if signal == "bet":
                    weight *= 1.0 if strength >= BET_STRENGTH else BLUFF_WEIGHT
                elif strength >= CHECK_STRENGTH:
                    weight *= SLOWPLAY_WEIGHT
            if v > best:
                best, ties = v, 0
            if v == best:
                ties += 1
        total += weight
        if ours > best:
            won += weight
        elif ours == best:
            won += weight / (ties + 1)
    return won / total


def _value_or_worst(value: Callable[[Sequence[Card]], int]) -> Callable[[Sequence[Card]], int]:
    def safe(cards: Sequence[Card]) -> int:
        try:
            return value(cards)
        except (KeyError, ValueError, IndexError):
            return -1

    return safe
