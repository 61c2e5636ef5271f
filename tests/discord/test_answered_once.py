"""Every interaction is acknowledged exactly once, within Discord's 3 s and before any
followup, whether the table is open, closing or gone (issue 34 item 5)."""

from __future__ import annotations

import asyncio
import contextlib
import random
import threading
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from bot.client import PokerBot
from bot.render import replay_images
from bot.render.images import BOARD_POOL, HAND_POOL
from bot.settings import Settings
from fakediscord.harness import DiscordHarness, Msg, Reply
from tests.support.manager_helpers import Clock
from tests.support.moderated_server import ALICE, BOB, OTHER, TABLE, started, uid

PLAYERS = [ALICE, BOB]


def make_bot(path: Path) -> PokerBot:
    settings = Settings(  # type: ignore[call-arg]
        _env_file=None, database_path=path, turn_timeout=3600, next_hand_delay=0, bot_pause=0
    )
    return PokerBot(settings, rng=random.Random(5), clock=Clock())


def to_act(h: DiscordHarness) -> dict:
    view = h.bot.manager.view(TABLE)  # type: ignore[attr-defined]
    return next(p for p in PLAYERS if uid(p) == view.to_act_user)


def private_texts(reply: Reply) -> str:
    return " ".join(m.text for m in reply.followups if m.ephemeral) + (reply.content or "")


async def test_the_click_that_ends_a_closing_tables_last_hand_is_answered_once(tmp_path):
    """A moderator closes the table "when this hand ends"; the fold that ends it is answered
    (the table is gone after its step), with nothing apologising and no followup first."""
    async with DiscordHarness(make_bot(tmp_path / "a.db")) as h:
        await started(h)
        await h.slash(ALICE, TABLE, "a6-draw open")
        for p in PLAYERS:
            await h.slash(p, TABLE, "a6-draw join")
        table = h.messages(TABLE, include_ephemeral=False)[-1]
        await h.slash(ALICE, TABLE, "a6-draw deal")
        later = await h.slash(ALICE, TABLE, "table-admin close", now=False)
        assert "after" in later.content.lower() or "end" in later.content.lower(), later.content
        await h.click(to_act(h), table, h.message(table.id).custom_id_for("Bet 1"))
        folded = await h.click(to_act(h), table, h.message(table.id).custom_id_for("Fold"))
        assert folded.callback_type in (6, 7)
        callbacks = [s for s in folded.requests if s.path.endswith("/callback")]
        assert len(callbacks) == 1 and callbacks[0].error is None
        first = folded.requests[0]
        assert first.path.endswith("/callback")  # acknowledged before any followup or edit
        assert all(s.error is None for s in folded.requests), [s.error for s in folded.requests]
        assert "could not show you" not in private_texts(folded)
        await h.settle()
        assert not h.bot.manager.has_table(TABLE)  # type: ignore[attr-defined]
        assert h.message(table.id).buttons() == []  # the closed table's last look


STALL = 3.5  # seconds: longer than Discord waits for the first answer (3 s)


@contextlib.asynccontextmanager
async def stalled(h: DiscordHarness) -> AsyncIterator[None]:
    """The database (its transaction lock, held as a slow transaction would), the render
    threads and the worker threads all busy for ``STALL`` seconds from now."""
    loop = asyncio.get_running_loop()
    loop.set_default_executor(ThreadPoolExecutor(max_workers=1))  # hints, exports
    free = threading.Event()
    for pool in (HAND_POOL, BOARD_POOL, replay_images._POOL):
        pool.submit(free.wait, 30)
    blocked = loop.run_in_executor(None, free.wait, 30)
    lock = h.bot.store.db.lock  # type: ignore[attr-defined]
    await lock.acquire()
    loop.call_later(STALL, free.set)
    loop.call_later(STALL, lock.release)
    try:
        yield
    finally:
        await blocked


async def test_every_command_and_button_is_answered_in_time_while_everything_is_slow(tmp_path):
    """With the database and every thread stalled past Discord's deadline, each command and
    each kind of button, on an open table, a practice table and a closing one, is still
    acknowledged within 3 s, exactly once, before any followup or edit."""
    async with DiscordHarness(make_bot(tmp_path / "a.db"), settle_timeout=20) as h:
        await started(h)
        await h.slash(ALICE, TABLE, "a6-draw open")
        for p in PLAYERS:
            await h.slash(p, TABLE, "a6-draw join")
        table = h.messages(TABLE, include_ephemeral=False)[-1]
        await h.slash(ALICE, TABLE, "a6-draw deal")  # one finished hand, for /replay
        await h.click(to_act(h), table, h.message(table.id).custom_id_for("Bet 1"))
        await h.click(to_act(h), table, h.message(table.id).custom_id_for("Fold"))
        await h.slash(ALICE, TABLE, "a6-draw deal")
        replay = (await h.slash(ALICE, TABLE, "replay")).message
        history = (await h.slash(ALICE, TABLE, "history")).answer
        shown = (await h.slash(ALICE, TABLE, "privacy show")).answer
        await h.slash(ALICE, OTHER, "a5-draw open", bots=1)  # a practice table
        await h.slash(ALICE, OTHER, "a5-draw deal")
        await h.bot.practice.settle()  # type: ignore[attr-defined]
        assert replay is not None and history is not None and shown is not None
        actor = to_act(h)
        waiting = BOB if actor is ALICE else ALICE
        closing = await h.slash(ALICE, TABLE, "table-admin close", now=False)
        assert "after" in closing.content.lower() or "end" in closing.content.lower()
        start = len(h.sent)
        async with stalled(h):
            sent = [
                h.send_click(actor, table, h.message(table.id).custom_id_for("Check")),
                h.send_click(waiting, table, h.message(table.id).custom_id_for("Check")),
                h.send_click(waiting, table, h.message(table.id).custom_id_for("My hand")),
                h.send_click(ALICE, replay, button(replay, "next")),
                h.send_click(ALICE, replay, button(replay, "share")),
                h.send_click(ALICE, shown, shown.custom_ids()[0]),
                h.send_slash(ALICE, TABLE, "a6-draw hand"),
                h.send_slash(waiting, TABLE, "a6-draw fold"),
                h.send_slash(BOB, TABLE, "balance"),
                h.send_slash(BOB, TABLE, "leaderboard"),
                h.send_slash(BOB, TABLE, "history"),
                h.send_slash(BOB, TABLE, "replay"),
                h.send_slash(BOB, TABLE, "stats"),
                h.send_slash(BOB, TABLE, "export"),
                h.send_slash(BOB, TABLE, "rules", game="a5-draw"),
                h.send_slash(BOB, TABLE, "privacy show"),
                h.send_slash(ALICE, TABLE, "settings show"),
                h.send_slash(ALICE, OTHER, "a5-draw hint"),
                h.send_slash(ALICE, OTHER, "a5-draw table"),
            ]
            picker = history.custom_ids()[0]
            hand_id = history.component(picker)["options"][0]["value"]
            selected = asyncio.ensure_future(h.select(ALICE, history, picker, [hand_id]))
            await asyncio.sleep(0)  # dispatched while everything is stalled
        sent.append(await selected)
        await h.settle()
        for reply in sent:
            requests = [s for s in h.sent[start:] if s.interaction_token == reply.token]
            callbacks = [s for s in requests if s.path.endswith("/callback")]
            assert len(callbacks) == 1 and callbacks[0].error is None, (reply, requests)
            assert requests[0] is callbacks[0], (reply, requests)  # before anything else
            assert reply.ack_latency is not None and reply.ack_latency < STALL - 0.5, reply
            assert all(s.error is None for s in requests), (reply, requests)
            shown = reply.message
            assert shown is None or not shown.loading, reply  # nothing left "thinking…"


def button(message: Msg, do: str) -> str:
    return next(c["custom_id"] for c in message.buttons() if c["custom_id"].endswith(f":{do}"))
