"""Clicks on the table message are answered with the table itself (UPDATE_MESSAGE, or a
deferral and an edit of the original response): no channel-route edit for what an
interaction carried; timers, computer players and slash commands edit through the channel."""

from __future__ import annotations

import asyncio
import threading
import time

from bot.render.images import BOARD_POOL
from fakediscord.harness import DiscordHarness, Sent
from fakediscord.poker import (
    GUILD,
    PLAYERS,
    TABLE,
    assert_table_shows_latest,
    make_bot,
    open_table,
    table_message,
)
from tests.support.clicks import patient, to_act

ALICE, BOB = PLAYERS[:2]


def channel_edits(sent: list[Sent]) -> list[Sent]:
    return [s for s in sent if s.transport == "http" and s.path.startswith(f"/channels/{TABLE}/")]


async def test_a_click_is_answered_by_update_message_carrying_the_new_table(tmp_path):
    async with DiscordHarness(make_bot(tmp_path / "c.db")) as h:
        await h.connect(GUILD, {TABLE: "poker"}, PLAYERS)
        patient(h)
        table = await open_table(h, "a6-draw", [ALICE, BOB])
        dealt = await h.click(ALICE, table, h.message(table.id).custom_id_for("Deal"))
        assert dealt.callback_type == 7 and dealt.message.id == table.id
        assert dealt.followups == []  # no private message: Alice's cards went by DM
        assert h.dms(ALICE)[-1].attachments == ["hand.png"]
        assert channel_edits(dealt.sent) == []  # the table went out with the answer
        assert "Check" in [b["label"] for b in h.message(table.id).buttons()]
        assert_table_shows_latest(h, TABLE)
        player = to_act(h)
        clicked = await h.click(player, table, h.message(table.id).custom_id_for("Check"))
        assert clicked.callback_type == 7
        shown = clicked.callback_data  # the table after the check, in the answer itself
        assert "checks" in str(shown["embeds"]) and clicked.followups == []  # nothing private
        assert channel_edits(clicked.sent) == []
        assert_table_shows_latest(h, TABLE)


async def test_a_slow_step_is_deferred_at_once_and_the_table_follows_as_the_original(tmp_path):
    async with DiscordHarness(make_bot(tmp_path / "c.db")) as h:
        await h.connect(GUILD, {TABLE: "poker"}, PLAYERS)
        table = await open_table(h, "a5-draw", [ALICE, BOB])
        h.bot.presenter.answer_within = 0.0  # any step is "slow"
        dealt = await h.click(ALICE, table, h.message(table.id).custom_id_for("Deal"))
        assert dealt.callback_type == 6
        first, *rest = [s for s in dealt.sent if s.interaction_token == dealt.token]
        assert first.path.endswith("/callback") and first.json["type"] == 6
        assert any(s.method == "PATCH" and s.path.endswith("/messages/@original") for s in rest)
        assert channel_edits(dealt.sent) == []
        assert dealt.followups == [] and h.dms(ALICE)[-1].attachments == ["hand.png"]
        assert_table_shows_latest(h, TABLE)


async def test_a_refused_click_is_answered_privately_and_changes_nothing(tmp_path):
    async with DiscordHarness(make_bot(tmp_path / "c.db")) as h:
        await h.connect(GUILD, {TABLE: "poker"}, PLAYERS)
        table = await open_table(h, "a6-draw", [ALICE, BOB])
        await h.slash(ALICE, TABLE, "a6-draw deal")
        waiting = ALICE if to_act(h) is BOB else BOB
        before = h.message(table.id).payload
        refused = await h.click(waiting, table, h.message(table.id).custom_id_for("Check"))
        assert refused.callback_type == 4 and refused.ephemeral
        assert "not your turn" in refused.content
        assert h.message(table.id).payload == before


async def test_the_result_of_a_hand_a_click_ended_is_a_public_followup(tmp_path):
    async with DiscordHarness(make_bot(tmp_path / "c.db")) as h:
        await h.connect(GUILD, {TABLE: "poker"}, PLAYERS)
        patient(h)
        table = await open_table(h, "a6-draw", [ALICE, BOB])
        await h.slash(ALICE, TABLE, "a6-draw deal")
        await h.click(to_act(h), table, h.message(table.id).custom_id_for("Bet 1"))
        folded = await h.click(to_act(h), table, h.message(table.id).custom_id_for("Fold"))
        assert folded.callback_type == 7
        result = [m for m in folded.followups if not m.ephemeral]
        assert len(result) == 1 and "Hand" in str(result[0].embeds)
        posts = [s for s in folded.sent if s.transport == "http" and s.method == "POST"]
        assert not [s for s in posts if s.path == f"/channels/{TABLE}/messages"]
        assert_table_shows_latest(h, TABLE)


async def test_a_slash_command_and_a_timer_move_are_one_channel_edit_each(tmp_path):
    async with DiscordHarness(make_bot(tmp_path / "c.db")) as h:
        await h.connect(GUILD, {TABLE: "poker"}, PLAYERS)
        h.bot.manager.seating.turn_timeout = 1.0  # type: ignore[attr-defined]  # the default at open
        await open_table(h, "a6-draw", [ALICE, BOB])
        start = len(h.sent)
        await h.slash(ALICE, TABLE, "a6-draw deal")  # a slash command: the channel edits
        message = table_message(h, TABLE).id
        edits = [s for s in channel_edits(h.sent[start:]) if s.method == "PATCH"]
        assert [s.path for s in edits] == [f"/channels/{TABLE}/messages/{message}"]
        start = len(h.sent)
        table = h.bot.manager.table(TABLE)  # type: ignore[attr-defined]
        moves = len(table.hand.actions)
        while len(table.hand.actions) == moves:  # the timer moves for the player to act
            await h.settle()
        await h.settle()
        timed_out = len(table.hand.actions) - moves
        edits = [s for s in channel_edits(h.sent[start:]) if s.method == "PATCH"]
        assert len(edits) == timed_out >= 1
        assert [s for s in h.sent[start:] if s.transport == "webhook"] == []
        assert_table_shows_latest(h, TABLE)


async def test_a_closed_tables_presenter_lane_is_freed(tmp_path):
    async with DiscordHarness(make_bot(tmp_path / "c.db")) as h:
        await h.connect(GUILD, {TABLE: "poker"}, PLAYERS)
        old = await open_table(h, "a6-draw", [ALICE, BOB])
        presenter = h.bot.presenter  # type: ignore[attr-defined]
        lane = presenter.lanes[TABLE]
        tasks = list(lane.tasks)
        assert len(tasks) == 2 and not any(t.done() for t in tasks)
        await h.slash(BOB, TABLE, "a6-draw leave")
        closed = await h.slash(ALICE, TABLE, "a6-draw close")
        assert "closed" in closed.content.lower()
        await h.settle()
        assert TABLE not in presenter.lanes and not presenter._retired
        assert all(t.done() for t in tasks) and lane.tasks == []
        assert h.message(old.id).buttons() == []  # the last word was still shown
        # a table opened here again gets a lane (and a message) of its own
        new = await open_table(h, "a6-draw", [ALICE, BOB])
        assert presenter.lanes[TABLE] is not lane and new.id != old.id
        assert_table_shows_latest(h, TABLE)


async def test_an_unchanged_abyssinia_board_is_not_uploaded_again(tmp_path):
    async with DiscordHarness(make_bot(tmp_path / "c.db")) as h:
        await h.connect(GUILD, {TABLE: "poker"}, PLAYERS)
        table = await open_table(h, "abyssinia", [ALICE, BOB])
        await h.slash(ALICE, TABLE, "abyssinia deal")
        (board,) = h.message(table.id).payload["attachments"]
        start = len(h.sent)
        joined = await h.slash(PLAYERS[2], TABLE, "abyssinia join")  # seats change, the board not
        assert "seat" in joined.content
        edits = [s for s in channel_edits(h.sent[start:]) if s.method == "PATCH"]
        assert len(edits) == 1 and edits[0].files == []  # nothing uploaded
        assert h.message(table.id).payload["attachments"] == [board]  # the same attachment kept
        assert "Carol" in h.message(table.id).text
        assert_table_shows_latest(h, TABLE)
        start = len(h.sent)
        await h.click(to_act(h), table, h.message(table.id).custom_id_for("Blind (?)"))
        (sent,) = [s for s in h.sent[start:] if s.path.endswith("/callback")]
        assert sent.file_names == ["board.png"]  # a card bought: a new board
        (new,) = h.message(table.id).payload["attachments"]
        assert new["id"] != board["id"]


async def test_later_edits_use_the_latest_clicks_token_until_it_expires(tmp_path):
    async with DiscordHarness(make_bot(tmp_path / "c.db")) as h:
        await h.connect(GUILD, {TABLE: "poker"}, PLAYERS)
        patient(h)
        table = await open_table(h, "a6-draw", [ALICE, BOB])
        dealt = await h.click(ALICE, table, h.message(table.id).custom_id_for("Deal"))
        assert dealt.callback_type == 7
        start = len(h.sent)
        await h.slash(to_act(h), TABLE, "a6-draw check")  # a slash command: no table to carry
        sent = h.sent[start:]
        assert [s for s in channel_edits(sent) if s.method == "PATCH"] == []
        (edit,) = [s for s in sent if s.method == "PATCH"]
        assert edit.interaction_token == dealt.token and edit.path.endswith("/@original")
        assert_table_shows_latest(h, TABLE)
        presenter = h.bot.presenter  # type: ignore[attr-defined]
        presenter.clock = lambda: time.time() + 15 * 60  # the click's token has expired
        start = len(h.sent)
        await h.slash(to_act(h), TABLE, "a6-draw check")
        edits = [s for s in h.sent[start:] if s.method == "PATCH"]
        assert [s.transport for s in edits] == ["http"]  # through the channel again
        assert_table_shows_latest(h, TABLE)


async def test_a_click_whose_board_is_not_drawn_in_time_is_deferred_and_the_board_follows(
    tmp_path,
):
    """The deadline covers the whole answer, not only the step: with the board's render
    thread busy (other tables' boards, under load), the click is acknowledged at its
    deadline, and the table with its new board follows as the original response."""
    # a deck of its own: no other test has drawn (and cached) the boards of this hand
    async with DiscordHarness(make_bot(tmp_path / "c.db", seed=2212)) as h:
        await h.connect(GUILD, {TABLE: "poker"}, PLAYERS)
        table = await open_table(h, "abyssinia", [ALICE, BOB])
        await h.slash(ALICE, TABLE, "abyssinia deal")
        h.bot.presenter.answer_within = 1.0  # type: ignore[attr-defined]
        busy = threading.Event()
        BOARD_POOL.submit(busy.wait, 10)  # the board thread drawing others' boards for 2 s
        asyncio.get_running_loop().call_later(2.0, busy.set)
        start = time.monotonic()
        (left,) = [b for b in h.message(table.id).buttons() if b["label"].startswith("Left")]
        bought = await h.click(to_act(h), table, left["custom_id"])
        assert bought.callback_type == 6  # acknowledged without waiting for the board
        assert bought.ack_latency is not None and bought.ack_latency < 1.9
        first, *rest = [s for s in bought.sent if s.interaction_token == bought.token]
        assert first.path.endswith("/callback") and first.json["type"] == 6
        (edit,) = [s for s in rest if s.method == "PATCH" and s.path.endswith("/@original")]
        assert edit.file_names == ["board.png"] and edit.at - start >= 1.9  # drawn, then sent
        assert channel_edits(bought.sent) == []
        assert_table_shows_latest(h, TABLE)
