"""The bot under Discord's real conditions: every REST call takes time (fakediscord/harness.py
injects it), and still every interaction is answered at once and the table converges.

"At once" is measured against the delays the tests inject, never against this machine's
speed: an answer that awaited a REST call made after the interaction arrived was sent at
least ``REST`` seconds after it, so every answer must be sent sooner than that.
"""

from __future__ import annotations

import asyncio
import time

import pytest

from bot.engine import Hand
from bot.engine.record import parse_record
from bot.render.plain_text import card_text
from fakediscord.harness import DiscordHarness
from fakediscord.poker import (
    ALICE,
    BOB,
    CAROL,
    GUILD,
    PLAYERS,
    TABLE,
    assert_table_shows_latest,
    burst,
    make_bot,
    open_table,
    step,
    table_message,
    uid,
)
from tests.support.game import Game

REST = 0.3  # seconds every REST call takes, in the tests that bound the first answer
HOLD = 0.4  # seconds another step holds the database, in the test that holds it


@pytest.mark.parametrize(
    ("variant", "count"),
    [("a6-draw", 2), ("a5-draw", 3), ("a5-triple", 2), ("abyssinia", 3)],
)
async def test_whole_hands_of_every_game_under_injected_latency(tmp_path, variant, count):
    players = PLAYERS[:count]
    async with DiscordHarness(make_bot(tmp_path / "p.db"), latency=(0.005, 0.04)) as h:
        await h.connect(GUILD, {TABLE: "poker"}, PLAYERS)
        table = await open_table(h, variant, players)
        await h.slash(players[0], TABLE, f"{variant} deal")
        game = Game(h, TABLE, table, seed=count)
        game.check_privacy()
        await game.play_hand()
        assert_table_shows_latest(h, TABLE)
        results = [m for m in h.messages(TABLE, include_ephemeral=False) if "result" in m.text]
        assert len(results) == 1 and "Chips" in results[0].text


async def test_every_initial_response_is_sent_before_any_rest_call_could_answer(tmp_path):
    """Nothing is awaited before the answer: not the table edit, not a DM, not a render."""
    async with DiscordHarness(make_bot(tmp_path / "p.db"), latency=REST) as h:
        await h.connect(GUILD, {TABLE: "poker"}, PLAYERS)
        table = await open_table(h, "a5-draw", [ALICE, BOB, CAROL])
        await h.slash(CAROL, TABLE, "a5-draw deal")  # a 3-seat deal: an edit and 3 DMs
        await h.click(ALICE, table, table.custom_id_for("My hand"))
        for _ in range(3):  # the first betting round, by button
            to_act = h.bot.manager.view(TABLE).to_act_user
            message = table_message(h, TABLE)
            label = next(b["label"] for b in message.buttons() if b["label"].startswith("C"))
            await h.click(to_act, message, message.custom_id_for(label))
        # the draw: the picker, then a discard from its menu
        actor = h.bot.manager.view(TABLE).to_act_user
        message = table_message(h, TABLE)
        picker = await h.click(actor, message, message.custom_id_for("Draw…"))
        select = next(c for c in picker.message.custom_ids() if c.startswith("pkd:"))
        card = picker.message.component(select)["options"][0]["value"]
        await h.select(actor, picker.message, select, [card])
        await h.slash(ALICE, TABLE, "a5-draw table")
        await h.slash(ALICE, TABLE, "balance")
        replies = h.replies()
        assert len(replies) >= 12
        slow = {r.interaction_id: r.ack_latency for r in replies if r.ack_latency >= REST}
        assert not slow, slow  # each of these awaited a REST call, or longer
        assert_table_shows_latest(h, TABLE)


async def test_a_burst_of_clicks_ends_with_the_table_message_at_the_latest_view(tmp_path):
    async with DiscordHarness(make_bot(tmp_path / "p.db"), latency=(0.02, 0.3)) as h:
        await h.connect(GUILD, {TABLE: "poker"}, PLAYERS)
        table = await open_table(h, "a5-triple", [ALICE, BOB, CAROL])
        await h.slash(ALICE, TABLE, "a5-triple deal")
        edits_before = len(table_edits(h, table.id))
        actions = await burst(h, TABLE)
        assert h.bot.manager.view(TABLE).hand is None
        assert_table_shows_latest(h, TABLE)
        # coalesced: far fewer edits than actions, never two at once
        edits = table_edits(h, table.id)[edits_before:]
        assert len(edits) < actions
        for earlier, later in zip(edits, edits[1:], strict=False):
            assert later.at >= earlier.done_at


def table_edits(h: DiscordHarness, message_id: int):
    path = f"/channels/{TABLE}/messages/{message_id}"
    return [s for s in h.sent if s.method == "PATCH" and s.path == path]


async def test_dms_and_results_arrive_in_the_order_of_the_game(tmp_path):
    async with DiscordHarness(make_bot(tmp_path / "p.db"), latency=(0.02, 0.2)) as h:
        await h.connect(GUILD, {TABLE: "poker"}, PLAYERS)
        players = [ALICE, BOB, CAROL]
        await open_table(h, "a5-triple", players)
        hand_ids = []
        for _ in range(2):
            await h.slash(ALICE, TABLE, "a5-triple deal")
            hand_ids.append(h.bot.manager.view(TABLE).hand_id)
            await burst(h, TABLE, draw=2)
        for player in players:
            expected = []
            for hand_id in hand_ids:  # the player's cards at each deal (a draw's are answered)
                record = parse_record(await h.bot.store.history.hand_record(hand_id))
                record.actions = []
                hand = Hand(record)
                expected.append(list(hand.holdings[hand.seat_of(str(uid(player)))]))
            dms = [m for m in h.dms(player) if m.attachments]  # not the probe sent at join
            assert len(dms) == len(expected)
            for dm, cards in zip(dms, expected, strict=True):
                assert all(card_text(c) in dm.text for c in cards), (dm.text, cards)
        # each hand's result is posted after the last DM of that hand and before the next deal
        public = h.messages(TABLE, include_ephemeral=False)
        results = [m for m in public if "result" in m.text]
        assert all(f"Hand #{i}" in r.text for r, i in zip(results, hand_ids, strict=True))
        sends = {s.message_id: s for s in h.sent if s.method == "POST" and s.message_id}
        second_hand_dms = []
        for p in players:
            cards = [d for d in h.dms(p) if d.attachments]
            second_hand_dms += cards[len(cards) // 2 :]
        first_dm_of_second_hand = min(sends[m.id].at for m in second_hand_dms)
        assert sends[results[0].id].at < first_dm_of_second_hand


async def test_a_click_during_a_slow_table_edit_is_not_lost(tmp_path):
    async with DiscordHarness(make_bot(tmp_path / "p.db"), latency=REST) as h:
        await h.connect(GUILD, {TABLE: "poker"}, PLAYERS)
        table = await open_table(h, "a6-draw", [ALICE, BOB])
        await h.slash(ALICE, TABLE, "a6-draw deal")
        first = asyncio.create_task(step(h, TABLE))
        for _ in range(200):
            if any(s.done_at is None for s in table_edits(h, table.id)):
                break  # the table edit for the first action is in flight
            await asyncio.sleep(0.005)
        else:
            raise AssertionError("no table edit was made")
        turn = h.bot.manager.view(TABLE).turn
        second = await step(h, TABLE)  # the next player acts meanwhile
        await first
        assert second.ack_latency < REST  # it did not wait for the edit in flight
        assert h.bot.manager.view(TABLE).turn == turn + 1
        assert_table_shows_latest(h, TABLE)


async def test_account_commands_answer_before_their_database_read(tmp_path):
    """/balance, /refill, /history and /leaderboard defer at once: a busy database (here
    the store held by another step for ``HOLD`` seconds) never makes Discord wait."""
    async with DiscordHarness(make_bot(tmp_path / "p.db"), latency=REST) as h:
        await h.connect(GUILD, {TABLE: "poker"}, PLAYERS)
        await h.slash(ALICE, TABLE, "balance")  # an account to show
        store = h.bot.store  # type: ignore[attr-defined]
        for command in ("balance", "refill", "history", "leaderboard"):
            held = asyncio.Event()
            since: list[float] = []

            async def busy(held: asyncio.Event, since: list[float]) -> None:
                async with store.db.lock:  # what a long write of another table does
                    since.append(time.monotonic())  # the harness's clock
                    held.set()
                    await asyncio.sleep(HOLD)

            task = asyncio.create_task(busy(held, since))
            await held.wait()
            released = since[0] + HOLD  # the store is free no sooner than this
            reply = await h.slash(ALICE, TABLE, command)
            await task
            assert reply.ack_latency is not None
            answered = reply.dispatched_at + reply.ack_latency
            # an answer after the database read would come after the hold, and a REST call
            assert answered < released and reply.ack_latency < REST, (command, reply.ack_latency)
            text = (
                reply.content
                + str(reply.embeds)
                + "".join(f.content + str(f.embeds) for f in reply.followups)
            )
            assert text.strip(), command  # and the answer still came
