"""Speed of bot.engine.rankings against pokerkit, on the same random hands.

Our evaluators are timed on ``n_hands`` random five-card hands; pokerkit is much
slower, so it is timed on the first ``min(n_hands, 5_000)`` of the same hands.
Both figures are evaluations per second. For pokerkit one evaluation is
building the hand object from pre-parsed ``pokerkit.Card`` objects and reading
its lookup entry (what a comparison needs), e.g. ``StandardHighHand(cards).entry``.

Pairs: ``high`` vs ``StandardHighHand``; ``a5`` vs ``RegularLowHand``;
pokerkit has no ace-to-six ranking, so ``a6`` is set beside ``StandardLowHand``
(deuce-to-seven, which also counts straights and flushes) for scale only.

Run ``python -m bench.rankings_bench`` (or ``python bench/rankings_bench.py``).
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make ``bot`` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.engine.cards import FULL_DECK, format_cards
from bot.engine.rankings import VALUE

POKERKIT_HANDS = 5_000

# (our ranking, pokerkit class name, label for the pokerkit column)
PAIRS = (
    ("high", "StandardHighHand", "StandardHighHand"),
    ("a5", "RegularLowHand", "RegularLowHand"),
    ("a6", "StandardLowHand", "StandardLowHand (deuce-to-seven, no a6 in pokerkit)"),
)


def _random_hands(n: int, seed: int) -> list[tuple[int, ...]]:
    rng = random.Random(seed)
    return [tuple(rng.sample(FULL_DECK, 5)) for _ in range(n)]


def _rate(fn, hands) -> float:
    """Evaluations per second of ``fn`` over ``hands`` (best of 3 passes)."""
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        for hand in hands:
            fn(hand)
        best = min(best, time.perf_counter() - start)
    return len(hands) / best if best > 0 else float("inf")


def bench_rankings(n_hands: int = 200_000, seed: int = 1) -> list[tuple[str, float, float]]:
    """Rows (ranking, our evals/s, pokerkit evals/s) on the same random hands.

    The pokerkit figure is ``nan`` when pokerkit is not installed. For ``a6``
    it is pokerkit's deuce-to-seven ``StandardLowHand`` (see PAIRS / the module
    docstring), as pokerkit has no ace-to-six ranking.
    """
    hands = _random_hands(n_hands, seed)
    try:
        import pokerkit
    except ImportError:  # pragma: no cover - optional bench dependency
        pokerkit = None

    pk_hands = []
    if pokerkit is not None:
        few = hands[:POKERKIT_HANDS]
        pk_hands = [tuple(pokerkit.Card.parse("".join(format_cards(h)))) for h in few]

    rows: list[tuple[str, float, float]] = []
    for ranking, class_name, _label in PAIRS:
        ours = _rate(VALUE[ranking], hands)
        theirs = float("nan")
        if pokerkit is not None:
            hand_type = getattr(pokerkit, class_name)
            theirs = _rate(lambda cards, t=hand_type: t(cards).entry, pk_hands)
        rows.append((ranking, ours, theirs))
    return rows


def main() -> None:
    rows = bench_rankings()
    labels = {ranking: label for ranking, _, label in PAIRS}
    head = f"{'ranking':<8} {'ours evals/s':>14} {'pokerkit evals/s':>17} {'ratio':>7}"
    print(head + "  pokerkit class")
    for ranking, ours, theirs in rows:
        ratio = ours / theirs if theirs == theirs and theirs else float("nan")
        print(f"{ranking:<8} {ours:>14,.0f} {theirs:>17,.0f} {ratio:>6.0f}x  {labels[ranking]}")


if __name__ == "__main__":
    main()
