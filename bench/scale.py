"""The bench/tables.py workload on PostgreSQL with 1, 2 and 4 bot processes, and on SQLite.

Each process is a real OS process (multiprocessing, spawn) with its own Store and
TableManager, running the shards ``{i}`` of ``N``: the tables are spread over guilds
whose shard belongs to it, as Discord would route them. All processes set up their
tables, then start together; every table plays one hand to the end with random
agents (``bench.tables.play_table``). Printed, per configuration:

* persisted actions per second, all processes together (each ``act`` returns only
  after its COMMIT);
* p50 / p99 of one ``act()``: *saturated* (every agent acts at once: a closed loop)
  and *paced* (each agent thinks first, mean ``--think`` s, as people do);
* recovery: one process holds ``--recovery`` live hands (4 actions in each) and is
  killed with SIGKILL; a standby process with the same shards, already running and
  retrying every 0.05 s, takes every hand over: the time from the kill until all are
  restored. Also a cold start (``Store.open`` + ``TableManager.start``) of them all.

``--connections 1,2,4`` instead compares, in one process, one PostgreSQL session with
several: the guilds split over K sessions (each its own Store, lock, group commit and
manager), which is the only pool the guild fence allows (a guild's advisory lock lives
on one session, so a guild must stay on the session that claimed it). Same tables,
same agents, same process; saturated and paced, and paced with one slow transaction
(``--slow`` s of ``pg_sleep`` on the first session, one second into play): how many
acts of the whole bot it held up.

PostgreSQL must be durable (fsync and synchronous_commit on, as in production):

    scripts/with-postgres.sh --durable .venv/bin/python bench/scale.py [--tables 1000]

(``--url`` or ``TEST_DATABASE_URL`` names the server; each run uses a fresh schema.)
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing as mp
import os
import random
import signal
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

if not __package__:  # run as `python bench/scale.py`: make the repo importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import asyncpg  # type: ignore[import-untyped]  # noqa: E402

from bench.tables import GAMES, PLAYERS, play_all, play_table  # noqa: E402
from bot.storage import Store  # noqa: E402
from bot.storage.shards import Shards  # noqa: E402
from bot.tables.manager import TableManager  # noqa: E402

GUILDS_PER_PROCESS = 25


def guild_ids(index: int, count: int) -> list[int]:
    """Guild ids on shard ``index`` of ``count`` ((id >> 22) % count == index)."""
    return [((k * count + index) << 22) + 12345 for k in range(1, GUILDS_PER_PROCESS + 1)]


def channels_of(index: int, tables: int) -> list[int]:
    return [100_000 * (index + 1) + i for i in range(tables)]


async def open_tables(m: TableManager, channels: list[int], guilds: list[int]) -> None:
    async def one(i: int, channel: int) -> None:
        await m.open_table(guilds[i % len(guilds)], channel, GAMES[i % len(GAMES)])
        for p in range(PLAYERS):
            await m.join(channel, 1_000_000 + channel * 10 + p, f"p{p}@{channel}")
        await m.deal(channel)

    await asyncio.gather(*(one(i, ch) for i, ch in enumerate(channels)))


def manager(
    store: Store, seed: int, shards: Shards | None, claim_retry: float = 2.0
) -> TableManager:
    return TableManager(
        store, turn_timeout=3600, rng=random.Random(seed), shards=shards, claim_retry=claim_retry
    )


# ---------------------------------------------------------------- one worker process


async def _play(
    target: str, index: int, count: int, tables: int, think: float, seed: int, ready: Any, go: Any
) -> dict[str, Any]:
    store = await Store.open(target)
    m = manager(store, seed + index, Shards(count, frozenset({index})))
    await m.start()
    channels = channels_of(index, tables)
    await open_tables(m, channels, guild_ids(index, count))
    ready.put(index)
    await asyncio.get_running_loop().run_in_executor(None, go.wait)
    actions, elapsed, latencies = await play_all(m, store, channels, seed, think)
    return {"actions": actions, "seconds": elapsed, "latencies": latencies}


def play_worker(*args: Any) -> None:
    results = args[-1]
    results.put(asyncio.run(_play(*args[:-1])))


def run_processes(
    target: str, count: int, tables: int, think: float, seed: int
) -> dict[str, float]:
    ctx = mp.get_context("spawn")
    ready, go, results = ctx.Queue(), ctx.Event(), ctx.Queue()
    per = tables // count
    procs = [
        ctx.Process(
            target=play_worker, args=(target, i, count, per, think, seed, ready, go, results)
        )
        for i in range(count)
    ]
    for p in procs:
        p.start()
    for _ in procs:
        ready.get(timeout=600)
    start = time.perf_counter()
    go.set()
    outs = [results.get(timeout=1800) for _ in procs]
    wall = time.perf_counter() - start
    for p in procs:
        p.join()
    latencies = sorted(x for o in outs for x in o["latencies"])
    actions = sum(o["actions"] for o in outs)
    return {
        "actions": actions,
        "seconds": wall,
        "rate": actions / wall,
        "p50": statistics.median(latencies) * 1000,
        "p99": latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))] * 1000,
    }


# ---------------------------------------------------------------- sessions in one process


async def _slow_transaction(store: Store, seconds: float) -> None:
    """One transaction that takes ``seconds`` on the store's session (a slow query)."""
    await asyncio.sleep(1.0)
    async with store.db.write("bench_slow") as conn:
        await conn.execute(f"SELECT pg_sleep({seconds})")


async def _pinned(
    target: str, sessions: int, tables: int, think: float, seed: int, slow: float
) -> dict[str, Any]:
    stores = [await Store.open(target) for _ in range(sessions)]
    managers = [
        manager(st, seed + i, Shards(sessions, frozenset({i}))) for i, st in enumerate(stores)
    ]
    shares = []
    for i, m in enumerate(managers):
        await m.start()
        channels = channels_of(i, tables // sessions)
        await open_tables(m, channels, guild_ids(i, sessions))
        shares.append(channels)
    side = [asyncio.create_task(_slow_transaction(stores[0], slow))] if slow else []
    start = time.perf_counter()
    outs = await asyncio.gather(
        *(
            play_all(m, st, ch, seed, think)
            for m, st, ch in zip(managers, stores, shares, strict=True)
        )
    )
    wall = time.perf_counter() - start
    await asyncio.gather(*side)
    latencies = sorted(x for o in outs for x in o[2])
    actions = sum(o[0] for o in outs)
    return {
        "actions": actions,
        "rate": actions / wall,
        "p50": statistics.median(latencies) * 1000,
        "p99": latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))] * 1000,
        "held": sum(x > slow / 2 for x in latencies) if slow else 0,
    }


def compare_sessions(
    url: str, counts: list[int], tables: int, think: float, seed: int, slow: float
) -> None:
    """One process, K sessions (guilds pinned): the table printed for docs/benchmarks.md."""
    print(f"{tables:,} tables x {PLAYERS} players, one hand each, one process\n")
    print("| sessions | play | actions/s | p50 ms | p99 ms | acts held > slow/2 |")
    print("|---|---|---|---|---|---|")
    for k in counts:
        for label, t, s in (
            ("saturated", 0.0, 0.0),
            (f"paced (think {think:g} s)", think, 0.0),
            (f"paced, one {slow:g} s transaction", think, slow),
        ):
            target = asyncio.run(fresh_schema(url))
            r = asyncio.run(_pinned(target, k, tables, t, seed, s))
            held = f"{r['held']:,} of {r['actions']:,}" if s else ""
            print(
                f"| {k} | {label} | {r['rate']:,.0f} | {r['p50']:.1f} | {r['p99']:.1f} | {held} |",
                flush=True,
            )


# ---------------------------------------------------------------- recovery


async def _hold_hands(target: str, hands: int, seed: int, ready: Any) -> None:
    store = await Store.open(target)
    m = manager(store, seed, Shards(1, frozenset({0})))
    await m.start()
    channels = channels_of(0, hands)
    await open_tables(m, channels, guild_ids(0, 1))
    await asyncio.gather(*(play_table(m, ch, random.Random(ch), [], 4) for ch in channels))
    ready.put(live_hands(m))  # a few hands end within 4 actions (folds)
    await asyncio.sleep(3600)  # until killed


def live_hands(m: TableManager) -> int:
    return sum(
        t.hand is not None and not t.hand.complete for t in (m.table(c) for c in m.channels())
    )


def hold_worker(target: str, hands: int, seed: int, ready: Any) -> None:
    asyncio.run(_hold_hands(target, hands, seed, ready))


async def takeover(target: str, hands: int, seed: int) -> dict[str, float]:
    """Seconds from SIGKILL of the owner to every live hand restored by a standby."""
    ctx = mp.get_context("spawn")
    ready = ctx.Queue()
    owner = ctx.Process(target=hold_worker, args=(target, hands, seed, ready))
    owner.start()
    hands = await asyncio.get_running_loop().run_in_executor(None, ready.get, True, 600)
    store = await Store.open(target)
    m = manager(store, seed, Shards(1, frozenset({0})), claim_retry=0.05)
    assert await m.start() == 0  # everything is held by the owner
    assert owner.pid is not None
    os.kill(owner.pid, signal.SIGKILL)
    killed = time.perf_counter()
    while live_hands(m) < hands:
        await asyncio.sleep(0.005)
    taken = time.perf_counter() - killed
    owner.join()
    await m.close()
    await store.close()
    start = time.perf_counter()  # a cold start of the same hands
    store = await Store.open(target)
    m = manager(store, seed, Shards(1, frozenset({0})))
    restored = await m.start()
    cold = time.perf_counter() - start
    assert restored == hands, restored
    await m.close()
    await store.close()
    return {"hands": hands, "takeover": taken, "cold": cold}  # hands: live ones


async def sqlite_recovery(path: Path, hands: int, seed: int) -> tuple[int, float]:
    store = await Store.open(path)
    m = manager(store, seed, None)
    channels = channels_of(0, hands)
    await open_tables(m, channels, guild_ids(0, 1))
    await asyncio.gather(*(play_table(m, ch, random.Random(ch), [], 4) for ch in channels))
    live = live_hands(m)
    await m.close()
    await store.close()
    start = time.perf_counter()
    store = await Store.open(path)
    m = manager(store, seed, None)
    assert await m.start() == live
    elapsed = time.perf_counter() - start
    await m.close()
    await store.close()
    return live, elapsed


# ---------------------------------------------------------------- the report


async def fresh_schema(url: str) -> str:
    schema = f"bench_{uuid.uuid4().hex[:8]}"
    conn = await asyncpg.connect(url)
    try:
        await conn.execute(f"CREATE SCHEMA {schema}")
        fsync = await conn.fetchval("SHOW fsync")
        commit = await conn.fetchval("SHOW synchronous_commit")
    finally:
        await conn.close()
    if (fsync, commit) != ("on", "on"):
        print(f"warning: the server is not durable (fsync={fsync}, synchronous_commit={commit})")
    return url + ("&" if "?" in url else "?") + f"search_path={schema}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default=os.environ.get("TEST_DATABASE_URL"))
    parser.add_argument("--tables", type=int, default=1000, help="tables in all")
    parser.add_argument("--recovery", type=int, default=1000, help="live hands to take over")
    parser.add_argument("--think", type=float, default=1.0, help="mean think time, paced (s)")
    parser.add_argument(
        "--paced-tables", type=int, help="tables in the paced runs (default: --tables)"
    )
    parser.add_argument("--processes", default="1,2,4")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--recovery-only", action="store_true")
    parser.add_argument("--connections", help="compare K sessions in one process, e.g. 1,2,4")
    parser.add_argument("--slow", type=float, default=2.0, help="the slow transaction (s)")
    args = parser.parse_args()
    if not args.url:
        parser.error("no PostgreSQL: give --url or run under scripts/with-postgres.sh --durable")
    if args.connections:
        counts = [int(k) for k in args.connections.split(",")]
        compare_sessions(args.url, counts, args.tables, args.think, args.seed, args.slow)
        return
    with tempfile.TemporaryDirectory() as directory:
        lite = asyncio.run(sqlite_recovery(Path(directory) / "rec.db", args.recovery, args.seed))
    rec = asyncio.run(takeover(asyncio.run(fresh_schema(args.url)), args.recovery, args.seed))
    recovered = (
        f"recovery of live hands: PostgreSQL take-over of {rec['hands']:,} after SIGKILL "
        f"{rec['takeover']:.2f} s (target < 5 s), cold start {rec['cold']:.2f} s; "
        f"SQLite cold start of {lite[0]:,} {lite[1]:.2f} s"
    )
    if args.recovery_only:
        print(recovered)
        return
    rows: list[tuple[str, ...]] = []
    results: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as directory:
        for name, count in [("SQLite", 1)] + [
            (f"PostgreSQL x{n}", int(n)) for n in args.processes.split(",")
        ]:
            for think in (0.0, args.think):
                if name == "SQLite":
                    target = str(Path(directory) / f"sqlite{think}.db")
                else:
                    target = asyncio.run(fresh_schema(args.url))
                tables = args.paced_tables or args.tables if think else args.tables
                r = run_processes(target, count, tables, think, args.seed)
                results[f"{name}/{think}"] = r
                print(f"{name} think={think:g}: {r}", flush=True)
        base = results["PostgreSQL x1/0.0"]["rate"]
        for key, r in results.items():
            name, think = key.split("/")
            rows.append(
                (
                    name,
                    "saturated"
                    if float(think) == 0
                    else f"paced, {args.paced_tables or args.tables:,} tables (think {think} s)",
                    f"{r['rate']:,.0f}",
                    f"{r['rate'] / base:.2f}x" if name.startswith("PostgreSQL") else "",
                    f"{r['p50']:.1f}",
                    f"{r['p99']:.1f}",
                )
            )
    header = ("backend", "play", "actions/s", "vs PG x1", "p50 ms", "p99 ms")
    widths = [max(len(r[i]) for r in [*rows, header]) for i in range(len(header))]
    line = "| " + " | ".join(f"{{:<{w}}}" for w in widths) + " |"
    print(f"\n{args.tables:,} tables x {PLAYERS} players, one hand each (saturated)\n")
    print(line.format(*header))
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for row in rows:
        print(line.format(*row))
    four = results.get("PostgreSQL x4/0.0", {}).get("rate", 0)
    print(f"\nPG x4 / PG x1 throughput: {four / base:.2f} (target >= 2)")
    paced = [r["p99"] for k, r in results.items() if k.startswith("PostgreSQL") and k[-3:] != "0.0"]
    print(f"worst paced p99 on PostgreSQL: {max(paced):.1f} ms (target < 50 ms)")
    print(recovered)


if __name__ == "__main__":
    main()
