"""Card image benchmark: CPU milliseconds and PNG bytes per image (bot.render: hand, board).

Rows:

* ``board 8p`` / ``board 3p``: the Abyssinia board (two market slots and the blind stub)
  with 8 or 3 players holding four or five open cards each.
  ``cold``: every image shows new names, cards, market and pot, so no region of it was
  drawn before (card faces, a bounded set, stay cached as they do in a running bot).
  ``warm``: the usual case per action, one player's cards and the pot change.
* ``hand 5``: a five-card hand strip. ``cold``: the card tiles are dropped before each
  image; ``warm``: the usual case, every card tile drawn before.

Each figure is the median over ``--images`` images of the thread's CPU time (the
machine may be busy with other work; CPU time is what the render thread spends).
Everything is seeded, so the inputs repeat from run to run.

Run ``.venv/bin/python bench/render.py`` (``--images 50`` for a short run).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make ``bot`` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.engine.cards import FULL_DECK
from bot.render.cards import card_tile
from bot.render.images import MarketSlot, PlayerRow, render_board, render_hand


def _measure(draws: Iterator[Callable[[], bytes]]) -> tuple[float, float]:
    """(median CPU ms, mean bytes) over the images ``draws`` yields."""
    times, sizes = [], []
    for draw in draws:
        start = time.thread_time()
        png = draw()
        times.append((time.thread_time() - start) * 1000)
        sizes.append(len(png))
    return statistics.median(times), statistics.fmean(sizes)


def _board(
    rng: random.Random, n_players: int, tag: str
) -> tuple[list[MarketSlot], list[PlayerRow]]:
    deck = rng.sample(FULL_DECK, 2 + 5 * n_players)
    market: list[MarketSlot] = [("left", deck[0], rng.randint(1, 9)), ("right", deck[1], 1)]
    players: list[PlayerRow] = [
        (f"player {tag}{i}", deck[2 + 5 * i : 2 + 5 * i + rng.choice((4, 5))], i == 1)
        for i in range(n_players)
    ]
    return market, players


def _cold_boards(n_players: int, n: int, seed: int) -> Iterator[Callable[[], bytes]]:
    rng = random.Random(seed)
    for k in range(n):
        market, players = _board(rng, n_players, f"{k}-")
        pot = rng.randint(10, 5000)
        yield lambda m=market, p=players, pot=pot: render_board(m, p, pot)


def _warm_boards(n_players: int, n: int, seed: int) -> Iterator[Callable[[], bytes]]:
    rng = random.Random(seed)
    market, players = _board(rng, n_players, "")
    render_board(market, players, 0)  # every region drawn once
    for k in range(n):
        i = k % n_players
        name, _, folded = players[i]
        players[i] = (name, rng.sample(FULL_DECK, 5), folded)
        yield lambda p=list(players), pot=k + 1: render_board(market, p, pot)


def _hands(n: int, seed: int, cold: bool) -> Iterator[Callable[[], bytes]]:
    rng = random.Random(seed)
    for _ in FULL_DECK:  # every tile drawn once
        render_hand(rng.sample(FULL_DECK, 5))
    for _ in range(n):
        cards = rng.sample(FULL_DECK, 5)
        if cold:
            card_tile.cache_clear()
        yield lambda c=cards: render_hand(c)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--images", type=int, default=200, help="images per figure")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    n, seed = args.images, args.seed
    render_hand(list(FULL_DECK[:5]))  # fonts loaded, card faces drawn
    rows = [
        ("board 8p", "cold", _cold_boards(8, n, seed)),
        ("board 8p", "warm", _warm_boards(8, n, seed)),
        ("board 3p", "cold", _cold_boards(3, n, seed)),
        ("board 3p", "warm", _warm_boards(3, n, seed)),
        ("hand 5", "cold", _hands(n, seed, cold=True)),
        ("hand 5", "warm", _hands(n, seed, cold=False)),
    ]
    print(f"{'image':<10}{'cache':<6}{'CPU ms':>9}{'bytes':>9}")
    for name, cache, draws in rows:
        ms, size = _measure(draws)
        print(f"{name:<10}{cache:<6}{ms:>9.2f}{size:>9.0f}")


if __name__ == "__main__":
    main()
