"""Defects found by trying the features as users (issue 34 item 6): each as a user meets it."""

from __future__ import annotations

import asyncio
import random
import threading
from pathlib import Path

from bot.client import PokerBot
from bot.render.images import BOARD_POOL
from bot.settings import Settings
from fakediscord.harness import DiscordHarness, Msg
from fakediscord.poker import GUILD, PLAYERS, TABLE, make_bot, open_table, uid
from tests.support.clicks import Clock, clocked_bot, to_act
from tests.support.manager_helpers import Clock as ManagerClock
from tests.support.moderated_server import ALICE as MOD
from tests.support.moderated_server import BOB, started

ALICE = PLAYERS[0]


def mod_bot(path: Path) -> PokerBot:
    """The moderated server's bot (Alice: Manage Channels), computer players at once."""
    settings = Settings(  # type: ignore[call-arg]
        _env_file=None, database_path=path, turn_timeout=3600, next_hand_delay=0, bot_pause=0
    )
    return PokerBot(settings, rng=random.Random(3), clock=ManagerClock())


def button(message: Msg, do: str) -> str:
    return next(c["custom_id"] for c in message.buttons() if c["custom_id"].endswith(f":{do}"))


async def test_a_player_who_just_clicked_may_post_the_table_again(tmp_path):
    clock = Clock()
    async with DiscordHarness(clocked_bot(tmp_path / "u.db", clock)) as h:
        await h.connect(GUILD, {TABLE: "poker"}, PLAYERS)
        table = await open_table(h, "a6-draw", [ALICE, BOB])
        clock.now += 61  # the table was posted over a minute ago
        await h.click(ALICE, table, h.message(table.id).custom_id_for("Deal"))
        player = to_act(h)
        await h.click(player, table, h.message(table.id).custom_id_for("Check"))
        posted = await h.slash(player, TABLE, "a6-draw table")  # the README: twice in 20 s
        assert "Slow down" not in (posted.content or "")
        assert posted.message is not None and posted.message.deleted  # answered by the post
        latest = h.messages(TABLE, include_ephemeral=False)[-1]
        assert latest.id != table.id and "Check" in str(latest.buttons()) + str(latest.embeds)


async def test_every_server_command_is_guild_only_in_the_synced_schema(tmp_path):
    """Discord offers in DMs only what works there: /rules. /export, /replay and /stats
    read a server's hands, so they are guild-only like every other server command."""
    clock = Clock()
    async with DiscordHarness(clocked_bot(tmp_path / "u.db", clock)) as h:
        await h.connect(GUILD, {TABLE: "poker"}, PLAYERS)
        schema = {c["name"]: c for c in h.command_schema(GUILD)}
        assert {"export", "replay", "stats", "rules"} <= set(schema)
        offered_in_dms = sorted(
            name for name, c in schema.items() if c.get("contexts") != [0] or c["dm_permission"]
        )
        assert offered_in_dms == ["rules"]


async def test_a_cancelled_practice_hand_is_marked_and_names_its_computer_players(tmp_path):
    """A moderator cancels a practice hand: its replay says cancelled (there is no result
    step to say it), and the replay, the player's export and the server's hand log name
    the computer player as the table did, never by its internal id."""
    async with DiscordHarness(mod_bot(tmp_path / "u.db")) as h:
        await started(h)
        await h.slash(MOD, TABLE, "a6-draw open", bots=1)
        await h.slash(MOD, TABLE, "a6-draw deal")
        await h.bot.practice.settle()  # type: ignore[attr-defined]
        seats = h.bot.manager.view(TABLE).seats  # type: ignore[attr-defined]
        assert [s.name for s in seats if s.bot] == ["🤖 Dealer's Cousin (normal)"]
        closed = await h.slash(MOD, TABLE, "table-admin close")
        assert "closed" in closed.content.lower()
        replay = await h.slash(MOD, TABLE, "replay")
        first = replay.message
        assert first is not None and first.embeds
        assert "cancelled" in first.embeds[0]["footer"]["text"]
        last = await h.click(MOD, first, button(first, "last"))
        shown = last.message.embeds[0]
        assert "cancelled" in shown["footer"]["text"] and "cancelled" in shown["description"]
        words = str(first.embeds) + str(shown)
        assert "Dealer's Cousin" in words and "-1" not in words
        exported = await h.slash(MOD, TABLE, "export")
        files = exported.message.files.items()
        (hands,) = [data for name, data in files if name.startswith("hands-")]
        text = hands.decode()
        assert "Seat 2: 🤖 Dealer's Cousin (" in text and "Seat 2: -1" not in text, text
        server = await h.slash(MOD, TABLE, "export", scope="server")
        (log,) = [d for name, d in server.message.files.items() if name.startswith("server-hands-")]
        assert '"🤖 Dealer\'s Cousin @ -1"' in log.decode() and '"-1 @ -1"' not in log.decode()


async def test_a_closed_tables_editor_never_shows_a_table_reopened_in_its_channel(tmp_path):
    """The table message's edit fails (a 503) and its editor waits to try again; meanwhile a
    moderator closes the table and a new one opens in the same channel. The old editor
    does not take the new table for its own: one table message shows it, the new one."""
    async with DiscordHarness(mod_bot(tmp_path / "u.db")) as h:
        await started(h)
        await h.slash(MOD, TABLE, "a6-draw open")
        for p in (MOD, BOB):
            await h.slash(p, TABLE, "a6-draw join")
        old = h.messages(TABLE, include_ephemeral=False)[-1]
        presenter = h.bot.presenter  # type: ignore[attr-defined]
        presenter.retry_delays = (1.0,)  # the editor's back-off outlasts the reopening
        h.fail(f"PATCH /channels/{TABLE}/messages/{old.id}", status=503)
        h.latency = 0.3  # the closed table's last word is still being sent meanwhile
        manager = h.bot.manager  # type: ignore[attr-defined]
        h.send_slash(MOD, TABLE, "a6-draw deal")  # its edit of the table message fails
        while not h.faults[-1].hits:
            await asyncio.sleep(0.01)
        h.send_slash(MOD, TABLE, "table-admin close")
        while manager.has_table(TABLE):
            await asyncio.sleep(0.01)
        h.send_slash(BOB, TABLE, "a5-draw open")
        while not manager.has_table(TABLE):
            await asyncio.sleep(0.01)
        await h.settle()
        h.latency = 0.0
        await h.settle()
        live = [m for m in h.messages(TABLE, include_ephemeral=False) if m.buttons()]
        assert len(live) == 1, [(m.id, m.text[:60]) for m in live]
        assert live[0].id == presenter.message_id(TABLE) != old.id
        assert "Ace-to-Five" in live[0].text  # the new table


async def test_the_closing_edit_comes_after_an_edit_in_flight(tmp_path):
    """The table message is being edited (its board drawing on the render thread) when a
    moderator closes the table, and the closed table's last word is on its way: the
    closed look, without buttons, is what stays, not the open table sent after it."""
    async with DiscordHarness(mod_bot(tmp_path / "u.db"), settle_timeout=20) as h:
        await started(h)
        await h.slash(MOD, TABLE, "abyssinia open")
        for p in (MOD, BOB):
            await h.slash(p, TABLE, "abyssinia join")
        table = h.messages(TABLE, include_ephemeral=False)[-1]
        manager = h.bot.manager  # type: ignore[attr-defined]
        busy = threading.Event()
        BOARD_POOL.submit(busy.wait, 10)  # the board thread drawing others' boards
        h.latency = 0.5  # each request takes this long
        h.send_slash(MOD, TABLE, "abyssinia deal")  # its edit waits on the board
        while manager.view(TABLE).hand is None:
            await asyncio.sleep(0.01)
        h.send_slash(MOD, TABLE, "table-admin close")  # the hand is cancelled
        while manager.has_table(TABLE):
            await asyncio.sleep(0.01)
        # the closed table's notice takes 0.5 s, then its closing edit 0.5 s: the board is
        # drawn while that edit is on its way
        asyncio.get_running_loop().call_later(0.7, busy.set)
        await asyncio.sleep(2.0)
        await h.settle()
        assert h.message(table.id).buttons() == []  # not the open table over the closed one


async def test_the_closing_edit_waits_for_a_slow_answer_that_carries_the_table(tmp_path):
    """Discord is slow to take a click's answer that carries the table (``UPDATE_MESSAGE``,
    an edit of the table message on the interaction's route) when a moderator closes the
    table: the closing edit goes out only once that answer is taken, so the closed look,
    without buttons, is what stays, not the open table the answer carried (issue 35 item
    6)."""
    async with DiscordHarness(mod_bot(tmp_path / "u.db"), settle_timeout=20) as h:
        await started(h)
        await h.slash(MOD, TABLE, "a6-draw open")
        for p in (MOD, BOB):
            await h.slash(p, TABLE, "a6-draw join")
        await h.slash(MOD, TABLE, "a6-draw deal")
        table = h.messages(TABLE, include_ephemeral=False)[-1]
        manager = h.bot.manager  # type: ignore[attr-defined]
        view = manager.view(TABLE)
        player = next(p for p in (MOD, BOB) if uid(p) == view.to_act_user)
        check = next(c["custom_id"] for c in table.buttons() if ":check:" in c["custom_id"])
        h.bot.presenter.answer_within = 2.5  # type: ignore[attr-defined]
        clicked = h.send_click(player, table, check)
        slow = h.slow(rf"POST /interactions/\d+/{clicked.token}/callback$", seconds=1.0)
        while slow.hits == 0:  # the click's answer is on its way, taken in 1 s
            await asyncio.sleep(0.01)
        h.send_slash(MOD, TABLE, "table-admin close")  # the hand is cancelled
        await h.settle()
        assert clicked.callback_type == 7 and not manager.has_table(TABLE)
        assert h.message(table.id).buttons() == []  # the closed look, not the open table


async def test_dm_channels_are_read_when_needed_and_only_the_latest_kept(tmp_path):
    """After a restart no DM channel is loaded until a DM is sent; the book keeps only the
    most recently used ones, and the stored ones still cost no create-DM request."""
    path = tmp_path / "d.db"
    async with DiscordHarness(make_bot(path)) as h:
        await h.connect(GUILD, {TABLE: "poker"}, PLAYERS)
        await open_table(h, "a6-draw", [ALICE, BOB])
        await h.restart(make_bot(path, seed=8))
        dms = h.bot.presenter.dms  # type: ignore[attr-defined]
        assert len(dms) == 0  # nothing read at start
        dms.kept = 1
        start = len(h.sent)
        await h.slash(ALICE, TABLE, "a6-draw deal")
        await h.settle()
        sent = h.sent[start:]
        assert [s for s in sent if s.path == "/users/@me/channels"] == []  # read, not created
        assert len([s for s in sent if s.visibility == "dm"]) == 2  # one DM each
        assert len(dms) == 1
