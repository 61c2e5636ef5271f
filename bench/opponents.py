"""Matches between the computer players' levels and rule-based baselines, every game.

The baselines (``tag``: tight-aggressive, ``nit``, ``maniac``, ``callstation``) are
written here from plain poker knowledge and share no code with bot/opponents.
``td-pro`` is a sound fixed-limit ace-to-five triple-draw player written from published
strategy (the sources are cited above ``TripleDrawPro``: starting-hand classes by
position, draw counts, when to stand pat or break); in the other games it plays as
``tag``. For issue 38's triple-draw changes ``tag`` was the held-out baseline: they were
chosen on their results against ``td-pro`` only.

A pairing ``A vs B`` at a table of N seats plays each deck N times (duplicate
dealing): the same deck and dealer, with the one ``A`` player moved through every
seat and ``B`` players in the others (heads-up: the two swap seats). The luck of
the cards cancels across the rotations, so one deck's average of A's net is one
low-variance sample. Printed per pairing: hands played, A's result in big bets
(the table's largest bet) per 100 hands with a 95% confidence interval
(1.96 standard errors over decks), and A's decision p50/p99 in wall-clock time and
in the worker's CPU time (on a shared machine the CPU time is what a quiet one shows).

Each task of CHUNK decks is one table session: the players keep their names across its
hands, and every seat sees the profiles (``bot.opponents.profiles``) of what each player
showed in the session's earlier hands, as at a real table; the session starts with none.

    python bench/opponents.py [--hands 10000] [--max-hands 4000] [--games all]
        [--sizes both] [--levels easy,normal,hard]
        [--baselines tag,nit,maniac,callstation,td-pro]
        [--workers 2] [--json FILE] [--timing 100]
    python bench/opponents.py --compare FILE

``--games mixed`` plays a mixed table: each deck deals the next game of the rotation
(a6-draw, a5-draw, a5-triple, abyssinia), each deck's result in that game's big bets; its
largest table is five seats, the most every game allows.

``--compare`` pairs the rows of two levels against the same baseline on the same decks
(same ``--seed``) and prints hard − normal and normal − easy per deck, with its 95%
confidence interval: the luck of the cards cancels, so small differences show.

Pairings run most important first: hard heads-up in every game, then normal and easy
heads-up, then the largest table. ``--json`` appends one line per pairing as it
finishes, so a run stopped early keeps what it measured. After the matches, a timing
pass plays hands in one process (every seat the same level) for decision times per
level and game.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import random
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

if not __package__:  # run as `python bench/opponents.py`: make the repo importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.engine import (  # noqa: E402
    VARIANTS,
    Action,
    ActionKind,
    BuySource,
    Category,
    Hand,
    Phase,
    Ranking,
    public_view,
)
from bot.engine.cards import FULL_DECK, Card, rank_of  # noqa: E402
from bot.engine.rankings import a5_value, category, high_value  # noqa: E402
from bot.opponents import (  # noqa: E402
    LEVELS,
    Observation,
    Profile,
    PublicAction,
    Strategy,
    observe,
    public_history,
    record,
    warm_up,
)
from bot.opponents.actions import AGGRESSIVE, BETTING  # noqa: E402

GAMES = ("a6-draw", "a5-draw", "a5-triple", "abyssinia")
MIXED = "mixed"  # a mixed table: each deck deals the next game of GAMES in turn
MIXED_SEATS = min(VARIANTS[g].max_seats for g in GAMES)  # the largest table every game allows
BASELINE_KINDS = ("tag", "nit", "maniac", "callstation", "td-pro")
STACK = 1000
CHUNK = 25  # decks per task


@dataclass
class Chunk:
    first: int = 0  # seed of its first deck
    deck_nets: list[float] = field(default_factory=list)  # A's mean net per deck, bb/100
    hands: int = 0
    times: list[float] = field(default_factory=list)  # A's decision times, seconds
    cpu: list[float] = field(default_factory=list)  # … in CPU time of the worker
    diag: dict[str, list[float]] | None = None  # --diagnose: bucket -> [hands, net in bets]


def play_deck(
    game: str, seats: int, a: str, b: str, seed: int, chunk: Chunk, profiles: dict[str, Profile]
) -> dict[str, Profile]:
    """Play one deck at every rotation; add A's mean net over the rotations, in big bets
    per 100 hands (``game`` ``mixed``: the deck's game is the next in GAMES). Players keep
    their names across hands (A is ``a``, the baselines ``b1``…), so ``profiles``, what
    every seat has seen of each player so far at this table, follow them; returns them
    with this deck's hands added."""
    if game == MIXED:
        game = GAMES[seed % len(GAMES)]
    rng = random.Random(seed)
    deck = list(FULL_DECK)
    rng.shuffle(deck)
    dealer = rng.randrange(seats)
    total = 0
    for hero in range(seats):
        names = ["a" if s == hero else f"b{s + (s < hero)}" for s in range(seats)]
        kinds = {name: a if name == "a" else b for name in names}
        hand = Hand.start(game, [(n, STACK) for n in names], dealer, deck, rng=random.Random(seed))
        bots = {
            n: make(kinds[n], random.Random(seed * 31 + s * 7 + hero)) for s, n in enumerate(names)
        }
        notes = HandNotes(hand, dealer) if chunk.diag is not None else None
        while not hand.complete:
            player = hand.players[hand.to_act]
            start, cpu = time.perf_counter(), time.thread_time()
            obs = observe(hand, player, profiles)
            move = bots[player].decide(obs)
            if player == "a":
                chunk.times.append(time.perf_counter() - start)
                chunk.cpu.append(time.thread_time() - cpu)
                if notes is not None:
                    notes.saw(obs, move)
            hand.apply(move)
        total += hand.net()["a"]
        if notes is not None and chunk.diag is not None:
            notes.add_to(chunk.diag, hand, max(VARIANTS[game].bet_sizes))
        chunk.hands += 1
        profiles = record(profiles, public_history(hand), public_view(hand).shown)
    chunk.deck_nets.append(total / seats / max(VARIANTS[game].bet_sizes) * 100)
    return profiles


POSITIONS = {  # seats after the dealer -> name, by table size (triple draw has blinds)
    2: ("BTN/SB", "BB"),
    6: ("BTN", "SB", "BB", "UTG", "HJ", "CO"),
}


class HandNotes:
    """What A did in one hand, for ``--diagnose``: its position, its starting cards'
    class (td-pro's, triple draw), and each betting decision with the round, whether it
    faced a bet and how many others were still in."""

    def __init__(self, hand: Hand, dealer: int) -> None:
        seats = len(hand.players)
        after = (hand.seat_of("a") - dealer) % seats
        names = POSITIONS.get(seats)
        self.position = names[after] if names else f"dealer+{after}"
        self.cls: int | None = None
        self.lines: list[str] = []

    def saw(self, obs: Observation, move: Action) -> None:
        if self.cls is None:
            self.cls = td_opening_class(obs.cards)
        if obs.decision.phase != "bet":
            if obs.decision.phase == "draw":
                self.lines.append(f"r{obs.public.round} draws {len(move.cards or ())}")
            return
        others = sum(1 for i, s in enumerate(obs.public.seats) if i != obs.seat and not s.folded)
        way = "HU" if others == 1 else "3-way" if others == 2 else "4+way"
        facing = "facing a bet" if obs.decision.to_call else "unopened"
        raised = sum(1 for a in _current(obs) if a.action in ("bet", "raise"))
        if obs.public.round == 1 and obs.decision.to_call:
            facing = "facing the blind" if raised == 0 else f"facing {raised + 1} bets"
        if obs.public.round == 1:  # the first round: by position, and the class's first
            if not any(line.startswith("r1 ") for line in self.lines):
                self.lines.append(
                    f"first: class {self.cls} at {self.position} {facing}: {move.action}"
                )
            facing = f"{self.position} {facing}"
        self.lines.append(f"r{obs.public.round} {facing} {way}: {move.action}")

    def add_to(self, diag: dict[str, list[float]], hand: Hand, big_bet: int) -> None:
        net = hand.net()["a"] / big_bet
        view = public_view(hand)
        me = view.seats[hand.seat_of("a")]
        still = [s for s in view.seats if not s.folded]
        if me.folded:
            end = f"folded after {len(me.drawn)} draws"
        elif len(still) == 1:
            end = "won, the others folded"
        else:
            way = "HU" if len(still) == 2 else "3+way"
            end = f"showdown {way} " + ("won" if net > 0 else "lost")
        keys = [f"position {self.position}", f"class {self.cls}", f"end: {end}"]
        keys += [f"class {self.cls} at {self.position}"]
        if me.folded and me.drawn:  # what it drew last, against the fewest drawn by another
            k = len(me.drawn)
            theirs = min(
                (s.drawn[k - 1] for s in view.seats if len(s.drawn) >= k and s != me), default=9
            )
            keys.append(f"ended {end}, drew {me.drawn[-1]} v {theirs}")
        keys += sorted({f"did {line}" for line in self.lines})
        for key in keys:
            row = diag.setdefault(key, [0.0, 0.0])
            row[0] += 1
            row[1] += net


def print_diagnosis(diag: dict[str, list[float]], hands: int) -> None:
    """Per bucket: its hands, its share of all hands, and its net in big bets per 100
    of all hands (the buckets of one kind sum to the pairing's result)."""
    print(f"    {'bucket':46} {'hands':>7} {'share':>6} {'bb/100':>8} {'bb/hand':>8}")
    for key in sorted(diag, key=lambda k: (k.split(" ")[0], k)):
        n, net = diag[key]
        print(
            f"    {key:46} {int(n):7} {100 * n / hands:5.1f}% "
            f"{100 * net / hands:+8.2f} {net / n:+8.3f}"
        )


def run_chunk(args: tuple[str, int, str, str, int, bool]) -> Chunk:
    """One table session: CHUNK decks with the same players, profiles kept throughout."""
    game, seats, a, b, first, diagnose = args
    chunk = Chunk(first, diag={} if diagnose else None)
    profiles: dict[str, Profile] = {}
    for seed in range(first, first + CHUNK):
        profiles = play_deck(game, seats, a, b, seed, chunk, profiles)
    return chunk


def mean_ci(values: Sequence[float]) -> tuple[float, float]:
    """The mean and the half-width of its 95% confidence interval."""
    mean = sum(values) / len(values)
    var = sum((x - mean) ** 2 for x in values) / (len(values) - 1)
    return mean, 1.96 * math.sqrt(var / len(values))


def compare(path: str) -> None:
    """Paired differences between levels against the same baseline on the same decks:
    hard − normal and normal − easy, from the rows of ``--json`` runs (the last row of
    each pairing counts)."""
    rows: dict[tuple[str, int, str, str, int, int], list[float]] = {}
    for line in Path(path).read_text().splitlines():
        r = json.loads(line)
        if "decks" in r:
            rows[(r["game"], r["seats"], r["b"], r["a"], r["seed"], r["hands"])] = r["decks"]
    head = f"{'game':10} {'seats':>5} {'baseline':12} {'difference':16} {'decks':>6}"
    print(head + "  bb/100 (95% CI)")
    for (game, seats, b, a, seed, hands), decks in sorted(rows.items()):
        for better, worse in (("hard", "normal"), ("normal", "easy")):
            other = rows.get((game, seats, b, worse, seed, hands))
            if a != better or other is None:
                continue
            mean, half = mean_ci([x - y for x, y in zip(decks, other, strict=True)])
            verdict = "better" if mean - half > 0 else "worse" if mean + half < 0 else "?"
            print(
                f"{game:10} {seats:>5} {b:12} {better + ' - ' + worse:16} {len(decks):>6}  "
                f"{mean:+7.1f} ± {half:4.1f}  {verdict}"
            )


def quantile(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(len(values) * q))] if values else float("nan")


def make(kind: str, rng: random.Random) -> Strategy | Baseline | TripleDrawPro:
    if kind == "td-pro":
        return TripleDrawPro(rng)
    return Baseline(kind, rng) if kind in BASELINE_KINDS else Strategy(kind, rng)


def pairings(args: argparse.Namespace) -> list[tuple[str, int, str, str, int]]:
    """(game, seats, A, B, hands) for every pairing asked for, most important first."""
    games = GAMES if args.games == "all" else tuple(args.games.split(","))
    levels = [x for x in args.levels.split(",") if x]
    baselines = [x for x in args.baselines.split(",") if x]
    sizes = {"hu": ("hu",), "max": ("max",), "both": ("hu", "max")}[args.sizes]
    out = []
    for size in sizes:
        for level in sorted(levels, key=lambda x: -LEVELS.index(x) if x in LEVELS else 0):
            for game in games:
                most = MIXED_SEATS if game == MIXED else VARIANTS[game].max_seats
                seats = 2 if size == "hu" else most
                hands = args.hands if size == "hu" else args.max_hands
                out += [(game, seats, level, b, hands) for b in baselines]
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--hands", type=int, default=10_000, help="hands per heads-up pairing")
    ap.add_argument("--max-hands", type=int, default=4_000, help="hands per largest-table pairing")
    ap.add_argument("--games", default="all", help="all, mixed, or a list (a6-draw,…)")
    ap.add_argument("--sizes", default="both", help="hu, max or both")
    ap.add_argument("--levels", default=",".join(LEVELS))
    ap.add_argument("--baselines", default=",".join(BASELINE_KINDS))
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", help="append one JSON line per pairing to this file")
    ap.add_argument("--timing", type=int, default=100, help="hands per timing pass (0: none)")
    ap.add_argument("--compare", help="print paired level differences from this --json file")
    ap.add_argument(
        "--diagnose",
        action="store_true",
        help="break each pairing's result down by position, starting class, how the hand "
        "ended and the betting decisions made (run td-pro as a level for its own figures)",
    )
    args = ap.parse_args()
    if args.compare:
        compare(args.compare)
        return
    warm_up()
    print(
        f"{'game':10} {'seats':>5} {'pairing':20} {'hands':>7}  big bets/100 (95% CI)   p50/p99 ms"
    )
    with multiprocessing.Pool(args.workers, initializer=warm_up) as pool:
        for game, seats, a, b, want in pairings(args):
            decks = math.ceil(want / seats / CHUNK) * CHUNK
            base = args.seed * 10_000_000
            tasks = [(game, seats, a, b, base + i, args.diagnose) for i in range(0, decks, CHUNK)]
            started = time.perf_counter()
            by_first: dict[int, list[float]] = {}
            times: list[float] = []
            cpu: list[float] = []
            hands = 0
            diag: dict[str, list[float]] = {}
            for chunk in pool.imap_unordered(run_chunk, tasks):
                for key, (n, net) in (chunk.diag or {}).items():
                    row = diag.setdefault(key, [0.0, 0.0])
                    row[0] += n
                    row[1] += net
                by_first[chunk.first] = chunk.deck_nets
                hands += chunk.hands
                times += chunk.times
                cpu += chunk.cpu
            # A's result per hand, in big bets: mean over decks, 95% CI over decks.
            per = [x for first in sorted(by_first) for x in by_first[first]]
            mean, half = mean_ci(per)
            verdict = "wins" if mean - half > 0 else "loses" if mean + half < 0 else "?"
            p50, p99 = quantile(times, 0.5) * 1000, quantile(times, 0.99) * 1000
            c50, c99 = quantile(cpu, 0.5) * 1000, quantile(cpu, 0.99) * 1000
            print(
                f"{game:10} {seats:>5} {a + ' vs ' + b:20} {hands:>7}  "
                f"{mean:+7.1f} ± {half:4.1f}  {verdict:5}  {p50:5.2f}/{p99:5.2f}  "
                f"cpu {c50:5.2f}/{c99:5.2f}  ({time.perf_counter() - started:.0f} s)",
                flush=True,
            )
            if args.diagnose:
                print_diagnosis(diag, hands)
            if args.json:
                row = {"game": game, "seats": seats, "a": a, "b": b, "hands": hands}
                row |= {"bb100": round(mean, 2), "ci95": round(half, 2)}
                row |= {"p50_ms": round(p50, 3), "p99_ms": round(p99, 3)}
                row |= {"cpu_p50_ms": round(c50, 3), "cpu_p99_ms": round(c99, 3)}
                # Per deck, in seed order: two levels' runs with the same --seed played the
                # same decks, so ``--compare`` can pair them.
                row |= {"seed": args.seed, "decks": [round(x, 2) for x in per]}
                with open(args.json, "a") as f:
                    f.write(json.dumps(row) + "\n")
    if args.timing:
        games = GAMES if args.games in ("all", MIXED) else tuple(args.games.split(","))
        timing_pass(games, args.timing)


def timing_pass(games: tuple[str, ...], hands: int) -> None:
    """Decision times alone: one process, every seat the same level, heads-up and full."""
    print(f"\ndecision time alone, {hands} hands per game and table size (ms):")
    print(f"  {'level':8} {'game':10} {'p50':>6} {'p99':>6} {'max':>6}")
    for kind in LEVELS:
        for game in games:
            times: list[float] = []
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
            print(
                f"  {kind:8} {game:10} {quantile(times, 0.5) * 1000:6.2f} "
                f"{quantile(times, 0.99) * 1000:6.2f} {times[-1] * 1000:6.2f}",
                flush=True,
            )


# ----- rule-based sparring partners ------------------------------------------------
#
# Written from plain poker knowledge and sharing no code with bot/opponents: they read
# their cards with the engine's rankings only. Each is a small rule table.


def _low(card: Card) -> int:
    r = rank_of(card)
    return 1 if r == 12 else r + 2


def _lows(cards: Sequence[Card], cap: int) -> list[Card]:
    """One card of each rank up to ``cap``, lowest first."""
    seen: set[int] = set()
    out = []
    for c in sorted(cards, key=_low):
        if _low(c) <= cap and _low(c) not in seen:
            seen.add(_low(c))
            out.append(c)
    return out


@dataclass(frozen=True)
class LowRead:
    """A lowball hand as a player reads it: a made hand's top card, or its best draw."""

    made_top: int | None  # top card of a made low (no pair; no straight/flush in A-6)
    draw: list[Card]  # the cards worth keeping to draw to, at most four
    draw_top: int  # their highest card (99: nothing)


def read_low(cards: Sequence[Card], ranking: str) -> LowRead:
    made = category(ranking, cards) == Category.NO_PAIR
    made_top = max(_low(c) for c in cards) if made else None
    draw = _lows(cards, 8)[:4]
    if ranking == "a6" and len(draw) == 4:
        ranks = sorted(_low(c) for c in draw)
        if ranks[-1] - ranks[0] == 3 or ranks == [1, 2, 3, 4]:
            draw = draw[:3]  # four to a straight is a poor ace-to-six draw
    return LowRead(made_top, draw, max((_low(c) for c in draw), default=99))


# Per baseline: the highest made top card to stand pat with, by draws left.
PAT = {
    "tag": {1: 10, 2: 9, 3: 8},
    "nit": {1: 9, 2: 8, 3: 8},
    "maniac": {1: 11, 2: 10, 3: 9},
    "callstation": {1: 12, 2: 11, 3: 10},
}


class Baseline:
    """A rule-based player: ``tag``, ``nit``, ``maniac`` or ``callstation``."""

    def __init__(self, kind: str, rng: random.Random) -> None:
        self.kind = kind
        self.rng = rng

    def decide(self, obs: Observation) -> Action:
        d = obs.decision
        game = VARIANTS[obs.public.variant]
        if d.phase == Phase.BUY:
            return Action(obs.player, ActionKind.BUY, source=self._buy(obs))
        if d.phase == Phase.DRAW:
            r = read_low(obs.cards, game.ranking)
            left = game.draws - len(obs.public.seats[obs.seat].drawn)
            if r.made_top is not None and r.made_top <= PAT[self.kind][min(left, 3)]:
                return Action(obs.player, ActionKind.DISCARD, cards=())
            keep = r.draw
            return Action(
                obs.player, ActionKind.DISCARD, cards=tuple(c for c in obs.cards if c not in keep)
            )
        want = self._want(obs)  # 0 fold, 1 call or check, 2 bet or raise
        legal = d.legal
        if want >= 2 and ActionKind.BET in legal:
            return Action(obs.player, ActionKind.BET)
        if want >= 2 and ActionKind.RAISE in legal:
            return Action(obs.player, ActionKind.RAISE)
        if ActionKind.CHECK in legal:
            return Action(obs.player, ActionKind.CHECK)
        return Action(
            obs.player,
            ActionKind.CALL if want >= 1 or ActionKind.FOLD not in legal else ActionKind.FOLD,
        )

    # -- betting ------------------------------------------------------------------

    def _want(self, obs: Observation) -> int:
        if self.kind == "maniac":
            return 2
        if self.kind == "callstation":
            return 1
        game = VARIANTS[obs.public.variant]
        if game.split:
            return self._want_abyssinia(obs)
        d = obs.decision
        r = read_low(obs.cards, game.ranking)
        drawn = obs.public.seats[obs.seat].drawn
        left = game.draws - len(drawn)
        raises = sum(1 for a in _current(obs) if a.action in AGGRESSIVE)
        if game.draws == 3 and left == 3:
            raises += 1  # the big blind is the first bet
        nit = self.kind == "nit"
        if left == 0:  # the last round: a made hand's top card
            top = r.made_top or 99
            value, bluff_catch = (7, 8) if nit else (8, 10)
            if top <= value - (1 if raises >= 2 else 0):
                return 2
            if top <= bluff_catch and raises <= 1:
                return 1
            others = [
                s.drawn for i, s in enumerate(obs.public.seats) if i != obs.seat and not s.folded
            ]
            if (
                not nit
                and not raises
                and len(others) == 1
                and others[0][-1:]
                and drawn[-1:]
                and others[0][-1] > drawn[-1]
                and self.rng.random() < 0.3
            ):
                return 2  # they drew more at the last draw: bet as if made
            return 0 if d.to_call else 1
        # Before a draw: the strength of the made hand or the draw.
        if r.made_top is not None and r.made_top <= PAT[self.kind][min(left, 3)]:
            return 2
        n, top = len(r.draw), r.draw_top
        if nit:
            strong = n == 4 and top <= (6 if left == 1 else 7)
            ok = strong or (left == 3 and n >= 3 and top <= 5)
            return 2 if strong else 1 if ok and raises <= 1 else 0 if d.to_call else 1
        if left == 1:
            strong = n == 4 and top <= 7
            ok = n == 4 or (n == 3 and top <= 5 and game.draws == 1 and raises == 0)
        else:  # triple draw, before the first or second draw
            strong = n == 4 and top <= 7 or (n == 3 and top <= 5 and left == 3)
            ok = n >= 3 and top <= (8 if left == 3 else 7)
        if strong:
            return 2 if raises <= 2 else 1
        if ok:
            if raises == 0 and _checked_to(obs):
                return 2  # a decent draw, checked to: take the lead
            return 1 if raises <= 1 else 0
        if game.draws == 1 and raises == 0 and _checked_to(obs) and self.rng.random() < 0.25:
            return 2  # a cheap steal of the antes
        return 0 if d.to_call else 1

    def _want_abyssinia(self, obs: Observation) -> int:
        d = obs.decision
        others = [
            s.open_cards for i, s in enumerate(obs.public.seats) if i != obs.seat and not s.folded
        ]
        lead = _halves_ahead(obs.cards, others)
        raises = sum(1 for a in _current(obs) if a.action in AGGRESSIVE)
        if len(obs.cards) == 5 and all(len(o) == 5 for o in others):
            # Everything is open: the result is known.
            pot_odds = d.to_call / (obs.public.pot + d.to_call) if d.to_call else 0.0
            return (
                2 if lead > 0.5 else 1 if lead >= pot_odds and lead > 0 else 0 if d.to_call else 1
            )
        if self.kind == "nit":
            return 2 if lead >= 1 else 1 if lead >= 0.5 and raises <= 1 else 0 if d.to_call else 1
        if lead >= 0.75:
            return 2
        if lead >= 0.5 or (len(obs.cards) <= 2 and raises <= 1):
            return 1
        return 0 if d.to_call else 1

    # -- Abyssinia buys -------------------------------------------------------------

    def _buy(self, obs: Observation) -> str:
        held = list(obs.cards)
        best, best_score = BuySource.BLIND, _card_score(held, None)
        for o in obs.decision.market:
            if o.card is None:
                continue
            score = _card_score(held, o.card) - 0.15 * (o.price or 0)
            if score > best_score:
                best, best_score = o.source, score
        return best


def _current(obs: Observation) -> list[PublicAction]:
    out: list[PublicAction] = []
    for a in reversed(obs.history):
        if a.action not in BETTING:
            break
        out.append(a)
    return out


def _checked_to(obs: Observation) -> bool:
    """Every other player still in has acted this round, and nobody bet."""
    acted = {a.player for a in _current(obs)}
    return all(
        s.player in acted for i, s in enumerate(obs.public.seats) if i != obs.seat and not s.folded
    )


def _card_score(held: list[Card], card: Card | None) -> float:
    """How much a card helps the plan its holder's cards suggest (None: the blind card's
    average, a plain 0.55)."""
    if card is None:
        return 0.55
    ranks = [_low(c) for c in held]
    r = _low(card)
    lows = sorted({x for x in ranks if x <= 8})
    low_plan = len(lows) >= len(held) - 1
    if low_plan:
        if r <= 8 and r not in ranks:
            return 1.0 + (8 - r) / 16
        return 0.2 if r in ranks else 0.1
    # A high plan: pairs and trips, or high cards for a pair.
    if r in ranks:
        return 1.2
    return 0.6 if rank_of(card) >= 9 else 0.3


def _halves_ahead(mine: Sequence[Card], others: Sequence[Sequence[Card]]) -> float:
    """Halves of the pot the open cards say we lead (0, 0.5 or 1), by a player's read:
    the best high pattern so far and the smoothest low so far."""
    if not others:
        return 1.0

    def high_key(cards: Sequence[Card]) -> tuple[int, ...]:
        counts = sorted(
            (sum(1 for c in cards if rank_of(c) == rank_of(x)) for x in cards), reverse=True
        )
        return (*counts, *sorted((rank_of(c) for c in cards), reverse=True))

    def low_key(cards: Sequence[Card]) -> tuple[int, ...]:
        ranks = sorted({_low(c) for c in cards}, reverse=True)
        pairs = len(cards) - len(ranks)
        return (-pairs, len(ranks), *(-r for r in ranks))

    score = 0.0
    mh, ml = high_key(mine), low_key(mine)
    if len(mine) == 5 and all(len(o) == 5 for o in others):
        h, lo = high_value(mine), a5_value(mine)
        hs = [high_value(o) for o in others]
        ls = [a5_value(o) for o in others]
        score += 0.5 / (1 + hs.count(h)) if h >= max(hs) else 0.0
        score += 0.5 / (1 + ls.count(lo)) if lo >= max(ls) else 0.0
        return score
    if all(mh > high_key(o) for o in others):
        score += 0.5
    if all(ml > low_key(o) for o in others):
        score += 0.5
    return score


# ----- td-pro: a triple-draw player from published strategy ----------------------
#
# Written for this bench from published ace-to-five triple-draw strategy, sharing no
# code with bot/opponents nor with the baselines above (outside triple draw it plays
# as ``tag``). Sources:
# - "Ace to Five Triple Draw – Strategy before the First Draw" (countingouts.com):
#   opening standards by position: made sevens, four to a wheel or a six (put in as
#   many bets as you can), three to a wheel, three to a six; rougher draws want fewer
#   players; A2, A3, 23 steal and defend the blinds; a pat seven heads-up, broken
#   (24567) multiway.
# - "Ace to Five Triple Draw: Pat or Break Decisions" (countingouts.com): after the
#   second draw against one player drawing one, stand pat on an eight, keep a nine, break
#   a ten (A234T wins no more than A234 against a one-card draw).
# - Card Player's triple-draw columns (after the first draw): the player drawing fewer
#   cards than the others bets whether or not he improved; a raise should knock out or
#   charge the players drawing more.
# The rest is the fixed-limit arithmetic every such text teaches: a draw continues while
# its chance from its outs over the draws left pays the pot odds.

TD_KEEP_CAP = {  # draws left -> (highest card of a kept 4, 3, 2 or 1 card)
    3: (7, 7, 5, 3),
    2: (8, 7, 5, 3),
    1: (9, 7, 5, 3),
}


def _td_ranks(cards: Sequence[Card]) -> list[int]:
    """The distinct low ranks held, lowest first."""
    return sorted({_low(c) for c in cards})


def _td_made(cards: Sequence[Card]) -> int | None:
    """The top card of a made low (five distinct ranks), else None."""
    return max(_low(c) for c in cards) if category(Ranking.A5, cards) == Category.NO_PAIR else None


def td_pat_top(left: int, opp_draw: int, multiway: bool, ranks: Sequence[int]) -> int:
    """The roughest made top card td-pro stands pat on with ``left`` draws to come
    (this one included), against the fewest cards an opponent took last (3 before the
    first draw)."""
    if left == 3:
        if multiway:  # 24567 is broken multiway, kept heads-up
            return 7 if len(ranks) == 5 and ranks[3] <= 5 else 6
        return 8
    if left == 2:
        return 9 if opp_draw >= 2 else 8
    return {0: 8, 1: 9}.get(opp_draw, 10 if opp_draw == 2 else 11)


def td_keep(cards: Sequence[Card], left: int, opp_draw: int, multiway: bool) -> list[Card]:
    """The cards td-pro keeps at a draw with ``left`` draws to come: a made hand within
    the pat rule, else the most low cards within the caps of ``TD_KEEP_CAP``."""
    ranks = _td_ranks(cards)
    made = _td_made(cards)
    if made is not None and made <= td_pat_top(left, opp_draw, multiway, ranks):
        return list(cards)
    caps = TD_KEEP_CAP[min(left, 3)]
    by_rank: dict[int, Card] = {}
    for c in sorted(cards, key=_low):
        by_rank.setdefault(_low(c), c)
    for n, cap in zip((4, 3, 2, 1), caps, strict=True):
        if len(ranks) >= n and ranks[n - 1] <= cap:
            return [by_rank[r] for r in ranks[:n]]
    return []


def td_opening_class(cards: Sequence[Card]) -> int:
    """Starting-hand class before the first draw: 4 premium (a made seven, four to a
    wheel or a six), 3 strong (four to a seven, three to a wheel, a made eight), 2 good
    (three to a six), 1 steal and defend (A2, A3, 23; three to a seven with two wheel
    cards), 0 the rest."""
    ranks = _td_ranks(cards)
    made = _td_made(cards)
    if made is not None and made <= 7 or len(ranks) >= 4 and ranks[3] <= 6:
        return 4
    if len(ranks) >= 4 and ranks[3] <= 7 or len(ranks) >= 3 and ranks[2] <= 5 or made == 8:
        return 3
    if len(ranks) >= 3 and ranks[2] <= 6:
        return 2
    if ranks[:2] in ([1, 2], [1, 3], [2, 3]) or len(ranks) >= 3 and ranks[2] <= 7 and ranks[1] <= 5:
        return 1
    return 0


def td_draw_chance(kept: Sequence[int], need: int, target: int, left: int, unseen: int) -> float:
    """The chance to make a low with top card ``target`` or better, drawing ``need``
    cards to the ranks ``kept`` with ``left`` draws to come: the outs of each card over
    the draws (the textbook's approximation, each missing card one after another)."""
    if need == 0:
        return 1.0 if kept and max(kept) <= target else 0.0
    if kept and max(kept) > target:
        return 0.0
    free = [r for r in range(1, target + 1) if r not in kept]
    chance = 1.0
    for i in range(need):
        outs = 4 * (len(free) - i)
        if outs <= 0:
            return 0.0
        chance *= 1 - (1 - outs / unseen) ** max(1, left - i // 2)
    return chance


class TripleDrawPro:
    """``td-pro``: a sound fixed-limit triple-draw player by the published rules above;
    ``tag`` in the other games."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.other = Baseline("tag", rng)

    def decide(self, obs: Observation) -> Action:
        game = VARIANTS[obs.public.variant]
        if game.draws != 3 or game.ranking != Ranking.A5:
            return self.other.decide(obs)
        d = obs.decision
        left = game.draws - len(obs.public.seats[obs.seat].drawn)
        others = [s for i, s in enumerate(obs.public.seats) if i != obs.seat and not s.folded]
        opp_draw = min((s.drawn[-1] if s.drawn else 3) for s in others)
        multiway = len(others) > 1
        if d.phase == Phase.DRAW:
            keep = td_keep(obs.cards, left, opp_draw, multiway)
            return Action(
                obs.player, ActionKind.DISCARD, cards=tuple(c for c in obs.cards if c not in keep)
            )
        want = self._want(obs, left, opp_draw, multiway, len(others))
        if want >= 2 and ActionKind.BET in d.legal:
            return Action(obs.player, ActionKind.BET)
        if want >= 2 and ActionKind.RAISE in d.legal:
            return Action(obs.player, ActionKind.RAISE)
        if ActionKind.CHECK in d.legal:
            return Action(obs.player, ActionKind.CHECK)
        return Action(
            obs.player,
            ActionKind.CALL if want >= 1 or ActionKind.FOLD not in d.legal else ActionKind.FOLD,
        )

    def _want(self, obs: Observation, left: int, opp_draw: int, multiway: bool, n: int) -> int:
        """0 fold (or check), 1 call (or check), 2 bet or raise."""
        d = obs.decision
        current = _current(obs)
        raises = sum(1 for a in current if a.action in AGGRESSIVE)
        if left == 3:
            return self._first_round(obs, raises + 1, n)
        pot_odds = d.to_call / (obs.public.pot + d.to_call) if d.to_call else 0.0
        if left == 0:
            return self._last_round(obs, raises, opp_draw, pot_odds)
        keep = td_keep(obs.cards, left, opp_draw, multiway)
        need = 5 - len(keep)
        kept = sorted(_low(c) for c in keep)
        top = max(kept, default=99)
        # Ahead on the draw: fewer cards to draw than anyone, or pat as smooth as an eight.
        ahead = need < opp_draw or need == 0 and top <= 8
        if not d.to_call:
            even = need == opp_draw and need <= 1 and top <= 7 and _checked_to(obs)
            return 2 if ahead or even else 1
        if ahead:
            return 2 if raises <= 2 and (need < opp_draw or top <= 7) else 1
        if need == opp_draw:
            if need <= 1 and top <= 6 and raises <= 1:
                return 2
            return 1 if need <= 2 or raises <= 1 else 0
        # Behind on the draw: continue while the draw's chance pays the price, counting
        # the later bets it must call too (one more per draw to come, big bets after).
        target = 8 if opp_draw == 0 else 7
        unseen = 47 - len(_own_thrown(obs))
        chance = td_draw_chance(kept, need, target, left, unseen)
        later = (left - 1) * 2 * d.to_call
        cost = d.to_call * (raises if raises else 1) + later
        return 1 if chance >= cost / (obs.public.pot + cost) else 0

    def _first_round(self, obs: Observation, raises: int, n: int) -> int:
        d = obs.decision
        cls = td_opening_class(obs.cards)
        acted = {a.player for a in _current(obs)}
        behind = sum(
            1
            for i, s in enumerate(obs.public.seats)
            if i != obs.seat and not s.folded and s.player not in acted
        )
        if raises == 1:  # only the big blind's bet
            if not d.to_call:  # the big blind's option
                return 2 if cls >= 3 else 1
            need = 3 if behind >= 4 else 2 if behind >= 2 else 1
            return 2 if cls >= need else 0
        if raises == 2:  # one raise
            if cls == 4:
                return 2
            closing = behind == 0 or not d.to_call
            if cls >= 3 or cls >= 2 and (closing or n == 1) or cls >= 1 and closing and n == 1:
                return 1
            return 0
        return 2 if cls == 4 else 1 if cls >= 3 else 0

    def _last_round(self, obs: Observation, raises: int, opp_draw: int, pot_odds: float) -> int:
        d = obs.decision
        made = _td_made(obs.cards)
        top = made if made is not None else 99
        mine = obs.public.seats[obs.seat].drawn
        if not d.to_call:
            if top <= (7 if opp_draw == 0 else 8):
                return 2
            bluff = made is None and opp_draw >= 2 and mine[-1:] and mine[-1] < opp_draw
            return 2 if bluff and _checked_to(obs) and self.rng.random() < 0.3 else 1
        if top <= 6 or top <= 7 and opp_draw >= 1 and raises <= 1:
            return 2
        if top <= (8 if opp_draw == 0 or raises >= 2 else 9):
            return 1
        return 1 if top <= 10 and pot_odds < 0.15 and raises <= 1 else 0


def _own_thrown(obs: Observation) -> list[Card]:
    return [c for a in obs.history if a.player == obs.player and a.cards for c in a.cards]


if __name__ == "__main__":
    main()
