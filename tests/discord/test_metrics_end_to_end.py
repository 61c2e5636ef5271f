"""Issue 40: a hand played through the harness with the metrics endpoint on, scraped over real
HTTP from another process; the health check fails while the database is gone and recovers.

The harness refuses every TCP connection from this process, so the scrapes and the health
probes are child processes (``python -m bot.health`` is the container's HEALTHCHECK), run
without blocking the loop the bot serves them on.
"""

from __future__ import annotations

import asyncio
import io
import json
import logging
import os
import random
import sys
import uuid
from pathlib import Path

import asyncpg

from bot.client import PokerBot
from bot.logs import JsonFormatter
from bot.monitor import Monitor, watch_interactions
from bot.settings import Settings
from fakediscord.harness import DiscordHarness
from fakediscord.poker import ALICE, BOB, GUILD, TABLE, open_table, step
from tests.support.databases import PG_URL, Target
from tests.support.paths import ROOT

SCRAPE = (
    "import sys, urllib.request as u\n"
    "sys.stdout.write(u.build_opener(u.ProxyHandler({})).open(sys.argv[1], timeout=10)"
    ".read().decode())"
)


#: seconds to open a PostgreSQL session; after a failed reconnect, transactions fail at once
#: for this long (bot/storage/database.py), so health recovers within it once the database is back
CONNECT_TIMEOUT = 2.0


def make_bot(target: Target) -> PokerBot:
    where = {"database_url": target} if isinstance(target, str) else {"database_path": target}
    settings = Settings(  # type: ignore[call-arg]
        _env_file=None,
        turn_timeout=3600,
        next_hand_delay=0,
        database_connect_timeout=CONNECT_TIMEOUT,
        **where,  # type: ignore[arg-type]
    )
    return PokerBot(settings, rng=random.Random(7))


async def health_after_recovery(port: int) -> tuple[int, str]:
    """The health check once the database is back: asked again until it is ok, for at most
    the connect timeout (the window in which a failed reconnect answers at once) and a
    margin for the reconnect itself."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + CONNECT_TIMEOUT + 10.0
    code, said = await health(port)
    while code != 0 and loop.time() < deadline:
        await asyncio.sleep(0.25)
        code, said = await health(port)
    return code, said


async def run(*args: str, **env: str) -> tuple[int, str, str]:
    proc = await asyncio.create_subprocess_exec(
        *args,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(ROOT), **env},
    )
    out, err = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode is not None
    return proc.returncode, out.decode(), err.decode()


async def scrape(port: int) -> dict[str, float]:
    """The endpoint's samples, ``name{labels}`` -> value."""
    code, out, err = await run(sys.executable, "-c", SCRAPE, f"http://127.0.0.1:{port}/metrics")
    assert code == 0, err
    samples = {}
    for line in out.splitlines():
        if line and not line.startswith("#"):
            name, value = line.rsplit(" ", 1)
            samples[name] = float(value)
    return samples


async def health(port: int, *flags: str) -> tuple[int, str]:
    """``python -m bot.health`` as the Docker image's HEALTHCHECK runs it."""
    code, out, err = await run(
        sys.executable, "-m", "bot.health", *flags, METRICS_PORT=str(port), METRICS_HOST="0.0.0.0"
    )
    return code, (out + err).strip()


def moved(before: dict[str, float], after: dict[str, float], name: str) -> float:
    return after.get(name, 0.0) - before.get(name, 0.0)


class Gone:
    """Take the bot's database away and give it back: on PostgreSQL its role may log in no
    more and its session is ended; a SQLite file cannot vanish under an open connection, so
    there the database's lock is held (it answers nothing) until given back."""

    def __init__(self, bot: PokerBot, target: Target, role: str | None) -> None:
        self.bot, self.target, self.role = bot, target, role

    async def __aenter__(self) -> None:
        if self.role is None:
            await self.bot.store.db.lock.acquire()  # type: ignore[attr-defined]
            return
        admin = await asyncpg.connect(PG_URL)
        try:
            await admin.execute(f"ALTER ROLE {self.role} NOLOGIN")
            await admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = $1",
                self.role,
            )
        finally:
            await admin.close()

    async def __aexit__(self, *exc: object) -> None:
        if self.role is None:
            self.bot.store.db.lock.release()  # type: ignore[attr-defined]
            return
        admin = await asyncpg.connect(PG_URL)
        try:
            await admin.execute(f"ALTER ROLE {self.role} LOGIN")
        finally:
            await admin.close()


async def _own_role(target: Target) -> tuple[Target, str | None]:
    """On PostgreSQL, a login role of the bot's own (to be shut out without the tests' own)."""
    if not isinstance(target, str):
        return target, None
    role = f"metrics_{uuid.uuid4().hex[:10]}"
    admin = await asyncpg.connect(PG_URL)
    try:
        await admin.execute(f"CREATE ROLE {role} SUPERUSER LOGIN")
    finally:
        await admin.close()
    assert target.startswith("postgresql://postgres@")
    return target.replace("postgresql://postgres@", f"postgresql://{role}@", 1), role


async def _drop_role(role: str | None) -> None:
    if role is None:
        return
    admin = await asyncpg.connect(PG_URL)
    try:
        await admin.execute(f"ALTER ROLE {role} LOGIN")
        await admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = $1", role
        )
        await admin.execute(f"REASSIGN OWNED BY {role} TO CURRENT_USER")  # the schema's tables
        await admin.execute(f"DROP OWNED BY {role}")
        await admin.execute(f"DROP ROLE {role}")
    finally:
        await admin.close()


async def test_a_hand_moves_the_metrics_and_health_follows_the_database(db_path, tmp_path):
    target, role = await _own_role(db_path)
    try:
        await _play_and_probe(target, role, tmp_path)
    finally:
        await _drop_role(role)


async def _play_and_probe(target: Target, role: str | None, tmp_path: Path) -> None:
    bot = make_bot(target)
    watch_interactions(bot)
    async with (
        DiscordHarness(bot) as h,
        Monitor(bot, "0.0.0.0", 0, db_timeout=1.0, lag_every=2.0) as monitor,
    ):
        port = monitor.port
        assert (await health(port, "--ready"))[0] == 1  # not logged in to Discord yet
        await h.connect(GUILD, {TABLE: "poker"}, [ALICE, BOB])
        assert await health(port, "--ready") == (0, "ready")
        before = await scrape(port)
        assert 'lowball_tables_open{game="a6-draw"}' not in before  # no table yet

        table = await open_table(h, "a6-draw", [ALICE, BOB])
        assert table is not None
        # the deal's card DMs: a 429 (discord.py waits and tries again), then a 503 (it gives
        # up; the presenter tries again)
        h.fail(r"POST /channels/\d+/messages", 429, retry_after=0.01)
        h.fail(r"POST /channels/\d+/messages", 503)
        await h.slash(ALICE, TABLE, "a6-draw deal")
        manager = bot.manager
        hand_id = manager.view(TABLE).hand_id
        moves = 0
        while manager.view(TABLE).hand_id == hand_id and manager.view(TABLE).hand is not None:
            await step(h, TABLE)
            moves += 1
        refused = await h.slash(BOB, TABLE, "a6-draw check")  # no hand in play
        assert refused.ephemeral and "✅" not in str(refused.embeds)
        await h.settle()
        after = await scrape(port)

        game = '{game="a6-draw"}'
        assert after[f"lowball_tables_open{game}"] == 1
        assert moved(before, after, f"lowball_hands_dealt_total{game}") == 1
        assert moved(before, after, f"lowball_hands_finished_total{game}") == 1
        actions = sum(
            moved(before, after, name)
            for name in after
            if name.startswith("lowball_actions_total{") and 'game="a6-draw"' in name
        )
        assert actions == moves
        checks = 'lowball_actions_total{action="check",by="player",game="a6-draw"}'
        assert moved(before, after, checks) >= 1
        # every step was timed: open, two joins, the deal and each move, all done
        assert moved(before, after, 'lowball_step_seconds_count{outcome="done"}') >= 4 + moves
        assert moved(before, after, "lowball_db_commit_seconds_count") >= 4 + moves
        assert moved(before, after, "lowball_db_group_commit_batch_size_count") >= moves
        # each slash command was answered: its callback timed from its arrival
        answers = moved(before, after, "lowball_interaction_answer_seconds_count")
        assert answers >= 3 + 1 + moves
        assert moved(before, after, 'lowball_rest_requests_total{route="interaction"}') >= answers
        assert moved(before, after, 'lowball_rest_requests_total{route="global"}') >= 1
        ok = moved(before, after, 'lowball_rest_responses_total{route="interaction",status="2xx"}')
        assert ok >= answers
        assert moved(before, after, 'lowball_step_seconds_count{outcome="refused"}') == 1
        answered = 'lowball_rest_responses_total{route="global",status="%s"}'
        assert moved(before, after, answered % "429") == 1
        assert moved(before, after, answered % "5xx") == 1
        assert moved(before, after, 'lowball_rest_retries_total{by="discord.py"}') == 1
        assert moved(before, after, 'lowball_rest_retries_total{by="presenter"}') == 1
        assert after["lowball_rest_failed_recent"] == 1  # the 429
        assert after["lowball_presenter_backlog"] == 0  # settled: everything shown
        assert after["lowball_guilds_owned"] >= 1
        assert "lowball_event_loop_lag_seconds" in after
        for name in after:  # bounded labels: no user, channel or guild id anywhere
            assert str(GUILD) not in name and str(TABLE) not in name
            assert ALICE["id"] not in name and BOB["id"] not in name

        code, said = await health(port)
        assert (code, said.split(":")[0]) == (0, "ok")
        async with Gone(bot, target, role):
            code, said = await health(port)
            assert code == 1 and "unhealthy" in said and "database" in said, said
        code, said = await health_after_recovery(port)
        assert (code, said.split(":")[0]) == (0, "ok"), said
        final = await scrape(port)  # PostgreSQL's session was replaced; SQLite's never is
        reconnected = moved(after, final, "lowball_db_reconnects_total") >= 1
        assert reconnected == (role is not None)


async def test_json_log_lines_name_the_guild_channel_hand_and_user(tmp_path):
    """A line logged while a slash command's step runs carries the ids of both: the
    interaction's guild, channel and user, and the step's hand."""
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.setFormatter(JsonFormatter())
    tap = logging.getLogger("tests.tap")
    tap.handlers[:] = [handler]
    tap.propagate, tap.level = False, logging.INFO
    bot = make_bot(tmp_path / "poker.db")
    watch_interactions(bot)
    async with DiscordHarness(bot) as h:
        await h.connect(GUILD, {TABLE: "poker"}, [ALICE, BOB])
        await open_table(h, "a6-draw", [ALICE, BOB])
        bot.manager.subscribe(lambda event: tap.info("event %s", event.kind))
        await h.slash(ALICE, TABLE, "a6-draw deal")
        view = bot.manager.view(TABLE)
        actor = view.to_act_user
        await step(h, TABLE)
    records = [json.loads(line) for line in out.getvalue().splitlines()]
    dealt = next(r for r in records if r["message"] == "event dealt")
    assert (dealt["guild_id"], dealt["channel_id"]) == (GUILD, TABLE)
    assert dealt["user_id"] == int(ALICE["id"])  # who dealt
    acted = next(r for r in records if r["message"] == "event action")
    assert (acted["guild_id"], acted["channel_id"]) == (GUILD, TABLE)
    assert (acted["hand_id"], acted["user_id"]) == (view.hand_id, actor)
