"""A multi-table tournament played to a winner at the service level, on a real SQLite file.

``--entrants`` players (1,000 by default) register for a six-handed triple-draw
tournament; the seats are drawn over ``ceil(n / 6)`` tables and hands are simulated
(as ``tests/tournaments/test_multi_table.py`` does): every table that may deal deals,
one table in play at random finishes its hand (one winner, sometimes one player loses
everything), and ``MultiTableService.hand_finished`` counts it, places the players it
put out and makes the planner's moves and breaks in one transaction. The bot's clock
(injected) moves ``--seconds-per-hand`` per finished hand, so the levels change on the
way (turbo: 4 minutes). Printed:

* wall time of the whole run, and the hands played;
* every service call's wall time (and the most CPU time the process spent in one, its
  threads together: what the call costs when no other process wants the cores): the
  longest one (the stand-in for a stall of the bot's
  event loop, which all of a tournament's tables share; target under 50 ms), p50 and
  p99, by kind of call, and which hand the longest was; ``hand_finished`` again by what
  the hand led to (the first hand of a new level, balancing moves, a table broken, the
  end with its prizes);
* database writes per hand: write transactions and the row-changing statements
  (INSERT / UPDATE / DELETE, each row of an executemany counted), from SQLite's trace;
* the process's peak memory (max RSS);
* chips conserved after every hand: the stacks read straight from the database by a
  second connection add up to the chips in play (also checked inside every write).

    nice -n 10 .venv/bin/python bench/mtt.py [--entrants 1000] [--seed 1] [--db path]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import resource
import sqlite3
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar

if not __package__:  # run as `python bench/mtt.py`: make the repo importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import bot.storage.database as database  # noqa: E402
from bot.storage.store import Store  # noqa: E402
from bot.tournaments.multi_table import MultiTableService  # noqa: E402
from bot.tournaments.service import TournamentService  # noqa: E402

T = TypeVar("T")
GUILD, CHANNEL = 1000, 77
STACK = 1000
FEE = 10
WRITES = ("INSERT", "UPDATE", "DELETE")


class Clock:
    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def play(stacks: Mapping[int, int], rng: random.Random) -> dict[int, int]:
    """A hand's result: one winner; often one player loses everything, the others a bit."""
    players = sorted(stacks)
    winner = rng.choice(players)
    after = dict(stacks)
    losers = [p for p in players if p != winner]
    busted = rng.choice(losers) if rng.random() < 0.3 else None
    for p in losers:
        lost = after[p] if p == busted else min(after[p], rng.randint(0, 200))
        after[p] -= lost
        after[winner] += lost
    return after


class Timings:
    """Each service call's duration, by kind."""

    def __init__(self) -> None:
        self.calls: dict[str, list[float]] = defaultdict(list)
        self.cpu: dict[str, list[float]] = defaultdict(list)
        self.longest = (0.0, "", "")

    def note(self, kind: str, seconds: float, cpu: float, where: str = "") -> None:
        self.calls[kind].append(seconds)
        self.cpu[kind].append(cpu)
        if seconds > self.longest[0]:
            self.longest = (seconds, kind, where)

    async def timed(self, kind: str, call: Awaitable[T], where: str = "") -> T:
        started, cpu = time.perf_counter(), time.process_time()
        result = await call
        self.note(kind, time.perf_counter() - started, time.process_time() - cpu, where)
        return result

    def sync(self, kind: str, call: Callable[[], T], where: str = "") -> T:
        started, cpu = time.perf_counter(), time.process_time()
        result = call()
        self.note(kind, time.perf_counter() - started, time.process_time() - cpu, where)
        return result


class Writes:
    """Write transactions (the commit hook) and row-changing statements (SQLite's trace)."""

    def __init__(self) -> None:
        self.transactions: dict[str, int] = defaultdict(int)
        self.statements = 0

    def commit(self, step: str, moment: str) -> None:
        if moment == "after":
            self.transactions[step] += 1

    def trace(self, sql: str) -> None:
        if sql.lstrip().upper().startswith(WRITES):
            self.statements += 1


async def run(entrants: int, seed: int, path: Path, seconds_per_hand: float) -> dict[str, Any]:
    clock = Clock(1_800_000_000.0)
    store = await Store.open(path, clock=clock)
    rng = random.Random(seed)
    sng = TournamentService(store, grant=10 * FEE, rng=rng, clock=clock)
    mtt = MultiTableService(store, sng, rng)
    timings, writes = Timings(), Writes()
    players = list(range(1, entrants + 1))
    for user in players:
        await store.ledger.ensure_account(GUILD, user, f"p{user}", 10 * FEE)
    t = await timings.timed(
        "create",
        mtt.create(
            GUILD,
            CHANNEL,
            1,
            "a5-triple",
            table_size=6,
            cap=entrants,
            speed="turbo",
            start_stack=STACK,
            fee=FEE,
        ),  # fmt: skip
    )
    tid = t.tournament_id
    for user in players:
        await timings.timed("register", store.tournaments.register(tid, user, f"p{user}"))
    # from here on, every write is counted
    database.commit_hook = writes.commit
    await store._db.conn.set_trace_callback(writes.trace)  # type: ignore[attr-defined]
    started_wall = time.perf_counter()
    field = await timings.timed("start", mtt.start(tid))
    tables_at_start = len(field.tables)
    reader = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    chips = entrants * STACK
    hand_id, in_play, hands = 0, {}, 0
    levels, breaks, moves, hand_for_hand = {1}, 0, 0, 0
    final = None
    while final is None:
        field = timings.sync("field", lambda: mtt.field(tid))
        for table in field.tables:
            n = table.number
            if n not in in_play and timings.sync("may_deal", lambda n=n: mtt.may_deal(tid, n)):
                timings.sync("hand_started", lambda n=n: mtt.hand_started(tid, n))
                hand_id += 1
                in_play[n] = (hand_id, {s.player: s.stack for s in table.seats})
        if not in_play:
            raise RuntimeError("no table deals and none is in a hand: the tournament is stuck")
        number = rng.choice(sorted(in_play))
        hid, before = in_play.pop(number)
        after = play(before, rng)
        result = await timings.timed(
            "hand_finished",
            mtt.hand_finished(tid, number, hid, before, after, button=min(before)),
            f"hand #{hid} at table {number}, {len(field.tables)} tables",
        )
        hands += 1
        level = sng.level(await store.tournaments.get(tid) or t)[1].number
        if result.final is not None:  # filed again by what the hand led to
            led_to = "  the end"
        elif result.broken:
            led_to = "  with a break"
        elif result.moves:
            led_to = "  with moves"
        elif level not in levels:
            led_to = "  new level"
        else:
            led_to = "  other"
        timings.calls[led_to].append(timings.calls["hand_finished"][-1])
        timings.cpu[led_to].append(timings.cpu["hand_finished"][-1])
        clock.now += seconds_per_hand
        final = result.final
        moves += len(result.moves)
        breaks += len(result.broken)
        hand_for_hand += result.hand_for_hand
        levels.add(level)
        in_db = reader.execute(
            "SELECT SUM(stack) FROM tournament_entries WHERE tournament_id = ?", (tid,)
        ).fetchone()[0]
        if in_db != chips:
            raise RuntimeError(f"after hand #{hid}: {in_db} chips in the database, not {chips}")
    wall = time.perf_counter() - started_wall
    database.commit_hook = None
    reader.close()
    ended = await store.tournaments.get(tid)
    assert ended is not None and ended.status == "finished"
    assert final is not None and sorted(final.places) == players
    assert sum(final.prizes.values()) == FEE * entrants
    await store.close()
    return {
        "entrants": entrants,
        "tables": tables_at_start,
        "hands": hands,
        "wall": wall,
        "timings": timings,
        "writes": writes,
        "levels": max(levels),
        "breaks": breaks,
        "moves": moves,
        "hand_for_hand": hand_for_hand,
        "paid": sum(1 for p in final.prizes.values() if p),
        "max_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def report(r: dict[str, Any]) -> None:
    timings: Timings = r["timings"]
    writes: Writes = r["writes"]
    print(f"{r['entrants']} entrants on {r['tables']} six-max tables: {r['hands']} hands "
          f"to a winner in {r['wall']:.1f} s wall")  # fmt: skip
    print(f"  levels reached {r['levels']}, tables broken {r['breaks']}, balancing and "
          f"breaking moves {r['moves']}, hands counted hand-for-hand {r['hand_for_hand']}, "
          f"places paid {r['paid']}")  # fmt: skip
    seconds, kind, where = timings.longest
    where = f", {where}" if where else ""
    print(f"  longest service call: {seconds * 1000:.1f} ms ({kind}{where})")
    print("  call              count    p50 ms    p99 ms    max ms  max CPU ms")
    order = ["create", "register", "start", "field", "may_deal", "hand_started",
             "hand_finished", "  other", "  new level", "  with moves", "  with a break",
             "  the end"]  # fmt: skip
    for name, values in sorted(timings.calls.items(), key=lambda kv: order.index(kv[0])):
        values = sorted(values)
        p99 = values[min(len(values) - 1, int(len(values) * 0.99))]
        cpu = max(timings.cpu[name])
        print(f"  {name:<15} {len(values):>7} {statistics.median(values) * 1000:>9.3f} "
              f"{p99 * 1000:>9.3f} {values[-1] * 1000:>9.3f} {cpu * 1000:>11.3f}")  # fmt: skip
    per_hand = writes.transactions.get("record_mtt_hand", 0)
    total = sum(writes.transactions.values())
    print(f"  write transactions: {total} ({dict(writes.transactions)}), "
          f"{total / r['hands']:.2f} per hand")  # fmt: skip
    print(f"  row-changing statements: {writes.statements}, "
          f"{writes.statements / max(1, per_hand):.1f} per hand")  # fmt: skip
    print(f"  peak memory (max RSS): {r['max_rss_mb']:.0f} MB")
    print("  chips conserved after every hand (read back from the database): yes")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entrants", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--seconds-per-hand", type=float, default=1.0,
                        help="the bot's clock moves this much per finished hand")  # fmt: skip
    parser.add_argument("--db", type=Path, help="the SQLite file (default: a new temporary one)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = args.db or Path(tmp) / "mtt.db"
        report(asyncio.run(run(args.entrants, args.seed, path, args.seconds_per_hand)))


if __name__ == "__main__":
    main()
