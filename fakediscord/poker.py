"""What the end-to-end tests and bench/discord.py share: the bot as built for them, opening
a table through Discord, playing fast, and the check that the table message shows the
stored state."""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path
from typing import Any

from bot.client import PokerBot
from bot.engine.cards import format_card
from bot.settings import Settings
from bot.ui.components import table_components
from bot.ui.render import table_embed
from fakediscord.harness import DiscordHarness, Msg, Reply, users

GUILD = 1300000000000000001
TABLE = 1310000000000000001
PLAYERS = users(4)
ALICE, BOB, CAROL, DAVE = PLAYERS


def make_bot(path: Path | str, seed: int = 7, *, max_tables: int = 25) -> PokerBot:
    """The production bot on a SQLite file; turn timers that never fire in a test, no
    auto-deal (players deal); at most ``max_tables`` open tables in a server (the default's
    25; the benchmark opens 200 in one)."""
    path = Path(path)
    settings = Settings(  # type: ignore[call-arg]
        _env_file=None, database_path=path, turn_timeout=3600, next_hand_delay=0,
        max_tables_per_server=max_tables,
    )  # fmt: skip
    return PokerBot(settings, rng=random.Random(seed))


def uid(user: dict[str, Any]) -> int:
    return int(user["id"])


BY_ID = {uid(p): p for p in PLAYERS}


async def open_table(
    h: DiscordHarness, variant: str, players: list[dict[str, Any]], channel: int = TABLE
) -> Msg:
    """``/<variant> open`` by the first player, then ``/<variant> join`` by each."""
    opened = await h.slash(players[0], channel, f"{variant} open")
    answer = opened.message
    assert opened.deferred and answer is not None and answer.deleted  # the table message is it
    table = h.messages(channel, include_ephemeral=False)[-1]
    assert "Join" in [b["label"] for b in table.buttons()]
    for p in players:
        joined = await h.slash(p, channel, f"{variant} join")
        assert joined.ephemeral and "seat" in joined.content
    return table


def table_message(h: DiscordHarness, channel: int) -> Msg:
    return h.message(h.bot.presenter.message_id(channel))  # type: ignore[attr-defined]


def assert_table_shows_latest(h: DiscordHarness, channel: int) -> None:
    """The table message is exactly the latest public view (and the Recent log)."""
    bot = h.bot
    view = bot.manager.view(channel)  # type: ignore[attr-defined]
    embed = table_embed(view, bot.presenter.recent(channel)).to_dict()  # type: ignore[attr-defined]
    components = table_components(view).to_components()
    shown = table_message(h, channel)
    assert shown.embeds == [json.loads(json.dumps(embed))]
    assert shown.components == json.loads(json.dumps(components))


def next_command(h: DiscordHarness, channel: int, *, draw: int = 0) -> tuple[dict, str, dict]:
    """A legal slash command for whoever is to act: check or call, throw ``draw`` cards,
    buy left."""
    manager = h.bot.manager  # type: ignore[attr-defined]
    view = manager.view(channel)
    hand = view.hand
    user = BY_ID[view.to_act_user]
    if hand.phase == "draw":
        cards = manager.my_hand(channel, uid(user)).cards[:draw]
        text = " ".join(format_card(c) for c in cards)
        return user, f"{view.variant} discard", {"cards": text} if text else {}
    if hand.phase == "buy":
        return user, "abyssinia buy", {"from": "left"}
    action = "check" if "check" in hand.legal else "call"
    return user, f"{view.variant} {action}", {}


async def step(h: DiscordHarness, channel: int, *, draw: int = 0) -> Reply:
    user, command, options = next_command(h, channel, draw=draw)
    reply = await h.slash(user, channel, command, **options)
    assert "✅" in str(reply.embeds), reply.content
    return reply


async def burst(h: DiscordHarness, channel: int, *, draw: int = 1, limit: int = 200) -> int:
    """Play the hand to its end as fast as the table takes actions, without waiting for
    Discord to catch up; return how many actions were played."""
    manager = h.bot.manager  # type: ignore[attr-defined]
    tasks: list[asyncio.Task[Reply]] = []
    loop = asyncio.get_running_loop()
    while manager.view(channel).hand is not None and len(tasks) < limit:
        view = manager.view(channel)
        user, command, options = next_command(h, channel, draw=draw)
        tasks.append(asyncio.create_task(h.slash(user, channel, command, **options)))
        table, deadline = manager.table(channel), loop.time() + 5
        while table.lock.locked() or (table.hand_id, manager.view(channel).turn) == (
            view.hand_id,
            view.turn,
        ):
            if loop.time() > deadline or tasks[-1].done():
                await tasks[-1]  # refused, or failed: show why
                raise AssertionError(f"{command} {options} was not applied")
            await asyncio.sleep(0.002)  # applied and stored: the next player can act at once
    replies = await asyncio.gather(*tasks)
    assert all("✅" in str(r.embeds) for r in replies), [r.content for r in replies]
    await h.settle()
    return len(tasks)
