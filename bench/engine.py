"""Engine benchmark: one table of our speeds beside PokerKit's, same run, same inputs.

Rows:

* ``high`` / ``a5`` / ``a6`` evaluations per second (from ``bench.rankings_bench``,
  on the same seeded random five-card hands): ``high`` against PokerKit's fastest
  public path, ``StandardHighHand.lookup`` on pre-parsed cards, ``a5`` against
  ``RegularLowHand.lookup``; PokerKit has no ace-to-six ranking, so ``a6`` has no
  PokerKit figure.
  Target: at least 2,000,000 evaluations per second, and 10x PokerKit where
  PokerKit has the ranking.
* complete random-play hands per second for each variant at its maximum seats
  (``bot.engine.simulate.play_random_hand``: uniform choice among the legal
  actions, a uniformly sized random discard). For ``a5-triple`` at 6 seats,
  PokerKit's fixed-limit triple-draw state machine plays the same kind of random
  hands at 6 players: an ace-to-five subclass of
  ``FixedLimitDeuceToSevenLowballTripleDraw`` (hands ranked by
  ``RegularLowHand``), blinds 1/2, small bet 2, big bet 4, no ante, stacks of
  1000, with every non-decision step (posting, dealing, burning, collecting,
  showdown, pushing and pulling chips) automated. Target: 20x PokerKit.
* replaying recorded hands (``Hand.replay``), tournament hands (RULES.md §8: ``"allin"``,
  a level row's stakes, stacks from 1 chip to 40 big bets, so all-ins and side pots are
  common) beside cash hands of the same game at the same seats, both from random play
  that never folds (to a showdown, as all-in players must go), in CPU time. Target: a
  tournament hand's replay within 1.5x of a cash hand's (per hand; per action shown too).

Everything is seeded (``--seed``), so inputs repeat from run to run.

Run ``.venv/bin/python bench/engine.py`` (``--quick`` for a short run).
"""

from __future__ import annotations

import argparse
import gc
import random
import sys
import time
import warnings
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make ``bot`` and ``bench`` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.rankings_bench import bench_rankings
from bot.engine import VARIANTS, ActionKind, Hand, HandRecord, Stakes
from bot.engine.cards import FULL_DECK
from bot.engine.simulate import play_random_hand, random_action

EVALS_TARGET = 2_000_000
EVALS_RATIO_TARGET = 10
HANDS_RATIO_TARGET = 20
REPLAY_RATIO_TARGET = 1.5
REPLAY_PASSES = 7  # replays are short: more passes, the fastest of each chunk
REPLAY_CHUNK = 100  # hands timed together
# A middle level of a tournament's structure per game (its stakes keys, RULES.md §8.1).
LEVEL = {
    "a6-draw": Stakes(ante=5, small_bet=10, big_bet=20),
    "a5-draw": Stakes(ante=5, small_bet=10, big_bet=20),
    "a5-triple": Stakes(small_blind=5, big_blind=10, small_bet=10, big_bet=20),
    "abyssinia": Stakes(ante=2, bet=5, prices=(10, 5, 20)),
}
PK_SEATS = 6
PK_STACK = 1000


# --- our engine -------------------------------------------------------------


PASSES = 3  # each hands figure is the fastest of this many passes over the same seeded hands


def _best(one_pass, passes: int = PASSES) -> tuple[float, int, int, int]:
    """(hands per second, hands completed, hands that raised, decisions) of the fastest pass.

    ``one_pass()`` returns (elapsed, completed, errors, decisions); every pass
    replays the same seeded hands, so only the elapsed time differs.
    """
    runs = [one_pass() for _ in range(passes)]
    elapsed, done, errors, decisions = min(runs)
    return (done / elapsed if elapsed > 0 else float("inf")), done, errors, decisions


def _our_pass(variant: str, seats: int, n_hands: int, seed: int) -> tuple[float, int, int, int]:
    rng = random.Random(seed)
    done = errors = decisions = 0
    start = time.perf_counter()
    for _ in range(n_hands):
        try:
            hand = play_random_hand(variant, seats, rng)
        except Exception:  # noqa: BLE001 - counted and reported, not fatal
            errors += 1
            continue
        if hand.complete:
            done += 1
            decisions += len(hand.actions)
    return time.perf_counter() - start, done, errors, decisions


def bench_our_hands(
    variant: str, seats: int, n_hands: int, seed: int
) -> tuple[float, int, int, int]:
    """(hands per second, hands completed, hands that raised, decisions) for our engine."""
    return _best(lambda: _our_pass(variant, seats, n_hands, seed))


def _records(variant: str, seats: int, n_hands: int, seed: int, tournament: bool) -> list:
    """Records of random-play hands: cash (stacks of 100) or tournament (a level's stakes,
    stacks from 1 chip to 40 big bets)."""
    rng = random.Random(seed)
    stakes = LEVEL[variant]
    top = 40 * max(stakes.bet_sizes(variant))
    out = []
    for _ in range(n_hands):
        deck = sorted(FULL_DECK, key=lambda _: rng.random())
        dealer = rng.randrange(seats)
        if tournament:
            players = [(f"p{i}", rng.randint(1, top)) for i in range(seats)]
            hand = Hand.start(variant, players, dealer, deck, rng, stakes=stakes, allin=True)
        else:
            players = [(f"p{i}", 100) for i in range(seats)]
            hand = Hand.start(variant, players, dealer, deck, rng)
        while not hand.complete:
            action = random_action(hand, rng)
            while action.action == ActionKind.FOLD:  # to a showdown: see bench_replay
                action = random_action(hand, rng)
            hand.apply(action)
        out.append(hand.record())
    return out


def _replay_time(records: list[HandRecord]) -> float:
    """CPU seconds to replay ``records`` (the collector off: the records just built must
    not be collected on the clock; on a shared machine wall time counts others' turns)."""
    gc.disable()
    try:
        start = time.process_time()
        for record in records:
            Hand.replay(record)
        return time.process_time() - start
    finally:
        gc.enable()


def bench_replay(variant: str, seats: int, n_hands: int, seed: int) -> dict[str, tuple]:
    """For cash and tournament records: (actions replayed per second, hands per second,
    actions per hand).

    The hands are random play that never folds, so both kinds go to a showdown: with
    folds, a tournament hand (whose all-in players cannot fold) reaches a showdown
    three times as often as a cash one, and the comparison would weigh that, not the
    all-in rules. The records are timed in chunks of ``REPLAY_CHUNK``, a cash chunk then
    the tournament chunk beside it, and each chunk's time is its fastest of
    ``REPLAY_PASSES``: a busy moment of the machine slows one chunk of each, not one
    kind."""
    kinds = ("cash", "tournament")
    records = {k: _records(variant, seats, n_hands, seed, k == "tournament") for k in kinds}
    chunks = range(0, n_hands, REPLAY_CHUNK)
    best = {kind: [float("inf")] * len(chunks) for kind in kinds}
    gc.collect()
    for _ in range(REPLAY_PASSES):
        for i, first in enumerate(chunks):
            for kind in kinds:
                spent = _replay_time(records[kind][first : first + REPLAY_CHUNK])
                best[kind][i] = min(best[kind][i], spent)
    out = {}
    for kind in kinds:
        elapsed = sum(best[kind])
        actions = sum(len(r.actions) for r in records[kind])
        out[kind] = (actions / elapsed, n_hands / elapsed, actions / n_hands)
    return out


# --- PokerKit ----------------------------------------------------------------


def _pokerkit_game():
    """PokerKit's fixed-limit triple draw, ranked ace-to-five (``RegularLowHand``)."""
    import pokerkit as pk

    class FixedLimitAceToFiveLowballTripleDraw(pk.FixedLimitDeuceToSevenLowballTripleDraw):
        hand_types = (pk.RegularLowHand,)

    automations = (
        pk.Automation.ANTE_POSTING,
        pk.Automation.BET_COLLECTION,
        pk.Automation.BLIND_OR_STRADDLE_POSTING,
        pk.Automation.CARD_BURNING,
        pk.Automation.HOLE_DEALING,
        pk.Automation.BOARD_DEALING,
        pk.Automation.RUNOUT_COUNT_SELECTION,
        pk.Automation.HOLE_CARDS_SHOWING_OR_MUCKING,
        pk.Automation.HAND_KILLING,
        pk.Automation.CHIPS_PUSHING,
        pk.Automation.CHIPS_PULLING,
    )

    def new_state():
        return FixedLimitAceToFiveLowballTripleDraw.create_state(
            automations,
            True,  # ante trimming
            0,  # no ante
            (1, 2),  # blinds
            2,  # small bet
            4,  # big bet
            PK_STACK,
            PK_SEATS,
        )

    return new_state


def _pokerkit_random_hand(new_state, rng: random.Random):
    """Play one PokerKit hand to completion with a uniform random agent.

    Returns the final state and the number of decisions made."""
    state = new_state()
    decisions = 0
    while state.status:
        decisions += 1
        discarder = state.stand_patter_or_discarder_index
        if discarder is not None:
            hole = state.hole_cards[discarder]
            state.stand_pat_or_discard(rng.sample(hole, rng.randint(0, len(hole))))
            continue
        moves = []
        if state.can_fold():
            moves.append(state.fold)
        if state.can_check_or_call():
            moves.append(state.check_or_call)
        if state.can_complete_bet_or_raise_to():
            moves.append(state.complete_bet_or_raise_to)
        if not moves:
            raise RuntimeError("PokerKit state is live but offers no decision")
        rng.choice(moves)()
    return state, decisions


def _pokerkit_pass(new_state, n_hands: int, seed: int) -> tuple[float, int, int, int]:
    rng = random.Random(seed)
    random.seed(seed)  # PokerKit shuffles its deck with the global ``random``
    done = errors = decisions = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # reshuffle notices from dealing out of the muck
        start = time.perf_counter()
        for _ in range(n_hands):
            try:
                state, made = _pokerkit_random_hand(new_state, rng)
            except Exception:  # noqa: BLE001 - counted and reported, not fatal
                errors += 1
                continue
            if not state.status:
                done += 1
                decisions += made
        elapsed = time.perf_counter() - start
    return elapsed, done, errors, decisions


def bench_pokerkit_hands(n_hands: int, seed: int) -> tuple[float, int, int, int]:
    """(hands per second, hands completed, hands that raised, decisions) for PokerKit."""
    new_state = _pokerkit_game()
    return _best(lambda: _pokerkit_pass(new_state, n_hands, seed))


# --- the table ----------------------------------------------------------------


def _fmt(x: float | None) -> str:
    return "—" if x is None or x != x else f"{x:,.0f}"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a short run")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)

    if args.quick:
        n_evals, n_ours, n_pk = 20_000, 300, 20
    else:
        n_evals, n_ours, n_pk = 200_000, 5_000, 200

    rows: list[tuple[str, float, float | None, str, bool | None]] = []
    for ranking, ours, theirs in bench_rankings(n_hands=n_evals, seed=args.seed):
        if ranking == "a6":  # PokerKit has no ace-to-six ranking
            theirs = None
        if theirs is None or theirs != theirs:
            rows.append((f"{ranking} evals", ours, None, "≥2,000,000", ours >= EVALS_TARGET))
        else:
            met = ours >= EVALS_TARGET and ours >= EVALS_RATIO_TARGET * theirs
            rows.append((f"{ranking} evals", ours, theirs, "≥2,000,000 and ≥10x", met))

    notes: list[str] = []
    for variant in VARIANTS.values():
        seats = variant.max_seats
        ours, done, errors, made = bench_our_hands(variant.id, seats, n_ours, args.seed)
        notes.append(
            f"ours {variant.id}, {seats} seats: {done:,} hands completed, {errors} errors, "
            f"{made / max(done, 1):.1f} decisions per hand"
        )
        label = f"{variant.id} hands, {seats} seats"
        if variant.id == "a5-triple" and seats == PK_SEATS:
            theirs, pk_done, pk_errors, pk_made = bench_pokerkit_hands(n_pk, args.seed)
            notes.append(
                f"PokerKit triple draw, ace-to-five (subclass of "
                f"FixedLimitDeuceToSevenLowballTripleDraw ranked by RegularLowHand), "
                f"{PK_SEATS} players: {pk_done:,} hands completed, {pk_errors} errors, "
                f"{pk_made / max(pk_done, 1):.1f} decisions per hand"
            )
            rows.append((label, ours, theirs, "≥20x", ours >= HANDS_RATIO_TARGET * theirs))
        else:
            rows.append((label, ours, None, "—", None))

    replay_rows = []
    for variant in VARIANTS.values():
        seats = variant.max_seats
        got = bench_replay(variant.id, seats, n_ours, args.seed)
        (cash_a, cash_h, cash_n), (tour_a, tour_h, tour_n) = got["cash"], got["tournament"]
        per_hand = cash_h / tour_h  # time per hand, tournament over cash: the target
        replay_rows.append(
            (
                f"{variant.id}, {seats} seats",
                _fmt(cash_h),
                _fmt(tour_h),
                f"{per_hand:.2f}x",
                f"{cash_a / tour_a:.2f}x",
                f"{cash_n:.1f} / {tour_n:.1f}",
                "yes" if per_hand <= REPLAY_RATIO_TARGET else "NO",
            )
        )

    head = ("item", "ours per s", "PokerKit per s", "ratio", "target", "met?")
    table = [head]
    for item, ours, theirs, target, met in rows:
        ratio = "—" if theirs is None or not theirs else f"{ours / theirs:,.1f}x"
        verdict = "—" if met is None else ("yes" if met else "NO")
        table.append((item, _fmt(ours), _fmt(theirs), ratio, target, verdict))
    widths = [max(len(r[i]) for r in table) for i in range(len(head))]
    right = {1, 2, 3}

    def line(cells: tuple[str, ...]) -> str:
        parts = [
            c.rjust(w) if i in right else c.ljust(w)
            for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        ]
        return "| " + " | ".join(parts) + " |"

    print(line(head))
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for r in table[1:]:
        print(line(r))
    mode = "quick" if args.quick else "full"
    print(
        f"\n{mode} run, seed {args.seed}: {n_evals:,} random 5-card hands per ranking "
        f"(PokerKit on the first {min(n_evals, 5_000):,}); {n_ours:,} random hands per "
        f"variant for ours, {n_pk:,} for PokerKit; every figure is the fastest of "
        f"{PASSES} passes over the same inputs."
    )
    for note in notes:
        print(note)

    replay_head = (
        "replay",
        "cash hands/s",
        "tournament hands/s",
        "time per hand",
        "per action",
        "actions per hand",
        "≤1.5x?",
    )
    _print_table(replay_head, replay_rows, right={1, 2, 3, 4, 5})
    print(
        f"\n{n_ours:,} random-play records per game and kind (never folding: both go to a "
        f"showdown), replayed with Hand.replay, CPU time, each chunk of {REPLAY_CHUNK} "
        f"hands the fastest of {REPLAY_PASSES} passes, cash and tournament chunks "
        f"interleaved; tournament stakes: "
        f"{', '.join(f'{v} {s.to_json()}' for v, s in LEVEL.items())}."
    )


def _print_table(head: tuple[str, ...], rows: list[tuple[str, ...]], right: set[int]) -> None:
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]

    def line(cells: tuple[str, ...]) -> str:
        parts = [
            c.rjust(w) if i in right else c.ljust(w)
            for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        ]
        return "| " + " | ".join(parts) + " |"

    print()
    print(line(head))
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for r in rows:
        print(line(r))


if __name__ == "__main__":
    main()
