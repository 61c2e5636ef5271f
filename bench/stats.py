"""/stats benchmark: answering for a player with 20 hands and one with 20,000.

Statistics are kept at settlement (``bot.storage.player_stats.add_hand``, given what the table
service computed from the hand with ``hand_stats``), so answering /stats reads one row
and draws a chart of at most 120 points, whatever the player's history. This bench
stores random hands of every game for two players of one server through that same
``add_hand`` (in transactions of 500 hands, to build the history quickly), then
times what /stats does: the read (``Stats.totals``), the embed's words and the chart
drawn uncached. Each figure is the median over ``--reads`` answers, in milliseconds.

Run ``.venv/bin/python bench/stats.py`` (``--hands 2000`` for a short run).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

if __package__ in (None, ""):  # run as a script: ``bot`` importable, bench/discord.py not
    sys.path[0] = str(Path(__file__).resolve().parent.parent)

from bot.engine.simulate import new_random_hand, random_action
from bot.history.hand_stats import hand_stats
from bot.render import replay_images
from bot.storage import people, player_stats
from bot.storage.store import Store
from bot.storage.totals import StatsKind
from bot.ui.stats_view import stats_chart, stats_embed

GUILD = 1
GAMES = ("a6-draw", "a5-draw", "a5-triple", "abyssinia")


async def store_hands(
    store: Store, players: tuple[int, int], count: int, rng: random.Random
) -> None:
    """``count`` random hands between ``players``, each added to /stats as at settlement."""
    done = 0
    while done < count:
        async with store.db.write("bench") as conn:
            for _ in range(min(500, count - done)):
                hand = new_random_hand(GAMES[done % 4], 2, rng)
                while not hand.complete:
                    hand.apply(random_action(hand, rng))
                record = hand.record().to_json()
                header = {k: record[k] for k in ("variant", "seats", "dealer", "deck")}
                header["seats"] = [
                    {"player": str(players[i]), "stack": s["stack"]}
                    for i, s in enumerate(header["seats"])
                ]
                async with conn.execute(
                    "INSERT INTO hands (guild_id, channel_id, variant, header_json, status, "
                    "started_at, completed_at) VALUES (?, 1, ?, ?, 'live', 0, 0) RETURNING *",
                    (GUILD, header["variant"], json.dumps(header)),
                ) as cursor:
                    row = await cursor.fetchone()
                persons = await people.ensure(conn, GUILD, list(players))
                await conn.executemany(
                    "INSERT INTO hand_players (hand_id, seat, guild_id, person_id, hold) "
                    "VALUES (?, ?, ?, ?, 0)",
                    [(row["hand_id"], i, GUILD, persons[u]) for i, u in enumerate(players)],
                )
                names = {p: str(players[i]) for i, p in enumerate(hand.players)}
                await conn.executemany(
                    "INSERT INTO hand_actions (hand_id, idx, action_json, created_at) "
                    "VALUES (?, ?, ?, 0)",
                    [
                        (row["hand_id"], i, json.dumps({**a, "player": names[a["player"]]}))
                        for i, a in enumerate(record["actions"])
                    ],
                )
                await conn.execute(  # the actions went to a live hand, as at a table
                    "UPDATE hands SET status = 'complete' WHERE hand_id = ?", (row["hand_id"],)
                )
                added = {int(names[p]): figures for p, figures in hand_stats(hand).items()}
                await player_stats.add_hand(conn, row, added, float(done))
                done += 1


async def answer(store: Store, user: int) -> None:
    """What /stats does for ``user``: read, word, draw (the chart's cache emptied first)."""
    totals = await store.stats.totals(GUILD, user, None, StatsKind.CASH)
    stats_embed("Player", None, totals, own=True, kind=StatsKind.CASH)
    replay_images._CHARTS.items.clear()
    await stats_chart("Player", totals)


async def main(hands: int, reads: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        store = await Store.open(Path(folder) / "bench.db")
        few, many, rival = 101, 102, 103
        for user in (few, many, rival):
            await store.ledger.ensure_account(GUILD, user, f"user {user}", 1000)
        rng = random.Random(21)
        built = time.perf_counter()
        await store_hands(store, (few, rival), 20, rng)
        await store_hands(store, (many, rival), hands, rng)
        built = time.perf_counter() - built
        print(f"stored {hands + 20} hands with their statistics in {built:.1f} s")
        for user, label in ((few, "20 hands"), (many, f"{hands:,} hands")):
            totals = await store.stats.totals(GUILD, user, None, StatsKind.CASH)
            times, read = [], []
            for _ in range(reads):
                start = time.perf_counter()
                await store.stats.totals(GUILD, user, None, StatsKind.CASH)
                read.append((time.perf_counter() - start) * 1000)
                start = time.perf_counter()
                await answer(store, user)
                times.append((time.perf_counter() - start) * 1000)
            print(
                f"/stats for a player with {label:>13}: median {statistics.median(times):6.2f} ms, "
                f"p90 {statistics.quantiles(times, n=10)[-1]:6.2f} ms; the read alone "
                f"{statistics.median(read):5.2f} ms (counted {totals.hands:,} hands, "
                f"chart of {len(totals.chart_points())} points)"
            )
        await store.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=20_000)
    parser.add_argument("--reads", type=int, default=200)
    args = parser.parse_args()
    asyncio.run(main(args.hands, args.reads))
