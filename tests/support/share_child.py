"""One bot process of several on one token, for tests/discord/test_dms_and_budget.py: it
runs four tables through the harness with REST_SHARE set and SHARD_IDS of SHARD_COUNT,
deals at all of them at once, and prints the times (CLOCK_MONOTONIC, shared by every
process of the machine) of its requests under Discord's global limit, as JSON.

    python -m tests.support.share_child DB SHARE SHARD_ID SHARD_COUNT
"""

from __future__ import annotations

import asyncio
import json
import random
import sys
from pathlib import Path

from bot.client import PokerBot
from bot.settings import Settings
from bot.ui.budget import exempt
from fakediscord.harness import DiscordHarness, users
from fakediscord.poker import GUILD, TABLE, open_table


async def main(db: Path, share: float, shard: int, count: int) -> None:
    settings = Settings(  # type: ignore[call-arg]
        _env_file=None, database_path=db, turn_timeout=3600, next_hand_delay=0, rest_share=share
    )
    channels = {TABLE + i: f"t{i}" for i in range(4)}
    people = users(8)
    async with DiscordHarness(PokerBot(settings, rng=random.Random(shard)), latency=0.01) as h:
        await h.connect(GUILD, channels, people)
        for i, channel in enumerate(channels):
            await open_table(h, "a6-draw", people[2 * i : 2 * i + 2], channel)
        for i, channel in enumerate(channels):
            h.send_slash(people[2 * i], channel, "a6-draw deal")
        await h.settle()
        limited = [s.at for s in h.sent if not exempt(s.path)]
    print(json.dumps(limited))


if __name__ == "__main__":
    db, share, shard, count = sys.argv[1:5]
    asyncio.run(main(Path(db), float(share), int(shard), int(count)))
