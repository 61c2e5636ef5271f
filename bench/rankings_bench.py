"""Speed of bot.engine.rankings against PokerKit's fastest public path, on the same hands.

Like for like: our evaluators take five card ints and do not validate them; PokerKit is
timed on its own lookup, ``<HandClass>.lookup.get_entry(cards)`` or
``get_entry_or_none(cards)`` (whichever is faster here; both are public, the entry they
return is what PokerKit compares hands by), with the cards parsed into ``pokerkit.Card``
objects beforehand. That skips the hand constructor (``StandardHighHand(cards)``), which
validates and is several times slower; PokerKit offers nothing faster that is public.

Pairs: ``high`` vs ``StandardHighHand.lookup``; ``a5`` vs ``RegularLowHand.lookup``;
PokerKit has no ace-to-six ranking, so ``a6`` is set beside ``StandardLowHand.lookup``
(deuce-to-seven, which counts straights and flushes too) for scale only.

Each round times every evaluator on the same random hands (best of 3 passes); the rounds
show the run-to-run spread of the ratio. Run ``python -m bench.rankings_bench [ROUNDS]``.
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make ``bot`` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.engine.cards import FULL_DECK, format_cards
from bot.engine.rankings import VALUE

POKERKIT_HANDS = 20_000
LOOKUP_METHODS = ("get_entry", "get_entry_or_none")

# (our ranking, pokerkit hand class whose lookup is timed)
PAIRS = (("high", "StandardHighHand"), ("a5", "RegularLowHand"), ("a6", "StandardLowHand"))


def _random_hands(n: int, seed: int) -> list[tuple[int, ...]]:
    rng = random.Random(seed)
    return [tuple(rng.sample(FULL_DECK, 5)) for _ in range(n)]


def _rate(fn: Callable[[Any], object], hands: Sequence[Any]) -> float:
    """Evaluations per second of ``fn`` over ``hands`` (best of 3 passes)."""
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        for hand in hands:
            fn(hand)
        best = min(best, time.perf_counter() - start)
    return len(hands) / best if best > 0 else float("inf")


def bench_round(n_hands: int = 200_000, seed: int = 1) -> list[tuple[str, float, float, str]]:
    """Rows (ranking, our evals/s, pokerkit evals/s, pokerkit path) on the same hands.

    The pokerkit figure is ``nan`` when pokerkit is not installed.
    """
    hands = _random_hands(n_hands, seed)
    try:
        import pokerkit
    except ImportError:  # pragma: no cover - optional bench dependency
        pokerkit = None
    rows = []
    for ranking, class_name in PAIRS:
        ours = _rate(VALUE[ranking], hands)
        theirs, path = float("nan"), "pokerkit not installed"
        if pokerkit is not None:
            lookup = getattr(pokerkit, class_name).lookup
            pk_hands = [
                tuple(pokerkit.Card.parse("".join(format_cards(h)))) for h in hands[:POKERKIT_HANDS]
            ]
            rates = {m: _rate(getattr(lookup, m), pk_hands) for m in LOOKUP_METHODS}
            fastest = max(rates, key=rates.__getitem__)
            theirs, path = rates[fastest], f"{class_name}.lookup.{fastest}"
        rows.append((ranking, ours, theirs, path))
    return rows


def bench_rankings(n_hands: int = 200_000, seed: int = 1) -> list[tuple[str, float, float]]:
    """Rows (ranking, our evals/s, pokerkit evals/s) of one round (for bench/engine.py)."""
    return [(ranking, ours, theirs) for ranking, ours, theirs, _ in bench_round(n_hands, seed)]


def main(rounds: int = 5) -> None:
    results = [bench_round(seed=seed) for seed in range(1, rounds + 1)]
    print(f"pokerkit: its fastest public path, the lookup on pre-parsed cards; {rounds} rounds")
    head = f"{'ranking':<8} {'ours evals/s':>14} {'pokerkit evals/s':>17}"
    print(f"{head} {'ratio median':>13} {'(min-max)':>13}  pokerkit path")
    for i, (ranking, _) in enumerate(PAIRS):
        ours = statistics.median(r[i][1] for r in results)
        theirs = statistics.median(r[i][2] for r in results)
        ratios = [r[i][1] / r[i][2] for r in results if r[i][2] == r[i][2]]
        paths = sorted({r[i][3] for r in results})
        spread = f"({min(ratios):.1f}-{max(ratios):.1f}x)" if ratios else ""
        ratio = statistics.median(ratios) if ratios else float("nan")
        print(
            f"{ranking:<8} {ours:>14,.0f} {theirs:>17,.0f} {ratio:>12.1f}x {spread:>13}  "
            + " / ".join(paths)
            + ("  (deuce-to-seven: no a6 in pokerkit)" if ranking == "a6" else "")
        )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 5)
