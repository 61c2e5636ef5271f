"""DMs that cost one request and never the same 403 twice; the failed-request ALERT; this
process's share of Discord's global limit."""

from __future__ import annotations

import asyncio
import json
import logging
import random
import re
import sys

import discord
import pytest

from bot.client import PokerBot
from bot.settings import Settings
from bot.ui.budget import exempt
from fakediscord.harness import DiscordHarness, HarnessError, Sent, users
from fakediscord.poker import GUILD, PLAYERS, TABLE, burst, make_bot, open_table, uid
from tests.support.paths import ROOT

ALICE, BOB, CAROL = PLAYERS[:3]
CREATE_DM = "/users/@me/channels"


def forbidden(h: DiscordHarness) -> list[Sent]:
    return [s for s in h.sent if isinstance(s.error, discord.Forbidden)]


async def test_a_closed_dm_is_tried_once_and_not_again_at_deals_or_after_a_restart(tmp_path):
    path = tmp_path / "d.db"
    async with DiscordHarness(make_bot(path), dms_closed={uid(BOB)}) as h:
        await h.connect(GUILD, {TABLE: "poker"}, PLAYERS)
        await open_table(h, "a5-draw", [ALICE, BOB])
        assert len(forbidden(h)) == 1  # Bob's join probe
        for _ in range(2):
            await h.slash(ALICE, TABLE, "a5-draw deal")
            await burst(h, TABLE, draw=0)
        await h.restart(make_bot(path, seed=8))
        await h.slash(ALICE, TABLE, "a5-draw deal")
        await h.settle()
        assert len(forbidden(h)) == 1  # never tried again: not at the deals, not after a restart
        assert len([m for m in h.dms(ALICE) if m.attachments]) == 3


async def test_a_restart_costs_no_create_dm_per_player(tmp_path):
    path = tmp_path / "d.db"
    async with DiscordHarness(make_bot(path)) as h:
        await h.connect(GUILD, {TABLE: "poker"}, PLAYERS)
        await open_table(h, "a6-draw", [ALICE, BOB])
        assert len([s for s in h.sent if s.path == CREATE_DM]) == 2  # one per player, ever
        await h.restart(make_bot(path, seed=8))
        start = len(h.sent)
        await h.slash(ALICE, TABLE, "a6-draw deal")
        await h.settle()
        sent = h.sent[start:]
        assert [s for s in sent if s.path == CREATE_DM] == []
        dm_posts = [s for s in sent if s.visibility == "dm"]
        assert len(dm_posts) == 2  # one request per DM
        # joining again with open DMs sends no probe
        await h.slash(CAROL, TABLE, "a6-draw join")
        await h.slash(CAROL, TABLE, "a6-draw leave")
        start = len(h.sent)
        await h.slash(CAROL, TABLE, "a6-draw join")
        assert [s for s in h.sent[start:] if s.visibility == "dm"] == []


async def test_try_dms_again_and_joining_again_reopen_closed_dms(tmp_path):
    async with DiscordHarness(make_bot(tmp_path / "d.db"), dms_closed={uid(BOB)}) as h:
        await h.connect(GUILD, {TABLE: "poker"}, PLAYERS)
        await open_table(h, "a6-draw", [ALICE])
        joined = await h.slash(BOB, TABLE, "a6-draw join")
        (warning,) = joined.followups
        assert "My hand" in warning.content
        retry = warning.custom_id_for("Try DMs again")
        still = await h.click(BOB, warning, retry)  # not opened yet: one more 403
        assert still.ephemeral and "still closed" in still.content
        assert len(forbidden(h)) == 2
        h.dms_closed.discard(uid(BOB))  # Bob opens his DMs and presses the button again
        opened = await h.click(BOB, warning, retry)
        assert "work now" in opened.content
        await h.slash(ALICE, TABLE, "a6-draw deal")
        await h.settle()
        assert [m for m in h.dms(BOB) if m.attachments]  # his cards came by DM
        assert len(forbidden(h)) == 2


async def test_failed_requests_raise_an_alert_well_below_discords_ban(tmp_path, caplog):
    people = users(5)
    closed = {uid(p) for p in people[1:]}
    async with DiscordHarness(make_bot(tmp_path / "d.db"), dms_closed=closed) as h:
        await h.connect(GUILD, {TABLE: "poker"}, people)
        budget = h.bot.budget  # type: ignore[attr-defined]
        assert budget.failures.alert_at <= 1_000  # a tenth of Discord's 10,000 at most
        budget.failures.alert_at = 3
        with caplog.at_level(logging.ERROR, logger="bot"):
            await open_table(h, "a6-draw", people[:3])
            assert "ALERT" not in caplog.text  # two so far
            with pytest.raises(HarnessError, match="ALERT: 3 failed Discord requests"):
                await h.slash(people[3], TABLE, "a6-draw join")  # the harness fails on ERROR
            await h.slash(people[4], TABLE, "a6-draw join")
        alerts = [r for r in caplog.records if "ALERT" in r.getMessage()]
        assert len(alerts) == 1  # once, not at every failure after it
        assert budget.failures.recent() == 4


async def test_channel_route_requests_stay_within_the_process_share(tmp_path):
    channels = {TABLE + i: f"t{i}" for i in range(4)}
    settings = Settings(  # type: ignore[call-arg]
        _env_file=None, database_path=tmp_path / "d.db", turn_timeout=3600, next_hand_delay=0,
        rest_share=4,
    )  # fmt: skip
    async with DiscordHarness(PokerBot(settings, rng=random.Random(2)), latency=0.01) as h:
        people = users(8)
        await h.connect(GUILD, channels, people)
        start = len(h.sent)
        for i, channel in enumerate(channels):
            await open_table(h, "a6-draw", people[2 * i : 2 * i + 2], channel)
        for i, channel in enumerate(channels):  # all at once: 4 table edits and 8 DMs
            h.send_slash(people[2 * i], channel, "a6-draw deal")
        await h.settle()
        sent = h.sent[start:]
        limited = sorted(s.at for s in sent if not exempt(s.path))
        assert len(limited) >= 16  # table posts, edits, DMs: enough to need the share
        for i, at in enumerate(limited):  # any second holds at most 4 of them
            assert len([t for t in limited[i:] if t - at < 1.0]) <= 4
        assert h.bot.budget.share.waited > 0  # type: ignore[attr-defined]
        interactions = [s for s in sent if exempt(s.path)]
        assert interactions and all(re.search(r"/(interactions|webhooks)/", s.path)
                                    for s in interactions)  # fmt: skip


async def test_n_bot_processes_on_one_token_never_exceed_the_total_per_second(tmp_path):
    """Three processes, each with a share of 2 requests/s: together at most 6 in any second."""
    total, processes = 6, 3

    async def child(shard: int) -> list[float]:
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "tests.support.share_child", str(tmp_path / f"{shard}.db"),
            str(total / processes), str(shard), str(processes),
            cwd=ROOT, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        )  # fmt: skip
        out, err = await asyncio.wait_for(proc.communicate(), 120)
        assert proc.returncode == 0, err.decode()[-2000:]
        return json.loads(out.decode().strip().splitlines()[-1])

    runs = await asyncio.gather(*(child(i) for i in range(processes)))
    every = sorted(at for run in runs for at in run)
    assert all(len(run) >= 12 for run in runs)  # each process had more to send than its share
    overlap = min(run[-1] for run in runs) - max(run[0] for run in runs)
    assert overlap > 1.0  # the processes sent at the same time
    for i, at in enumerate(every):
        assert len([t for t in every[i:] if t - at < 1.0]) <= total


def test_a_logged_path_never_shows_an_interaction_token():
    from bot.ui.budget import shown_path

    assert shown_path("/api/v10/webhooks/1/secret-token/messages/@original") == (
        "/api/v10/webhooks/…"
    )
    assert shown_path("/api/v10/interactions/2/secret-token/callback") == "/api/v10/interactions/…"
    assert shown_path("/api/v10/channels/3/messages") == "/api/v10/channels/3/messages"
