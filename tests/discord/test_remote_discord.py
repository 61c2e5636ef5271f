"""The bot against the fake Discord in its own process: real HTTP, real JSON, Discord's limits.

``RemoteHarness`` starts ``python -m fakediscord.server`` and points discord.py at it through
``Route.BASE``; the gateway stays in this process. These tests check what the in-process
harness cannot: that discord.py's own request path meets Discord's rate-limit headers and
429s and nothing is lost, and that the interaction deadlines hold over HTTP.
"""

from __future__ import annotations

import asyncio
import os

import discord
from discord import app_commands
from discord.ext import commands
from discord.http import HTTPClient, handle_message_parameters
from discord.webhook.async_ import async_context, interaction_response_params

from fakediscord.harness import TOKEN
from fakediscord.poker import (
    GUILD,
    PLAYERS,
    TABLE,
    assert_table_shows_latest,
    make_bot,
    open_table,
    step,
    uid,
)
from fakediscord.ratelimit import GLOBAL_PER_SECOND
from fakediscord.remote import FakeDiscordServer, RemoteHarness
from tests.support.clicks import patient

ALICE, BOB, CAROL = PLAYERS[:3]
#: channels another process of the same bot token floods
FLOODED = [1330000000000000001 + i for i in range(30)]
POSTS = 3  # per flooded channel


async def _other_process() -> HTTPClient:
    """discord.py's REST client as a second process on the same bot token would have it."""
    http = HTTPClient(asyncio.get_running_loop())
    await http.static_login(TOKEN)
    return http


async def test_a_click_answered_by_update_message_shows_the_new_table_over_http(tmp_path):
    async with RemoteHarness(make_bot(tmp_path / "r.db")) as h:
        await h.connect(GUILD, {TABLE: "poker"}, PLAYERS)
        patient(h)
        table = await open_table(h, "a6-draw", [ALICE, BOB])
        since = len(await h.fetch_log())
        dealt = await h.click(ALICE, table, h.message(table.id).custom_id_for("Deal"))
        assert dealt.callback_type == 7 and dealt.message.id == table.id
        assert dealt.followups == []  # no private message: Alice's cards went by DM
        assert "Check" in [b["label"] for b in h.message(table.id).buttons()]
        assert_table_shows_latest(h, TABLE)
        view = h.bot.manager.view(TABLE)  # type: ignore[attr-defined]
        player = next(p for p in (ALICE, BOB) if uid(p) == view.to_act_user)
        clicked = await h.click(player, table, h.message(table.id).custom_id_for("Check"))
        assert clicked.callback_type == 7
        assert "checks" in str(h.message(table.id).embeds)
        assert_table_shows_latest(h, TABLE)
        log = await h.fetch_log(since)
        table_edits = [e for e in log if e[1] == "PATCH" and e[2].startswith(f"/channels/{TABLE}")]
        assert table_edits == []  # both clicks carried the table in their answer


async def _post(other: HTTPClient, channel: int, content: str) -> None:
    """One post of the other process, sent again if discord.py gives up on it: one post of
    the flood can meet the global 429 five times in a row, and a process then tries again
    later. It is the other process's post, not the bot's."""
    while True:
        try:
            await other.send_message(channel, params=handle_message_parameters(content=content))
            return
        except discord.HTTPException as exc:
            if exc.status != 429:
                raise


async def test_the_global_limit_429s_channel_routes_never_interactions_and_nothing_is_lost(
    tmp_path,
):
    channels = {TABLE: "poker"} | {c: f"flood-{i}" for i, c in enumerate(FLOODED)}
    # settling waits for everything in flight, the flood too: give it room under the limits
    async with RemoteHarness(make_bot(tmp_path / "g.db"), settle_timeout=60) as h:
        await h.connect(GUILD, channels, PLAYERS)
        await open_table(h, "a6-draw", [ALICE, BOB])
        await h.slash(ALICE, TABLE, "a6-draw deal")
        other = await _other_process()
        loop = asyncio.get_running_loop()
        start, since = loop.time(), len(await h.fetch_log())
        try:
            # 90 posts, 3 per channel (under each channel's 5 per 5 s), all at once: over the
            # 50 per second (a post that meets the 429 five times is sent again: _post) ...
            flood = asyncio.gather(
                *(_post(other, c, f"{c}:{i}") for i in range(POSTS) for c in FLOODED)
            )
            # ... while the bot plays its table and 60 people ask for the rules at once
            rules = asyncio.gather(
                *(h.slash(CAROL, TABLE, "rules", game="a6-draw") for _ in range(60))
            )
            played = 0
            while h.bot.manager.view(TABLE).hand is not None:  # type: ignore[attr-defined]
                await step(h, TABLE, draw=1)  # each answered with the step stored
                played += 1
            answered = await rules
            await flood
            spent = loop.time() - start
        finally:
            await other.close()
        await h.settle()
        log = (await h.fetch_log())[since:]
        limits = await h.limits()
        assert limits["counts"]["global 429"] > 0  # the flood went over 50 per second
        assert limits["peak"] <= GLOBAL_PER_SECOND
        interactions = [e for e in log if e[0] == "webhook"]
        assert len(interactions) >= 60 and all(e[4] != 429 for e in interactions)
        assert played >= 2 and all(r.callback_type is not None for r in answered)
        for c in FLOODED:  # discord.py waited and sent again: every post arrived
            assert sorted(m.content for m in h.messages(c)) == [f"{c}:{i}" for i in range(POSTS)]
        # 90 posts admitted at most 50 in any second span more than 1 s
        assert spent >= 1.0
        # the last edits may still wait on the table channel's bucket (5 per 5 s)
        assert await h.bot.presenter.drain(30)  # type: ignore[attr-defined]
        assert_table_shows_latest(h, TABLE)


async def test_a_channel_buckets_headers_are_honoured_without_a_429(tmp_path):
    async with RemoteHarness(make_bot(tmp_path / "b.db")) as h:
        await h.connect(GUILD, {TABLE: "poker"}, PLAYERS)
        channel = h.bot.get_channel(TABLE)
        assert isinstance(channel, discord.TextChannel)
        loop = asyncio.get_running_loop()
        start = loop.time()
        await asyncio.gather(*(channel.send(f"post {i}") for i in range(7)))
        spent = loop.time() - start
        limits = await h.limits()
        assert limits["counts"].get("route 429", 0) == 0  # discord.py read the headers
        shown = sorted(m.content for m in h.messages(TABLE))
        assert shown == [f"post {i}" for i in range(7)]
        # 5 per 5 s for a channel's posts: the sixth waited for the bucket to reset
        assert spent >= 4.9


# ---- the interaction deadlines, with a bot that answers when the test says ---------------


class Late(commands.Cog):
    def __init__(self, bot: LateBot) -> None:
        self.bot = bot

    @app_commands.command(name="late", description="Wait for the test, then answer")
    async def late(self, interaction: discord.Interaction, defer: bool = False) -> None:
        if defer:
            await interaction.response.defer(ephemeral=True, thinking=True)
        await self.bot.gate.wait()
        calls = [("followup", lambda: interaction.followup.send("later"))]
        if not defer:
            calls.insert(0, ("response", lambda: interaction.response.send_message("late")))
        for what, call in calls:
            try:
                await call()
            except discord.HTTPException as e:
                self.bot.calls.append((what, e.status, e.code))
            else:
                self.bot.calls.append((what, "ok"))

    @app_commands.command(name="twice", description="Answer, then acknowledge once more")
    async def twice(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message("first")
        params = interaction_response_params(4, {"content": "second"})
        try:  # discord.py refuses a second response itself: go round it, as a bug would
            await async_context.get().create_interaction_response(
                interaction.id, interaction.token, session=interaction._session, params=params
            )
        except discord.HTTPException as e:
            self.bot.calls.append(("second", e.status, e.code))


class LateBot(commands.Bot):
    def __init__(self) -> None:
        super().__init__(command_prefix=commands.when_mentioned, intents=discord.Intents.none())
        self.calls: list[tuple] = []
        self.gate = asyncio.Event()

    async def setup_hook(self) -> None:
        await self.add_cog(Late(self))


async def test_an_initial_response_after_3_s_is_10062_over_http():
    async with RemoteHarness(LateBot()) as h:
        await h.connect(GUILD, {TABLE: "table"}, [ALICE])
        bot: LateBot = h.bot  # type: ignore[assignment]
        h.send_slash(ALICE, TABLE, "late")
        await asyncio.sleep(0.05)
        h.advance(3.1)  # the bot answers after Discord's 3 s: it forgot the interaction
        bot.gate.set()
        await h.settle()
        assert bot.calls == [("response", 404, 10062), ("followup", 404, 10015)]


async def test_a_second_acknowledgement_is_40060_and_the_token_lasts_15_minutes_over_http():
    async with RemoteHarness(LateBot()) as h:
        await h.connect(GUILD, {TABLE: "table"}, [ALICE])
        bot: LateBot = h.bot  # type: ignore[assignment]
        first = await h.slash(ALICE, TABLE, "twice")
        assert first.content == "first"
        assert bot.calls == [("second", 400, 40060)]

        bot.calls.clear()
        deferred = h.send_slash(ALICE, TABLE, "late", defer=True)
        await asyncio.sleep(0.05)
        h.advance(14 * 60)
        await h.settle()
        assert h.reply_for(deferred.token).callback_type == 5  # deferred in time
        h.advance(60.5)  # past the token's 15 minutes
        bot.gate.set()
        await h.settle()
        assert bot.calls == [("followup", 401, 50027)]


async def test_the_fake_discord_can_be_given_cpus_of_its_own():
    """The benchmark gives the fake Discord a CPU of its own (Discord runs elsewhere)."""
    first = min(os.sched_getaffinity(0))
    server = FakeDiscordServer(cpus={first})
    await server.start()
    try:
        assert os.sched_getaffinity(server.pid) == {first}
    finally:
        await server.stop()
