"""Proves fakediscord/harness.py against a tiny toy bot driven through the real discord.py."""

from __future__ import annotations

import asyncio
import socket

import aiohttp
import discord
import pytest
from discord import app_commands
from discord.ext import commands

from fakediscord.harness import APPLICATION_ID, DiscordHarness, Fault, HarnessError, users

GUILD = 1200000000000000001
TABLE = 1210000000000000001
LOBBY = 1210000000000000002
ALICE, BOB, CAROL = users(3)
NAMES = ["ace", "bicycle", "badugi", "deuce"]


class TableView(discord.ui.View):
    """Persistent: timeout=None and every item has a custom_id."""

    def __init__(self) -> None:
        super().__init__(timeout=None)

    @discord.ui.button(label="Bump", custom_id="toy:bump", style=discord.ButtonStyle.primary)
    async def bump(self, interaction: discord.Interaction, button: discord.ui.Button) -> None:
        assert interaction.message is not None
        n = int(interaction.message.content.rsplit(" ", 1)[-1]) + 1
        await interaction.response.edit_message(content=f"table bumps {n}")

    @discord.ui.button(label="Peek", custom_id="toy:peek")
    async def peek(self, interaction: discord.Interaction, button: discord.ui.Button) -> None:
        await interaction.response.defer()
        await interaction.followup.send(f"secret for {interaction.user.name}", ephemeral=True)

    @discord.ui.select(
        custom_id="toy:pick",
        options=[
            discord.SelectOption(label="Red", value="red"),
            discord.SelectOption(label="Blue"),
        ],
    )
    async def pick(self, interaction: discord.Interaction, select: discord.ui.Select) -> None:
        await interaction.response.send_message(f"picked {select.values[0]}", ephemeral=True)


class Toy(commands.Cog):
    toy = app_commands.Group(name="toy", description="Toy commands")
    admin = app_commands.Group(name="admin", description="Admin", parent=toy)

    def __init__(self, bot: ToyBot) -> None:
        self.bot = bot

    @toy.command(name="play", description="Play something")
    async def play(
        self, interaction: discord.Interaction, name: str, count: int, loud: bool = False
    ) -> None:
        self.bot.calls.append((interaction.user.id, name, count, loud))
        await interaction.response.send_message(f"{name} x{count}", ephemeral=not loud)

    @play.autocomplete("name")
    async def play_name(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        return [app_commands.Choice(name=n, value=n) for n in NAMES if n.startswith(current)]

    @toy.command(name="table", description="Open a table")
    async def table(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message("table bumps 0", view=TableView())

    @toy.command(name="dm", description="DM someone")
    async def dm(self, interaction: discord.Interaction, target: discord.User) -> None:
        try:
            await target.send("psst")
        except discord.Forbidden as e:
            await interaction.response.send_message(f"closed {e.code}", ephemeral=True)
        else:
            await interaction.response.send_message("sent", ephemeral=True)

    @toy.command(name="boom", description="Crash")
    async def boom(self, interaction: discord.Interaction) -> None:
        raise RuntimeError("kaboom")

    @toy.command(name="silent", description="Never answers")
    async def silent(self, interaction: discord.Interaction) -> None:
        return None

    @toy.command(name="orphan", description="Leaks a failing task")
    async def orphan(self, interaction: discord.Interaction) -> None:
        async def fail() -> None:
            raise ValueError("orphaned failure")

        self.bot.orphans.append(asyncio.create_task(fail()))
        await interaction.response.send_message("ok")

    @toy.command(name="linger", description="Answer, then wait a long time")
    async def linger(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message("waiting", view=discord.ui.View(timeout=600))
        await asyncio.sleep(3600)  # like a turn timer: idle, must not block the harness
        await interaction.followup.send("too late")

    @toy.command(name="slow", description="Defer, think, then answer")
    async def slow(self, interaction: discord.Interaction) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        await asyncio.sleep(0.05)  # short pause: the harness must wait for it
        await interaction.followup.send("done thinking", ephemeral=False)

    @toy.command(name="nap", description="Pause over a second before answering")
    async def nap(self, interaction: discord.Interaction) -> None:
        await asyncio.sleep(1.1)  # not a timer: part of handling the command
        await interaction.response.send_message("rested")

    @toy.command(name="post", description="Post in the channel through REST, then answer")
    async def post(self, interaction: discord.Interaction, edit: str | None = None) -> None:
        channel = self.bot.get_partial_messageable(interaction.channel_id or 0)
        try:
            if edit:
                await channel.get_partial_message(int(edit)).edit(content="edited")
            else:
                await channel.send("posted")
        except discord.HTTPException as e:
            await interaction.response.send_message(f"failed {e.status} {e.code}")
        except TimeoutError:
            await interaction.response.send_message("timed out")
        else:
            await interaction.response.send_message("ok")

    @toy.command(name="late", description="Wait for the test, then answer")
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

    @admin.command(name="reset", description="Reset with a factor")
    @app_commands.describe(factor="A number")
    async def reset(
        self, interaction: discord.Interaction, factor: float, who: discord.User
    ) -> None:
        await interaction.response.send_message(f"reset {factor} {who.name}")


# the toy bot's one timer: ``toy linger`` sleeps an hour, like a turn timer
TIMERS = (Toy.linger.callback,)


class ToyBot(commands.Bot):
    def __init__(self) -> None:
        intents = discord.Intents.default()
        intents.members = False
        intents.presences = False
        intents.message_content = False
        super().__init__(command_prefix=commands.when_mentioned, intents=intents)
        self.calls: list[tuple] = []
        self.orphans: list[asyncio.Task] = []
        self.gate = asyncio.Event()

    async def setup_hook(self) -> None:
        await self.add_cog(Toy(self))
        self.add_view(TableView())
        await self.tree.sync()


async def _connected(h: DiscordHarness) -> DiscordHarness:
    await h.connect(GUILD, {TABLE: "table-1", LOBBY: "lobby"}, [ALICE, BOB, CAROL])
    return h


@pytest.fixture
async def h():
    async with DiscordHarness(ToyBot(), dms_closed={int(CAROL["id"])}, timers=TIMERS) as harness:
        await _connected(harness)
        yield harness


async def test_login_ready_and_synced_schema(h: DiscordHarness) -> None:
    assert h.bot.user is not None and h.bot.user.id == APPLICATION_ID
    assert h.bot.is_ready()
    assert h.bot.get_guild(GUILD).get_channel(TABLE).name == "table-1"
    (toy,) = h.synced[None]
    subs = {o["name"]: o for o in toy["options"]}
    assert set(subs) == {
        "play",
        "table",
        "dm",
        "boom",
        "silent",
        "orphan",
        "linger",
        "slow",
        "nap",
        "post",
        "late",
        "admin",
    }
    play = {o["name"]: o for o in subs["play"]["options"]}
    assert play["name"]["type"] == 3 and play["name"]["autocomplete"] is True
    assert play["count"]["type"] == 4 and play["count"]["required"] is True
    assert subs["admin"]["type"] == 2
    puts = [s for s in h.sent if s.method == "PUT" and s.path.endswith("/commands")]
    assert puts and puts[0].json == h.synced[None]


async def test_slash_reaches_callback_with_typed_options(h: DiscordHarness) -> None:
    reply = await h.slash(ALICE, TABLE, "toy play", name="ace", count=3)
    assert h.bot.calls == [(int(ALICE["id"]), "ace", 3, False)]
    assert reply.callback_type == 4
    assert reply.content == "ace x3"
    assert reply.ephemeral and reply.flags & 64
    assert reply.message.visible_to == int(ALICE["id"])

    loud = await h.slash(BOB, TABLE, "toy play", name="deuce", count=2, loud=True)
    assert not loud.ephemeral
    assert h.bot.calls[-1] == (int(BOB["id"]), "deuce", 2, True)
    public = h.public_text()
    assert "deuce x2" in public and "ace x3" not in public
    assert [m.content for m in h.messages(TABLE, include_ephemeral=False)] == ["deuce x2"]


async def test_subcommand_group_with_number_and_user(h: DiscordHarness) -> None:
    reply = await h.slash(ALICE, LOBBY, "toy admin reset", factor=2.5, who=BOB)
    assert reply.content == "reset 2.5 bob"
    assert reply.message.channel_id == LOBBY


async def test_harness_refuses_invalid_invocations(h: DiscordHarness) -> None:
    with pytest.raises(HarnessError, match="not declared"):
        await h.slash(ALICE, TABLE, "toy play", name="ace", count=1, bogus=1)
    with pytest.raises(HarnessError, match="missing required"):
        await h.slash(ALICE, TABLE, "toy play", name="ace")
    with pytest.raises(HarnessError, match="expected int"):
        await h.slash(ALICE, TABLE, "toy play", name="ace", count="3")
    with pytest.raises(HarnessError, match="not a subcommand"):
        await h.slash(ALICE, TABLE, "toy nope")
    with pytest.raises(HarnessError, match="was not synced"):
        await h.slash(ALICE, TABLE, "poker start")
    with pytest.raises(HarnessError, match="is a group"):
        await h.slash(ALICE, TABLE, "toy admin")
    assert h.bot.calls == []


async def test_autocomplete_returns_choices(h: DiscordHarness) -> None:
    choices = await h.autocomplete(ALICE, TABLE, "toy play", "name", "b", count=1)
    assert [c["value"] for c in choices] == ["bicycle", "badugi"]
    assert h.bot.calls == []  # autocomplete never runs the command


async def test_buttons_edit_in_place_and_survive_restart(h: DiscordHarness) -> None:
    opened = await h.slash(ALICE, TABLE, "toy table")
    table = opened.message
    assert not table.ephemeral and table.custom_ids() == ["toy:bump", "toy:peek", "toy:pick"]

    bumped = await h.click(BOB, table, "toy:bump")
    assert bumped.callback_type == 7
    assert bumped.message.id == table.id
    assert h.message(table.id).content == "table bumps 1"
    assert len(h.message(table.id).history) == 1

    await h.restart(ToyBot())  # new Bot instance; setup_hook add_view()s again
    assert h.bot.user is not None and h.bot.calls == []
    again = await h.click(CAROL, table.id, "toy:bump")
    assert again.callback_type == 7
    assert h.message(table.id).content == "table bumps 2"
    assert [m.id for m in h.messages(TABLE)] == [table.id]

    picked = await h.select(ALICE, table, "toy:pick", ["Blue"])
    assert picked.content == "picked Blue" and picked.ephemeral


async def test_button_followup_is_ephemeral_and_private(h: DiscordHarness) -> None:
    table = (await h.slash(ALICE, TABLE, "toy table")).message
    reply = await h.click(BOB, table, "toy:peek")
    assert reply.callback_type == 6
    (followup,) = reply.followups
    assert followup.content == "secret for bob"
    assert followup.ephemeral and followup.visible_to == int(BOB["id"])
    assert "secret" not in h.public_text()
    with pytest.raises(HarnessError, match="cannot see ephemeral"):
        await h.click(ALICE, followup, "toy:bump")


async def test_click_checks_custom_id_and_select_values(h: DiscordHarness) -> None:
    table = (await h.slash(ALICE, TABLE, "toy table")).message
    with pytest.raises(HarnessError, match="is not on message"):
        await h.click(BOB, table, "toy:nope")
    with pytest.raises(HarnessError, match="not among options"):
        await h.select(BOB, table, "toy:pick", ["green"])
    with pytest.raises(HarnessError, match="has type 3"):
        await h.click(BOB, table, "toy:pick")


async def test_dm_open_and_closed(h: DiscordHarness) -> None:
    sent = await h.slash(ALICE, TABLE, "toy dm", target=BOB)
    assert sent.content == "sent"
    assert [m.content for m in h.dms(BOB)] == ["psst"]
    dm_request = next(s for s in sent.sent if s.visibility == "dm")
    assert dm_request.json["content"] == "psst"

    closed = await h.slash(ALICE, TABLE, "toy dm", target=CAROL)
    assert closed.content == "closed 50007"
    assert h.dms(CAROL) == []
    assert "psst" not in h.public_text()


async def test_deferred_thinking_first_followup_replaces_loading_message(h: DiscordHarness) -> None:
    reply = await h.slash(ALICE, TABLE, "toy slow")
    assert reply.callback_type == 5 and reply.deferred
    assert reply.content == "done thinking"
    # the defer decided visibility: the followup's ephemeral=False is ignored by Discord
    assert reply.ephemeral
    assert reply.followups == []
    assert not reply.message.loading


async def test_long_sleeps_count_as_idle(h: DiscordHarness) -> None:
    loop = asyncio.get_running_loop()
    start = loop.time()
    reply = await h.slash(ALICE, TABLE, "toy linger")
    assert reply.content == "waiting" and reply.followups == []
    assert loop.time() - start < 2


def test_sleeps_are_told_apart_on_uvloop_too() -> None:
    """uvloop keeps no list of timers for the harness to read: a sleep's end is read off
    the sleep itself, so a long one is idle and a short one is waited for there too."""
    uvloop = pytest.importorskip("uvloop")

    async def scenario() -> None:
        async with DiscordHarness(ToyBot(), timers=TIMERS) as h:
            await _connected(h)
            assert not isinstance(asyncio.get_running_loop(), asyncio.BaseEventLoop)
            start = asyncio.get_running_loop().time()
            lingering = await h.slash(ALICE, TABLE, "toy linger")
            assert lingering.content == "waiting" and lingering.followups == []
            assert asyncio.get_running_loop().time() - start < 2
            slow = await h.slash(ALICE, TABLE, "toy slow")
            assert slow.content == "done thinking"  # the 50 ms pause was waited for

    uvloop.run(scenario())


async def test_command_exception_becomes_failure(h: DiscordHarness) -> None:
    with pytest.raises(HarnessError, match="kaboom") as info:
        await h.slash(ALICE, TABLE, "toy boom")
    assert info.value.reply is not None and info.value.reply.callback_type is None
    # the harness is still usable afterwards
    ok = await h.slash(ALICE, TABLE, "toy play", name="ace", count=1)
    assert ok.content == "ace x1"


async def test_unacknowledged_interaction_fails(h: DiscordHarness) -> None:
    with pytest.raises(HarnessError, match="never acknowledged"):
        await h.slash(ALICE, TABLE, "toy silent")


async def test_unretrieved_task_exception_fails(h: DiscordHarness) -> None:
    with pytest.raises(HarnessError, match="orphaned failure"):
        await h.slash(ALICE, TABLE, "toy orphan")


async def test_errors_left_at_exit_fail_the_test() -> None:
    with pytest.raises(HarnessError, match="real network attempt blocked"):
        async with DiscordHarness(ToyBot(), timers=TIMERS) as h:
            await _connected(h)
            # code that swallows the error still fails the test at context exit
            try:
                async with aiohttp.ClientSession() as session:
                    await session.get("https://discord.com/api/v10/gateway")
            except Exception:
                pass


async def test_network_attempts_raise() -> None:
    originals = (aiohttp.ClientSession._request, asyncio.BaseEventLoop.create_connection)
    async with DiscordHarness(ToyBot(), timers=TIMERS) as h:
        with pytest.raises(HarnessError, match="real network attempt blocked"):
            async with aiohttp.ClientSession() as session:
                await session.get("https://example.com")
        with pytest.raises(HarnessError, match="real network attempt blocked"):
            socket.create_connection(("192.0.2.1", 443), timeout=0.1)
        assert len(h.take_errors()) == 2
    # everything is restored afterwards
    assert (aiohttp.ClientSession._request, asyncio.BaseEventLoop.create_connection) == originals
    assert "connect" not in vars(socket.socket)


# ----------------------------------------------------------------- latency and injected faults


async def test_every_request_takes_the_injected_latency(h: DiscordHarness) -> None:
    h.latency = 0.15
    reply = await h.slash(ALICE, TABLE, "toy dm", target=BOB)
    calls = [s for s in reply.sent if s.transport == "http"]
    assert [s.path for s in calls] == [
        "/users/@me/channels",
        f"/channels/{calls[1].channel_id}/messages",
    ]
    assert all(s.done_at - s.at >= 0.15 for s in reply.sent)
    # the answer was sent only after both REST calls had been answered
    assert reply.ack_latency >= 0.3
    h.latency = (0.01, 0.05)
    await h.slash(ALICE, TABLE, "toy play", name="ace", count=1)
    assert 0.01 <= h.sent[-1].done_at - h.sent[-1].at < 0.2


async def test_a_request_discord_is_answering_is_work_however_long(h: DiscordHarness) -> None:
    """The harness's own latency is never mistaken for a timer of the bot's: a request
    that takes longer than a second is still waited for (the old harness took any sleep
    over a second for a timer, and settled with the request unanswered)."""
    h.latency = 1.1
    reply = await h.slash(ALICE, TABLE, "toy post")
    assert reply.content == "ok"
    (post,) = [s for s in reply.sent if s.path == f"/channels/{TABLE}/messages"]
    assert post.done_at is not None and post.done_at - post.at >= 1.1


async def test_a_pause_that_is_not_a_timer_is_waited_for_however_long(h: DiscordHarness) -> None:
    """Only the timers the harness is told of are idle (``linger``'s hour here): any other
    sleep is part of handling the event, whatever its length (the old harness judged by
    length: over a second, it settled before the answer)."""
    reply = await h.slash(ALICE, TABLE, "toy nap")
    assert reply.content == "rested"


async def test_a_429_is_retried_by_discord_py_after_retry_after(h: DiscordHarness) -> None:
    fault = h.fail(r"POST /channels/\d+/messages$", status=429, retry_after=0.2)
    reply = await h.slash(ALICE, TABLE, "toy post")
    assert reply.content == "ok" and fault.hits == 1
    attempts = [s for s in reply.sent if s.path == f"/channels/{TABLE}/messages"]
    assert [a.fault is fault for a in attempts] == [True, False]
    assert attempts[1].at - attempts[0].done_at >= 0.2  # discord.py slept retry_after
    assert [m.content for m in h.messages(TABLE, include_ephemeral=False)][-2:] == ["posted", "ok"]


async def test_injected_errors_reach_the_bot_as_discord_py_exceptions(h: DiscordHarness) -> None:
    h.fail(r"POST /channels/\d+/messages$", status=503)
    assert (await h.slash(ALICE, TABLE, "toy post")).content == "failed 503 0"
    h.faults.append(Fault(r"POST /channels/\d+/messages$", timeout=True))
    assert (await h.slash(ALICE, TABLE, "toy post")).content == "timed out"
    posted = await h.slash(ALICE, TABLE, "toy post")
    message = h.messages(TABLE, include_ephemeral=False)[-2]
    assert posted.content == "ok" and message.content == "posted"
    h.fail(r"PATCH /channels/\d+/messages/\d+", status=400, code=30046, times=2)
    for _ in range(2):
        old = await h.slash(ALICE, TABLE, "toy post", edit=str(message.id))
        assert old.content == "failed 400 30046"
    assert (await h.slash(ALICE, TABLE, "toy post", edit=str(message.id))).content == "ok"
    assert h.message(message.id).content == "edited"
    # an unknown message is Discord's own 404, raised by discord.py
    gone = await h.slash(ALICE, TABLE, "toy post", edit="1")
    assert gone.content == "failed 404 10008"


async def test_an_initial_response_after_3_s_is_unknown_interaction_10062(
    h: DiscordHarness,
) -> None:
    h.send_slash(ALICE, TABLE, "toy late")
    await asyncio.sleep(0.01)
    h.advance(3.1)
    h.bot.gate.set()  # type: ignore[attr-defined]
    await h.settle()
    # the callback is refused; with no answer there is no webhook either
    assert h.bot.calls == [("response", 404, 10062), ("followup", 404, 10015)]  # type: ignore[attr-defined]


async def test_the_interaction_token_lasts_15_minutes_then_50027(h: DiscordHarness) -> None:
    reply = h.send_slash(ALICE, TABLE, "toy late", defer=True)
    await asyncio.sleep(0.05)
    h.advance(14 * 60)
    await h.settle()
    assert h.reply_for(reply.token).callback_type == 5  # deferred in time
    h.advance(60.5)  # past the 15 minutes
    h.bot.gate.set()  # type: ignore[attr-defined]
    await h.settle()
    assert h.bot.calls == [("followup", 401, 50027)]  # type: ignore[attr-defined]
