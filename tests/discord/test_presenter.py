"""The presenter against Discord's failures: refused edits of old messages (30046),
server errors, permanent errors, restarts and shutdown."""

from __future__ import annotations

import io
import random
import re
import time

import discord
import pytest

from bot.engine import VARIANTS
from bot.engine.simulate import play_random_hand
from bot.tables.models import SeatState, TableSettings
from bot.tables.table import Table
from bot.ui.render import table_embed, table_files
from fakediscord.harness import DiscordHarness, HarnessError, users
from fakediscord.poker import (
    ALICE,
    BOB,
    GUILD,
    PLAYERS,
    TABLE,
    assert_table_shows_latest,
    make_bot,
    open_table,
    step,
    table_message,
    uid,
)

DM_SEND = rf"POST /channels/(?!{TABLE})\d+/messages$"  # a message to any channel but the table's


def public(h: DiscordHarness) -> list:
    return h.messages(TABLE, include_ephemeral=False)


async def test_an_edit_refused_with_30046_reposts_the_table_and_disables_the_old_buttons(
    tmp_path,
):
    path = tmp_path / "p.db"
    async with DiscordHarness(make_bot(path)) as h:
        await h.connect(GUILD, {TABLE: "poker"}, PLAYERS)
        old = await open_table(h, "a6-draw", [ALICE, BOB])
        refused = h.fail(rf"PATCH /channels/{TABLE}/messages/{old.id}$", status=400, code=30046)
        await h.slash(ALICE, TABLE, "a6-draw deal")
        assert refused.hits == 1
        new = table_message(h, TABLE)
        assert new.id != old.id and public(h)[-1].id == new.id
        assert_table_shows_latest(h, TABLE)
        stale = h.message(old.id).buttons()
        assert stale and all(b.get("disabled") for b in stale)
        # play on: the new message is edited in place, also after a restart
        await step(h, TABLE)
        await h.restart(make_bot(path, seed=8))
        await step(h, TABLE)
        assert table_message(h, TABLE).id == new.id
        assert len(h.message(new.id).history) >= 2
        assert_table_shows_latest(h, TABLE)


async def test_a_table_message_near_an_hour_old_is_reposted_instead_of_edited(tmp_path):
    async with DiscordHarness(make_bot(tmp_path / "p.db")) as h:
        await h.connect(GUILD, {TABLE: "poker"}, PLAYERS)
        old = await open_table(h, "a5-draw", [ALICE, BOB])
        edits = len(h.message(old.id).history)
        h.bot.presenter.clock = lambda: time.time() + 3600
        await h.slash(ALICE, TABLE, "a5-draw deal")
        assert table_message(h, TABLE).id != old.id
        assert_table_shows_latest(h, TABLE)
        # the old message was edited once more, only to disable its buttons
        assert len(h.message(old.id).history) == edits + 1
        assert all(b.get("disabled") for b in h.message(old.id).buttons())


async def test_server_errors_are_retried_until_the_table_and_the_dms_are_shown(tmp_path):
    async with DiscordHarness(make_bot(tmp_path / "p.db")) as h:
        await h.connect(GUILD, {TABLE: "poker"}, PLAYERS)
        table = await open_table(h, "a5-draw", [ALICE, BOB])
        h.bot.presenter.retry_delays = (0.05, 0.1)
        edit = h.fail(rf"PATCH /channels/{TABLE}/messages/{table.id}$", status=503, times=2)
        dm = h.fail(DM_SEND, status=503)
        timeout = h.fail(DM_SEND, timeout=True)
        await h.slash(ALICE, TABLE, "a5-draw deal")
        assert (edit.hits, dm.hits, timeout.hits) == (2, 1, 1)
        assert table_message(h, TABLE).id == table.id
        assert_table_shows_latest(h, TABLE)
        hands = [[m for m in h.dms(p) if m.attachments] for p in (ALICE, BOB)]
        assert [len(dms) for dms in hands] == [1, 1]  # delivered once each


async def test_a_rate_limit_that_outlasts_discord_py_s_retries_is_tried_again_later(tmp_path):
    """discord.py waits out a 429 and tries again, five tries in all; the fifth 429 reaches
    the bot as a plain ``HTTPException`` (status 429). That is no permanent failure: the
    table message and the DMs are tried again until they are shown, with no error logged
    (the harness raises on an error). Seen in a fresh clone's CI under load, when a
    flood of posts kept the global limit spent."""
    async with DiscordHarness(make_bot(tmp_path / "p.db")) as h:
        await h.connect(GUILD, {TABLE: "poker"}, PLAYERS)
        table = await open_table(h, "a5-draw", [ALICE, BOB])
        h.bot.presenter.retry_delays = (0.05, 0.1)
        edit = h.fail(
            rf"PATCH /channels/{TABLE}/messages/{table.id}$", status=429, retry_after=0.01, times=7
        )
        dm = h.fail(DM_SEND, status=429, retry_after=0.01, times=5)
        await h.slash(ALICE, TABLE, "a5-draw deal")
        assert (edit.hits, dm.hits) == (7, 5)
        assert table_message(h, TABLE).id == table.id
        assert_table_shows_latest(h, TABLE)
        hands = [[m for m in h.dms(p) if m.attachments] for p in (ALICE, BOB)]
        assert [len(dms) for dms in hands] == [1, 1]  # delivered once each


async def test_a_permanent_failure_is_logged_with_its_context_and_the_game_goes_on(tmp_path):
    async with DiscordHarness(make_bot(tmp_path / "p.db")) as h:
        await h.connect(GUILD, {TABLE: "poker"}, PLAYERS)
        await open_table(h, "a6-draw", [ALICE, BOB])
        h.fail(DM_SEND, status=400, code=50035, times=2)
        with pytest.raises(HarnessError) as failure:
            await h.slash(ALICE, TABLE, "a6-draw deal")
        logged = str(failure.value)
        assert re.search(rf"hand DM to \d+ at table {TABLE} failed: 400 50035", logged)
        assert failure.value.reply.ephemeral and "✅" not in failure.value.reply.content
        await step(h, TABLE)  # the table goes on
        assert_table_shows_latest(h, TABLE)


async def test_a_restart_keeps_the_recent_log_of_the_hand_in_play(tmp_path):
    path = tmp_path / "p.db"
    async with DiscordHarness(make_bot(path)) as h:
        await h.connect(GUILD, {TABLE: "poker"}, PLAYERS)
        await open_table(h, "a5-triple", [ALICE, BOB])
        await h.slash(ALICE, TABLE, "a5-triple deal")
        for _ in range(6):
            await step(h, TABLE, draw=1)
        before = h.bot.presenter.recent(TABLE)
        await h.restart(make_bot(path, seed=10))
        assert h.bot.presenter.recent(TABLE) == before
        await step(h, TABLE)
        assert h.bot.presenter.recent(TABLE)[:-1] == before[1:]
        assert_table_shows_latest(h, TABLE)
        assert before[-1] in str(table_message(h, TABLE).embeds)


async def test_a_hand_settled_at_start_up_posts_its_result_and_updates_the_table(tmp_path):
    path = tmp_path / "p.db"
    async with DiscordHarness(make_bot(path)) as h:
        await h.connect(GUILD, {TABLE: "poker"}, PLAYERS)
        table = await open_table(h, "a5-draw", [ALICE, BOB])
        await h.slash(ALICE, TABLE, "a5-draw deal")
        view = h.bot.manager.view(TABLE)
        first = view.to_act_user
        second = uid(BOB) if first == uid(ALICE) else uid(ALICE)
        await h.slash(first, TABLE, "a5-draw bet")
        # the last action reaches the database, then the bot stops before settling the hand
        await h.bot.store.hands.append_action(
            view.hand_id, 1, {"player": str(second), "action": "fold"}
        )
        await h.restart(make_bot(path, seed=11))
        results = [m for m in public(h) if "result" in m.text]
        assert len(results) == 1 and f"Hand #{view.hand_id}" in results[0].text
        assert h.bot.manager.view(TABLE).hand is None
        assert table_message(h, TABLE).id == table.id
        assert_table_shows_latest(h, TABLE)
        assert "Deal" in [b["label"] for b in table_message(h, TABLE).buttons()]


async def test_close_stops_the_gateway_then_shows_the_queue_then_closes_the_store(tmp_path):
    async with DiscordHarness(make_bot(tmp_path / "p.db"), latency=0.1) as h:
        await h.connect(GUILD, {TABLE: "poker"}, PLAYERS)
        table = await open_table(h, "a5-draw", [ALICE, BOB])
        bot, gateway = h.bot, h.bot.ws
        stored_until = []
        close_store = bot.store.close

        async def closing_store() -> None:
            stored_until.append(time.monotonic())
            await close_store()

        bot.store.close = closing_store
        # a deal just before SIGTERM (as the turn timer or auto-deal could make): its table
        # edit and DMs are only queued when close() starts
        await bot.manager.deal(TABLE)
        start = len(h.sent)
        await bot.close()
        shown = h.sent[start:]
        assert shown and gateway.closed_at <= min(s.at for s in shown)
        assert [len([m for m in h.dms(p) if m.attachments]) for p in (ALICE, BOB)] == [1, 1]
        assert "hand #" in str(h.message(table.id).embeds)
        assert max(s.done_at for s in shown) <= stored_until[0] <= h._session.closed_at


async def test_the_board_of_a_hand_that_ended_but_is_not_settled_yet_is_drawn():
    """Between a hand's last action and its settlement (both wait on the database) the
    presenter may show the table as it is then: the hand complete, still in play."""
    hand = play_random_hand("abyssinia", 3, random.Random(4))
    assert hand.complete
    table = Table(
        channel_id=TABLE,
        guild_id=GUILD,
        variant=VARIANTS["abyssinia"],
        settings=TableSettings(seat_limit=8, turn_timeout=60),
        seats=[SeatState(i, 100 + i, f"Player {i}") for i in range(3)],
        hand=hand,
        hand_id=12,
        hand_users={f"p{i}": 100 + i for i in range(3)},
    )
    view = table.view()
    (board,) = await table_files(view)
    assert board.filename == "board.png" and board.fp.read().startswith(b"\x89PNG")
    embed = table_embed(view, [])
    assert embed.title == "Abyssinia — hand #12" and embed.image.url == "attachment://board.png"


async def test_past_128_dm_channels_a_hand_dm_is_still_one_request(tmp_path):
    """discord.py remembers the last 128 DM channels only; the bot remembers its players'."""
    others = users(len(PLAYERS) + 130)[len(PLAYERS) :]
    async with DiscordHarness(make_bot(tmp_path / "p.db")) as h:
        await h.connect(GUILD, {TABLE: "poker"}, PLAYERS + others)
        await open_table(h, "a5-draw", [ALICE, BOB])  # their DMs are tried as they join
        for other in others:  # the bot writes to 130 other people (players at other tables)
            await h.bot.create_dm(discord.Object(uid(other)))
        start = len(h.sent)
        await h.slash(ALICE, TABLE, "a5-draw deal")
        sent = h.sent[start:]
        assert len([s for s in sent if s.visibility == "dm"]) == 2
        assert [s for s in sent if s.path == "/users/@me/channels"] == []


async def _garbage_while(play) -> list:
    """What only the garbage collector would free (cycles) of what ``play()`` left behind."""
    import gc

    gc.collect()
    gc.set_debug(gc.DEBUG_SAVEALL)  # what a collection finds goes to gc.garbage
    try:
        await play()
        gc.collect()
        return list(gc.garbage)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()


async def test_the_views_sent_with_table_messages_leave_nothing_for_the_garbage_collector(
    tmp_path,
):
    """A table message's view and its buttons point at each other: kept as they are after the
    edit, each would be a cycle that only a full collection (the event loop stopped) frees."""
    async with DiscordHarness(make_bot(tmp_path / "p.db")) as h:
        await h.connect(GUILD, {TABLE: "poker"}, PLAYERS)
        await open_table(h, "a5-draw", [ALICE, BOB])
        await h.slash(ALICE, TABLE, "a5-draw deal")

        async def play() -> None:
            for _ in range(4):
                await step(h, TABLE)
            await h.settle()

        garbage = await _garbage_while(play)
        assert h.bot.presenter.edits >= 4  # type: ignore[attr-defined]
        assert [o for o in garbage if isinstance(o, discord.ui.View)] == []
        assert_table_shows_latest(h, TABLE)


async def test_answered_commands_and_clicks_leave_nothing_for_the_garbage_collector(tmp_path):
    """discord.py's Interaction and its response point at each other (and the view it builds
    to dispatch a click, with its buttons; and File.close() makes each image's buffer point
    at itself): each interaction would otherwise leave ~35 objects that only a full
    collection frees."""
    async with DiscordHarness(make_bot(tmp_path / "p.db")) as h:
        await h.connect(GUILD, {TABLE: "poker"}, PLAYERS)
        await open_table(h, "a5-draw", [ALICE, BOB])

        async def play() -> None:
            await h.slash(ALICE, TABLE, "a5-draw deal")
            await step(h, TABLE)  # a command
            view = h.bot.manager.view(TABLE)  # type: ignore[attr-defined]
            to_act = next(p for p in PLAYERS if uid(p) == view.to_act_user)
            message = table_message(h, TABLE)
            await h.click(to_act, message, message.custom_id_for("Check"))  # a button
            await h.settle()

        garbage = await _garbage_while(play)
        kinds = discord.Interaction | discord.ui.View | io.BytesIO  # BytesIO: images sent
        assert [o for o in garbage if isinstance(o, kinds)] == []
