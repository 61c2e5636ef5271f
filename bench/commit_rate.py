"""Raw durable-commit throughput of the storage setup (WAL, synchronous=FULL).

Each commit is what a Store write costs at minimum: BEGIN IMMEDIATE, one
single-row INSERT, COMMIT (which fsyncs the WAL), each a round trip through
aiosqlite's worker thread. Other benchmarks compare against this ceiling.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

if not __package__:  # run as `python bench/commit_rate.py`: make the repo importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.storage.sqlite import connect  # noqa: E402


async def raw_commit_rate(path: str | Path, n: int = 2000) -> float:
    """Durable single-row commits per second on ``path`` (a scratch file: a table is added)."""
    conn = await connect(path)  # same PRAGMAs as open_database, without the bot schema
    try:
        await conn.execute(
            "CREATE TABLE IF NOT EXISTS bench_commit (id INTEGER PRIMARY KEY, payload TEXT)"
        )
        start = time.perf_counter()
        for i in range(n):
            await conn.execute("BEGIN IMMEDIATE")
            await conn.execute("INSERT INTO bench_commit (payload) VALUES (?)", (f"row {i}",))
            await conn.execute("COMMIT")
        elapsed = time.perf_counter() - start
    finally:
        await conn.close()
    return n / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--path", type=Path, help="scratch database (default: a temp file)")
    parser.add_argument("-n", type=int, default=2000, help="number of commits")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        path = args.path or Path(directory) / "commit_rate.db"
        rate = asyncio.run(raw_commit_rate(path, args.n))
    print(f"{rate:.0f} durable commits/s ({args.n} single-row commits on {path})")


if __name__ == "__main__":
    main()
