"""Per-player work against the length of a player's history, and what it costs other tables.

For each size (default 50, 2,000 and 20,000 hands) one player is given that many
finished hands (played through the Store's own API, at many tables at once), then:

* ``balance``: the median of ``store.ledger.balance`` (behind every join and deal), alone;
* ``history``: the median of ``store.history.recent_hands(limit=10)`` (``/history``), alone;
* then an unrelated table starts playing without pause (``other step``: the median of
  its durable steps: deal, six actions, cancel), the balance and history calls run again and
  the player is erased (``erase``: one ``store.server.erase_player``, ``/privacy delete``);
  ``other wait``: that table's longest single step meanwhile; ``behind erase``: the
  longest of its steps that overlapped the erase (what the erase itself made it wait).

On SQLite (a file in ``--dir`` or a temporary directory) and, when TEST_DATABASE_URL
is set, on PostgreSQL (a fresh schema, dropped afterwards). The history is written
with SQLite's ``synchronous=OFF`` to save time and measured with the bot's own
``synchronous=FULL``.

    python bench/player_history.py [--sizes 50,2000,20000] [--dir DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

if not __package__:  # run as `python bench/player_history.py`: make the repo importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import asyncpg  # noqa: E402

from bot.storage.rows import TableRow  # noqa: E402
from bot.storage.store import Store

GUILD = 7
GRANT = 10**9
HOLD = 20
DECK = [f"{r}{s}" for s in "cdhs" for r in ("A", "2", "3", "4", "5", "6", "7", "8", "9", "T")]
DECK += [f"{r}{s}" for s in "cdhs" for r in ("J", "Q", "K")]


@dataclass(frozen=True, slots=True)
class Figures:
    backend: str
    hands: int
    balance_ms: float
    history_ms: float
    erase_ms: float
    other_median_ms: float
    other_longest_ms: float
    behind_erase_ms: float = 0.0


def _header(players: list[int]) -> dict[str, Any]:
    return {
        "variant": "a5-draw",
        "seats": [{"player": str(p), "stack": 500} for p in players],
        "dealer": 0,
        "deck": DECK,
    }


def _actions(players: list[int]) -> list[dict[str, Any]]:
    """A whole hand that replays (so settling it adds to /stats, as the bot's hands do)."""
    a, b = (str(p) for p in players)
    return [
        {"player": b, "action": "bet"},
        {"player": a, "action": "call"},
        {"player": b, "action": "discard", "cards": []},
        {"player": a, "action": "discard", "cards": []},
        {"player": b, "action": "check"},
        {"player": a, "action": "check"},
    ]


async def play_hand(store: Store, channel: int, players: list[int], winner: int) -> None:
    hand_id = await store.hands.start_hand(
        GUILD,
        channel,
        "a5-draw",
        _header(players),
        {p: HOLD for p in players},
        players,
        {p: f"player {p}" for p in players},
    )
    for index, action in enumerate(_actions(players)):
        await store.hands.append_action(hand_id, index, action)
    loser = players[1 - players.index(winner)]
    await store.hands.finish_hand(hand_id, {winner: 5, loser: -5})


async def open_table(store: Store, channel: int, players: list[int]) -> None:
    await store.tables.save_table(TableRow(channel_id=channel, guild_id=GUILD, variant="a5-draw"))
    for p in players:
        await store.ledger.ensure_account(GUILD, p, f"player {p}", GRANT)


async def seed(store: Store, user: int, hands: int, tables: int) -> None:
    """``hands`` finished hands of ``user``, at ``tables`` tables at once (one partner each)."""
    channels = [user * 1000 + t for t in range(tables)]
    for channel in channels:
        await open_table(store, channel, [user, channel])
    share = [hands // tables + (1 if t < hands % tables else 0) for t in range(tables)]

    async def table(channel: int, count: int) -> None:
        for n in range(count):
            await play_hand(store, channel, [user, channel], user if n % 2 else channel)

    await asyncio.gather(*(table(c, n) for c, n in zip(channels, share, strict=True)))


class OtherTable:
    """An unrelated table that steps without pause; records each step's latency."""

    def __init__(self, store: Store, channel: int) -> None:
        self.store, self.channel = store, channel
        self.players = [channel + 1, channel + 2]
        self.steps: list[float] = []
        self.spans: list[tuple[float, float]] = []  # (began, ended) of each step
        self._stop = asyncio.Event()

    async def run(self) -> None:
        await open_table(self.store, self.channel, self.players)
        while not self._stop.is_set():
            began = time.perf_counter()
            hand_id = await self.store.hands.start_hand(
                GUILD,
                self.channel,
                "a5-draw",
                _header(self.players),
                {p: HOLD for p in self.players},
                self.players,
            )
            self._took(began)
            for index, action in enumerate(_actions(self.players)):
                began = time.perf_counter()
                await self.store.hands.append_action(hand_id, index, action)
                self._took(began)
            began = time.perf_counter()
            await self.store.hands.cancel_hand(hand_id)
            self._took(began)

    def _took(self, began: float) -> None:
        ended = time.perf_counter()
        self.steps.append(ended - began)
        self.spans.append((began, ended))

    def longest_during(self, began: float, ended: float) -> float:
        """The longest step that overlapped [began, ended], in seconds."""
        return max((e - b for b, e in self.spans if b < ended and e > began), default=0.0)

    def stop(self) -> None:
        self._stop.set()


async def timed(call: Callable[[], Awaitable[Any]], times: int) -> float:
    """The median wall time of ``call`` in ms."""
    spent = []
    for _ in range(times):
        began = time.perf_counter()
        await call()
        spent.append(time.perf_counter() - began)
    return statistics.median(spent) * 1000


async def measure(target: str | Path, backend: str, sizes: list[int], tables: int) -> list[Figures]:
    store = await Store.open(target)
    figures: list[Figures] = []
    try:
        lite = backend == "sqlite"
        users = {size: 10_000 + i for i, size in enumerate(sizes)}
        if lite:
            await store.db.conn.execute("PRAGMA synchronous = OFF")  # seeding only
        for size in sizes:
            await seed(store, users[size], size, min(tables, size))
        if lite:
            await store.db.conn.execute("PRAGMA synchronous = FULL")  # as the bot runs
        for n, size in enumerate(sizes):
            user = users[size]
            balance = await timed(lambda u=user: store.ledger.balance(GUILD, u), 200)  # type: ignore[misc]
            history = await timed(lambda u=user: store.history.recent_hands(GUILD, u, 10), 20)  # type: ignore[misc]
            other = OtherTable(store, 900_000_000 + 10 * n)
            task = asyncio.create_task(other.run())
            while len(other.steps) < 40:
                await asyncio.sleep(0.01)
            baseline = statistics.median(other.steps)
            other.steps.clear()
            await timed(lambda u=user: store.ledger.balance(GUILD, u), 200)  # type: ignore[misc]
            await timed(lambda u=user: store.history.recent_hands(GUILD, u, 10), 20)  # type: ignore[misc]
            erase_began = time.perf_counter()
            erase = await timed(lambda u=user: store.server.erase_player(GUILD, u), 1)  # type: ignore[misc]
            erase_ended = time.perf_counter()
            await asyncio.sleep(0.05)  # a step that queued behind the erase ends meanwhile
            other.stop()
            await task
            figures.append(
                Figures(
                    backend,
                    size,
                    balance,
                    history,
                    erase,
                    baseline * 1000,
                    max(other.steps) * 1000,
                    other.longest_during(erase_began, erase_ended) * 1000,
                )
            )
    finally:
        await store.close()
    return figures


def report(figures: list[Figures]) -> str:
    lines = [
        f"{'backend':<9}{'hands':>7}{'balance':>10}{'history':>10}{'erase':>10}"
        f"{'other step':>12}{'other wait':>12}{'behind erase':>14}   (ms; other step: "
        "median alone, other wait: longest during the player's calls, behind erase: "
        "longest overlapping the erase)"
    ]
    for f in figures:
        lines.append(
            f"{f.backend:<9}{f.hands:>7}{f.balance_ms:>10.2f}{f.history_ms:>10.2f}"
            f"{f.erase_ms:>10.1f}{f.other_median_ms:>12.2f}{f.other_longest_ms:>12.1f}"
            f"{f.behind_erase_ms:>14.1f}"
        )
    return "\n".join(lines)


async def run(sizes: list[int], directory: Path, tables: int = 40) -> list[Figures]:
    figures = await measure(directory / "player_history.db", "sqlite", sizes, tables)
    url = os.environ.get("TEST_DATABASE_URL", "")
    if url:
        schema = f"bench_{uuid.uuid4().hex[:12]}"
        admin = await asyncpg.connect(url)
        try:
            await admin.execute(f"CREATE SCHEMA {schema}")
            sep = "&" if "?" in url else "?"
            figures += await measure(f"{url}{sep}search_path={schema}", "postgres", sizes, tables)
        finally:
            await admin.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
            await admin.close()
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="50,2000,20000", help="hands per player, by commas")
    parser.add_argument("--tables", type=int, default=40, help="tables the history is played at")
    parser.add_argument("--dir", type=Path, help="where the SQLite file goes (default: a temp dir)")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    with tempfile.TemporaryDirectory() as tmp:
        directory = args.dir or Path(tmp)
        directory.mkdir(parents=True, exist_ok=True)
        print(report(asyncio.run(run(sizes, directory, args.tables))))


if __name__ == "__main__":
    main()
