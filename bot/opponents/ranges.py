"""Ranges read from the betting: what an opponent's actions say of their hand, and the
chance to win against the hands they may hold.

Range pools are hands a player may hold after their public draws, built once per game
from a fixed seed; a decision samples them and weighs each by how likely the betting
seen is with it (``action_weight``), so no decision deals from the global random.
"""

from __future__ import annotations

import random
import zlib
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache, lru_cache

from bot.engine.cards import FULL_DECK, Card

from .lowball import (
    GAMES,
    KEPT_TOP,
    PAT_TOP,
    ROUGH_PAT_TOP,
    beats,
    finals_of,
    sample_current,
    strength,
)


@dataclass(frozen=True)
class Read:
    """What one opponent's betting says: their bets and raises this round, whether
    they called a bet in it, and whether they only checked."""

    aggression: int = 0
    called: bool = False
    checked: bool = False
    earlier: int = 0  # bets and raises in earlier rounds since their latest draw
    opened: bool = False  # their one bet or raise this round was its opening bet
    # What earlier hands showed of this player (profiles.Tendency), 0 for a sound one:
    # the more ``loose``, the less a bet or raise says; ``sticky``, a call; ``passive``, a check.
    loose: float = 0.0
    sticky: float = 0.0
    passive: float = 0.0
    rough_pat: bool = False  # stands pat with hands rougher than ten (seen at showdowns)
    pat_top: int = PAT_TOP[1]  # the roughest top card they are read to stand pat on
    honest: float = 0.0  # the last round: how surely their bets are value (profiles.Tendency)
    behind: int = 0  # triple draw, the first round: players still to act after their open


# Strength an opponent is assumed to hold for 1, 2, 3+ bets or raises in a round, and
# how much a sample below it counts (bluffs and loose raises happen).
AGGRESSION_STRENGTH = (0.0, 0.56, 0.66, 0.74)
BLUFF_WEIGHTS = (1.0, 0.15, 0.1, 0.06)
OPEN_BET_WEIGHT = 0.35  # … for a round's opening bet, not a raise: decent draws lead too
HONEST_CUT = 1.0  # share of that weight gone for a player whose last-round bets are value
# Triple draw at three seats or more: an open raise with more than two players still to
# act after it (the button's) says that much more strength per player (opening ranges
# tighten with the players behind, who may hold better).
OPEN_STRENGTH_BEHIND = 0.02
CALL_STRENGTH = 0.42
LOOSE_CALL_WEIGHT = 0.4
SLOWPLAY_STRENGTH = 0.8
SLOWPLAY_WEIGHT_RANGE = 0.35


def action_weight(s: float, read: Read) -> float:
    """Relative likelihood of the opponent's actions given a hand of strength ``s``."""
    w = 1.0
    n = min(read.aggression, 3)
    if n:
        below = OPEN_BET_WEIGHT if n == 1 and read.opened else BLUFF_WEIGHTS[n]
        below *= 1.0 - HONEST_CUT * read.honest
        need = AGGRESSION_STRENGTH[n] + OPEN_STRENGTH_BEHIND * max(0, read.behind - 2)
        w *= 1.0 if s >= need else _toward_one(below, read.loose)
    elif read.called:
        w *= 1.0 if s >= CALL_STRENGTH else _toward_one(LOOSE_CALL_WEIGHT, read.sticky)
    elif read.checked and s >= SLOWPLAY_STRENGTH:
        w *= _toward_one(SLOWPLAY_WEIGHT_RANGE, read.passive)
    if read.earlier:
        w *= 1.0 if s >= AGGRESSION_STRENGTH[1] - 0.04 else _toward_one(0.5, read.loose)
    return w


def _toward_one(weight: float, t: float) -> float:
    """A weak hand's weight, moved toward 1 (the action says nothing) by ``t``."""
    return weight + (1.0 - weight) * t


def _share_above(mine: Sequence[int], v: int) -> float:
    lo = bisect_left(mine, v)
    hi = bisect_right(mine, v)
    return (len(mine) - hi + (hi - lo) / 2) / len(mine)


POOL_HANDS = 600  # hands per range pool


def sound_pat_top(draws: int, drawn: int) -> int:
    """The roughest top card a sound player stands pat on at their latest of ``drawn``
    draws: with draws still to come after it, only a smooth hand is worth keeping."""
    return PAT_TOP[min(draws - drawn + 1, 3)]


@cache
def range_pool(
    ranking: str, draws: int, drawn: int, taken: int, pat_top: int = KEPT_TOP[0]
) -> tuple[tuple[int, float, int | tuple[int, ...]], ...]:
    """Hands an opponent may hold after ``drawn`` draws, the latest of ``taken`` cards
    (consistent with it as ``sample_current`` deals them), each as (bit mask of its
    cards, strength, final values: one int if they will stand pat, else the sorted
    tuple). Built once per game from a fixed seed; a decision samples from it."""
    key = f"pool/{ranking}/{draws}/{drawn}/{taken}"
    if pat_top != KEPT_TOP[0] and taken == 0:
        key += f"/pat{pat_top}"
    rng = random.Random(zlib.crc32(key.encode()))
    index = {c: i for i, c in enumerate(FULL_DECK)}
    left = draws - drawn
    history = (taken,) * drawn
    out = []
    deck = list(FULL_DECK)
    draw = rng.random
    for _ in range(POOL_HANDS):
        for i in range(22):  # a partial shuffle: the first 22 cards (all it reads) are random
            j = i + int(draw() * (52 - i))
            deck[i], deck[j] = deck[j], deck[i]
        held, _end = sample_current(deck, 0, history, pat_top)
        if len(held) < 5:
            continue
        mask = sum(1 << index[c] for c in held)
        finals = finals_of(held, ranking, left)
        theirs: int | tuple[int, ...] = finals[0] if len(finals) == 1 else finals
        out.append((mask, strength(held, ranking, draws, left), theirs))
    return tuple(out)


@lru_cache(maxsize=100_000)
def _pair_share(mine: tuple[int, ...], theirs: tuple[int, ...]) -> float:
    """Chance a final of ``mine`` beats one of ``theirs`` (both sorted), ties half."""
    return sum(beats(v, theirs) for v in mine) / len(mine)


def card_mask(cards: Sequence[Card]) -> int:
    index = {c: i for i, c in enumerate(FULL_DECK)}
    return sum(1 << index[c] for c in cards)


def range_equity(
    ranking: str,
    draws: int,
    mine: Sequence[int],
    known: Sequence[Card],
    opponents: Sequence[tuple[tuple[int, ...], Read]],
    samples: int,
    rng: random.Random,
) -> float:
    """Chance to win at showdown against every opponent's range.

    ``mine`` are our sorted final values, ``known`` the cards we know no opponent holds
    (ours and our discards). Each opponent's hands are sampled from the range pool for
    their public draw counts, skipping those that hold a known card, and weighted by how
    likely their betting is with that hand (``action_weight``). Against several players
    the chances multiply per final value of ours, then average: our one final hand meets
    them all, so a draw that gets there often beats everyone at once."""
    blocked = card_mask(known)
    mine = tuple(mine)
    multiway = len(opponents) > 1 and len(mine) > 1
    equity = 1.0
    per_value = [1.0] * len(mine)
    shares: dict[int | tuple[int, ...], float] = {}
    for drawn, read in opponents:
        taken = drawn[-1] if drawn else 0
        rough = read.rough_pat and bool(drawn) and taken == 0
        pat_top = ROUGH_PAT_TOP if rough else sound_pat_top(draws, len(drawn))
        pool = range_pool(ranking, draws, len(drawn), taken, pat_top)
        draw, size = rng.random, len(pool)
        # A budget as large as the pool reads all of it, in order: no sampling noise.
        chosen = pool if samples >= size else (pool[int(draw() * size)] for _ in range(samples))
        weights: dict[int | tuple[int, ...], float] = {}
        for mask, s, theirs in chosen:
            if mask & blocked:
                continue
            weights[theirs] = weights.get(theirs, 0.0) + action_weight(s, read)
        total = sum(weights.values())
        if not total:
            equity *= 0.5
            per_value = [p * 0.5 for p in per_value]
            continue
        if multiway:
            won_by_value = [0.0] * len(mine)
            for theirs, w in weights.items():
                for k, share in enumerate(_value_shares(mine, theirs)):
                    won_by_value[k] += w * share
            per_value = [p * won / total for p, won in zip(per_value, won_by_value, strict=True)]
            continue
        won = 0.0
        for theirs, w in weights.items():
            if theirs not in shares:
                if isinstance(theirs, int):
                    shares[theirs] = _share_above(mine, theirs)
                else:
                    shares[theirs] = _pair_share(mine, theirs)
            won += w * shares[theirs]
        equity *= won / total
    return sum(per_value) / len(mine) if multiway else equity


@lru_cache(maxsize=100_000)
def _value_shares(mine: tuple[int, ...], theirs: int | tuple[int, ...]) -> tuple[float, ...]:
    """For each final value of ours, the chance it beats a final of ``theirs``, ties half."""
    if isinstance(theirs, int):
        return tuple(1.0 if v > theirs else 0.5 if v == theirs else 0.0 for v in mine)
    return tuple(beats(v, theirs) for v in mine)


def warm_up() -> None:
    """Build every range pool a decision reads, as ``range_equity`` asks for them (the
    cache keys on the arguments given)."""
    for ranking, draws in GAMES:
        for drawn in range(draws + 1):
            for taken in range(6) if drawn else (0,):
                range_pool(ranking, draws, drawn, taken, KEPT_TOP[0])
            if drawn:
                range_pool(ranking, draws, drawn, 0, ROUGH_PAT_TOP)
                range_pool(ranking, draws, drawn, 0, sound_pat_top(draws, drawn))


def cache_sizes() -> dict[str, int]:
    """How many range pools are built (a warm-up check reads it)."""
    return {"range_pool": range_pool.cache_info().currsize}
