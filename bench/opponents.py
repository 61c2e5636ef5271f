"""Matches between the computer players' levels and the baselines, every game.

A pairing ``A vs B`` at a table of N seats plays each deck N times (duplicate
dealing): the same deck and dealer, with the one ``A`` player moved through every
seat and ``B`` players in the others (heads-up: the two swap seats). The luck of
the cards cancels across the rotations, so one deck's average of A's net is one
low-variance sample. Printed per pairing: hands played, A's result in big bets
(the table's largest bet) per 100 hands with a 95% confidence interval
(1.96 standard errors over decks), and the p99 decision time of each strategy.

    python bench/opponents.py [--hands 20000] [--games all] [--sizes both]
        [--pairs normal:random,normal:station,hard:normal] [--workers 2] [--json FILE]
        [--timing 200]

After the matches, a timing pass plays hands in one process with nothing else running
in it, for the decision time of each strategy on its own.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import random
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

if not __package__:  # run as `python bench/opponents.py`: make the repo importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.engine import VARIANTS, Hand  # noqa: E402
from bot.engine.cards import FULL_DECK  # noqa: E402
from bot.opponents import Strategy, observe  # noqa: E402

GAMES = ("a6-draw", "a5-draw", "a5-triple", "abyssinia")
PAIRS = ("normal:random", "normal:station", "hard:normal")
STACK = 1000
CHUNK = 25  # decks per task


@dataclass
class Chunk:
    deck_nets: list[float] = field(default_factory=list)  # A's mean net per deck, in chips
    hands: int = 0
    times: dict[str, list[float]] = field(default_factory=dict)


def play_deck(game: str, seats: int, a: str, b: str, seed: int, chunk: Chunk) -> None:
    """Play one deck at every rotation; add A's mean net over the rotations."""
    rng = random.Random(seed)
    deck = list(FULL_DECK)
    rng.shuffle(deck)
    dealer = rng.randrange(seats)
    total = 0
    for hero in range(seats):
        kinds = [a if s == hero else b for s in range(seats)]
        players = [(f"s{s}", STACK) for s in range(seats)]
        hand = Hand.start(game, players, dealer, deck, rng=random.Random(seed))
        bots = {
            f"s{s}": Strategy(kinds[s], random.Random(seed * 31 + s * 7 + hero))
            for s in range(seats)
        }
        while not hand.complete:
            player = hand.players[hand.to_act]
            kind = kinds[int(player[1:])]
            start = time.perf_counter()
            move = bots[player].decide(observe(hand, player))
            chunk.times.setdefault(kind, []).append(time.perf_counter() - start)
            hand.apply(move)
        total += hand.net()[f"s{hero}"]
        chunk.hands += 1
    chunk.deck_nets.append(total / seats)


def run_chunk(args: tuple[str, int, str, str, int]) -> Chunk:
    game, seats, a, b, first = args
    chunk = Chunk()
    for seed in range(first, first + CHUNK):
        play_deck(game, seats, a, b, seed, chunk)
    return chunk


def p99(values: list[float]) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(len(values) * 0.99))] if values else float("nan")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--hands", type=int, default=20_000, help="hands per pairing (at least)")
    ap.add_argument("--games", default="all")
    ap.add_argument("--sizes", default="both", help="hu, max or both")
    ap.add_argument("--pairs", default=",".join(PAIRS))
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", help="append one JSON line per pairing to this file")
    ap.add_argument("--timing", type=int, default=200, help="hands per timing pass (0: none)")
    args = ap.parse_args()
    games = GAMES if args.games == "all" else tuple(args.games.split(","))
    pairs = [tuple(p.split(":")) for p in args.pairs.split(",") if p]  # "": timing only
    sizes = {"hu": ("hu",), "max": ("max",), "both": ("hu", "max")}[args.sizes]
    all_times: dict[str, list[float]] = {}
    print(f"{'game':10} {'seats':>5} {'pairing':16} {'hands':>7}  big bets/100 (95% CI)")
    with multiprocessing.Pool(args.workers) as pool:
        for game in games:
            variant = VARIANTS[game]
            unit = max(variant.bet_sizes)
            for size in sizes:
                seats = 2 if size == "hu" else variant.max_seats
                decks = math.ceil(args.hands / seats / CHUNK) * CHUNK
                for a, b in pairs:
                    base = args.seed * 10_000_000
                    tasks = [(game, seats, a, b, base + i) for i in range(0, decks, CHUNK)]
                    started = time.perf_counter()
                    nets: list[float] = []
                    hands = 0
                    for chunk in pool.imap_unordered(run_chunk, tasks):
                        nets += chunk.deck_nets
                        hands += chunk.hands
                        for kind, t in chunk.times.items():
                            all_times.setdefault(kind, []).extend(t)
                    # A's result per hand, in big bets: mean over decks, 95% CI over decks.
                    per = [x / unit * 100 for x in nets]
                    mean = sum(per) / len(per)
                    var = sum((x - mean) ** 2 for x in per) / (len(per) - 1)
                    half = 1.96 * math.sqrt(var / len(per))
                    verdict = "wins" if mean - half > 0 else "loses" if mean + half < 0 else "?"
                    print(
                        f"{game:10} {seats:>5} {a + ' vs ' + b:16} {hands:>7}  "
                        f"{mean:+7.1f} ± {half:4.1f}  {verdict}  "
                        f"({time.perf_counter() - started:.0f} s)",
                        flush=True,
                    )
                    if args.json:
                        row = {"game": game, "seats": seats, "a": a, "b": b, "hands": hands}
                        row |= {"bb100": round(mean, 2), "ci95": round(half, 2)}
                        with open(args.json, "a") as f:
                            f.write(json.dumps(row) + "\n")
    print("\ndecision time p99 (ms), measured in the match workers (the machine shared):")
    for kind, t in sorted(all_times.items()):
        print(f"  {kind:8} {p99(t) * 1000:6.2f}  ({len(t)} decisions)")
    if args.timing:
        timing_pass(games, args.timing)


def timing_pass(games: tuple[str, ...], hands: int) -> None:
    """Decision times alone: one process, every seat the same level, heads-up and full."""
    print(f"\ndecision time alone, {hands} hands per game and table size (ms):")
    print(f"  {'level':8} {'p50':>6} {'p99':>6} {'max':>6}")
    for kind in ("easy", "normal", "hard", "random", "station"):
        times: list[float] = []
        for game in games:
            for seats in (2, VARIANTS[game].max_seats):
                for seed in range(hands):
                    rng = random.Random(seed)
                    deck = list(FULL_DECK)
                    rng.shuffle(deck)
                    players = [(f"s{s}", STACK) for s in range(seats)]
                    hand = Hand.start(game, players, 0, deck, rng=rng)
                    bot = Strategy(kind, rng)
                    while not hand.complete:
                        player = hand.players[hand.to_act]
                        start = time.perf_counter()
                        move = bot.decide(observe(hand, player))
                        times.append(time.perf_counter() - start)
                        hand.apply(move)
        times.sort()
        p50 = times[len(times) // 2] * 1000
        print(f"  {kind:8} {p50:6.2f} {p99(times) * 1000:6.2f} {times[-1] * 1000:6.2f}")


if __name__ == "__main__":
    main()
