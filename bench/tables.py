"""Many concurrent tables through the TableManager, with the database on disk.

N tables (default 1,000, all four games in turn, 3 players each) are dealt and
played to the end at the same time by random agents (``asyncio.gather``), in
one process with one Store, exactly as the bot runs them. Printed:

* persisted actions per second (every ``m.act`` returns only after its COMMIT);
* p50 / p99 latency of one action, measured around ``m.act(...)``: the table
  lock, the engine and the durable commit (including waiting for other tables),
  twice: *saturated* (every agent acts the moment its turn comes, so all N
  tables queue at once: a closed loop whose latency is N / throughput) and
  *paced* (each agent first thinks for a random time, mean ``--think`` s, as
  people do). This is the manager's share of an action at that load, NOT the
  latency a player feels: the Discord round trips, the fan-out to the table's
  listeners (message edits, private hands) and card rendering are not included
  (no listener is subscribed here);
* the raw rate of single-row durable commits with the same SQLite settings in
  the same directory (``bench/commit_rate.py``), the ceiling to compare with;
* start-up recovery: deal 1,000 hands, play a few actions in each, close, then
  time ``Store.open`` + ``TableManager.start()``.

    python bench/tables.py [--tables 1000] [--recovery 1000] [--dir DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

if not __package__:  # run as `python bench/tables.py`: make the repo importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.commit_rate import raw_commit_rate  # noqa: E402
from bot.engine.simulate import weighted_move  # noqa: E402
from bot.storage.store import Store  # noqa: E402
from bot.tables.manager import TableManager  # noqa: E402

GAMES = ("a6-draw", "a5-draw", "a5-triple", "abyssinia")
GUILD = 1
PLAYERS = 3


# A random legal move; folds are rare so most hands reach the showdown.
choose = functools.partial(weighted_move, fold=0.3, max_discard=3)


async def setup(m: TableManager, tables: int) -> list[int]:
    channels = list(range(10_000, 10_000 + tables))

    async def one(i: int, channel: int) -> None:
        await m.open_table(GUILD, channel, GAMES[i % len(GAMES)])
        for p in range(PLAYERS):
            await m.join(channel, 1_000_000 + channel * 10 + p, f"p{p}@{channel}")
        await m.deal(channel)

    await asyncio.gather(*(one(i, ch) for i, ch in enumerate(channels)))
    return channels


async def play_table(
    m: TableManager,
    channel: int,
    rng: random.Random,
    latencies: list[float],
    limit: int | None,
    think: float = 0.0,
) -> int:
    played = 0
    while limit is None or played < limit:
        if think:
            await asyncio.sleep(rng.expovariate(1 / think))  # the player thinks
        view = m.view(channel)
        if view.hand is None or view.to_act_user is None:
            break
        mine = m.my_hand(channel, view.to_act_user)
        assert mine is not None and mine.decision is not None
        move = choose(mine.decision, rng)
        start = time.perf_counter()
        await m.act(channel, view.to_act_user, turn=view.turn, hand_id=view.hand_id, **move)
        latencies.append(time.perf_counter() - start)
        played += 1
    return played


async def play_all(
    m: TableManager, store: Store, channels: list[int], seed: int, think: float
) -> tuple[int, float, list[float]]:
    """Play every table to its end at once, then close; (actions, seconds, act() latencies)."""
    latencies: list[float] = []
    start = time.perf_counter()
    counts = await asyncio.gather(
        *(
            play_table(m, ch, random.Random(seed * 7919 + ch), latencies, None, think)
            for ch in channels
        )
    )
    elapsed = time.perf_counter() - start
    assert all(m.view(ch).hand is None for ch in channels), "a hand did not finish"
    await m.close()
    await store.close()
    return sum(counts), elapsed, latencies


def manager(store: Store, seed: int) -> TableManager:
    return TableManager(store, turn_timeout=3600, rng=random.Random(seed))


async def throughput(path: Path, tables: int, seed: int, think: float = 0.0) -> dict[str, float]:
    store = await Store.open(path)
    m = manager(store, seed)
    await m.start()
    channels = await setup(m, tables)
    actions, elapsed, latencies = await play_all(m, store, channels, seed, think)
    latencies.sort()
    return {
        "actions": actions,
        "seconds": elapsed,
        "rate": actions / elapsed,
        "p50": statistics.median(latencies) * 1000,
        "p99": latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))] * 1000,
    }


async def recovery(path: Path, hands: int, seed: int) -> dict[str, float]:
    store = await Store.open(path)
    m = manager(store, seed)
    await m.start()
    channels = await setup(m, hands)
    await asyncio.gather(
        *(play_table(m, ch, random.Random(ch), [], 4) for ch in channels),
    )
    await m.close()
    await store.close()
    start = time.perf_counter()
    store = await Store.open(path)
    m = manager(store, seed)
    restored = await m.start()
    elapsed = time.perf_counter() - start
    assert restored == hands, f"restored {restored} of {hands} hands"
    await m.close()
    await store.close()
    return {"hands": restored, "seconds": elapsed}


async def run(args: argparse.Namespace, directory: Path) -> None:
    raw = await raw_commit_rate(directory / "raw.db", args.commits)
    tp = await throughput(directory / "tables.db", args.tables, args.seed)
    paced = await throughput(directory / "paced.db", args.tables, args.seed, args.think)
    rec = await recovery(directory / "recovery.db", args.recovery, args.seed)
    share = tp["rate"] / raw
    rows = [
        ("raw durable commits/s (1 row each)", f"{raw:,.0f}", "", ""),
        (
            f"persisted actions/s ({args.tables:,} tables)",
            f"{tp['rate']:,.0f} ({share:.0%} of raw)",
            ">= 50% of raw",
            "yes" if share >= 0.5 else "NO",
        ),
        ("m.act() time p50, saturated", f"{tp['p50']:.2f} ms", "", ""),
        (
            "m.act() time p99, saturated",
            f"{tp['p99']:.2f} ms",
            "< 20 ms",
            "yes" if tp["p99"] < 20 else "NO",
        ),
        (
            f"m.act() time p50, paced (think {args.think:g} s)",
            f"{paced['p50']:.2f} ms",
            "",
            "",
        ),
        (
            f"m.act() time p99, paced (think {args.think:g} s)",
            f"{paced['p99']:.2f} ms",
            "< 20 ms",
            "yes" if paced["p99"] < 20 else "NO",
        ),
        (
            f"recovery of {rec['hands']:,} live hands",
            f"{rec['seconds'] * 1000:,.0f} ms",
            "< 2 s",
            "yes" if rec["seconds"] < 2 else "NO",
        ),
    ]
    print(
        f"{args.tables:,} tables x {PLAYERS} players, {tp['actions']:,} actions in "
        f"{tp['seconds']:.1f} s; database on disk in {directory}"
    )
    widths = [
        max(len(r[i]) for r in [*rows, ("metric", "value", "target", "met?")]) for i in range(4)
    ]
    line = "| " + " | ".join(f"{{:<{w}}}" for w in widths) + " |"
    print(line.format("metric", "value", "target", "met?"))
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for row in rows:
        print(line.format(*row))
    print(
        "m.act() time: table lock, engine and durable commit only; a player also waits for "
        "Discord, the fan-out to the table's listeners and card rendering (not run here)."
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=1000, help="concurrent tables")
    parser.add_argument("--recovery", type=int, default=1000, help="live hands to recover")
    parser.add_argument("--commits", type=int, default=2000, help="raw commits to time")
    parser.add_argument(
        "--think", type=float, default=1.0, help="mean think time per action, paced run (s)"
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--dir", type=Path, help="directory on disk (default: a temp dir)")
    args = parser.parse_args()
    if args.dir:
        args.dir.mkdir(parents=True, exist_ok=True)
        asyncio.run(run(args, args.dir))
        return
    with tempfile.TemporaryDirectory(dir=None) as directory:
        asyncio.run(run(args, Path(directory)))


if __name__ == "__main__":
    main()
