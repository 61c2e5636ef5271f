"""What players read, through the real discord.py: refusals said once and pointing the
right way, private hands that name their table, names that stay names, honest errors."""

from __future__ import annotations

import discord
import pytest

from bot.engine.cards import RANKS, rank_of
from bot.render.plain_text import card_text
from fakediscord.harness import (
    DiscordHarness,
    HarnessError,
    Msg,
    Reply,
    make_member,
    make_user,
    users,
)
from fakediscord.poker import GUILD, TABLE, make_bot, open_table, uid

PLAYERS = users(4)
ALICE, BOB, CAROL, DAVE = PLAYERS


def to_act(h: DiscordHarness) -> dict:
    view = h.bot.manager.view(TABLE)
    return next(p for p in PLAYERS if uid(p) == view.to_act_user)


async def click(h: DiscordHarness, user: dict, table: Msg, label: str) -> Reply:
    message = h.message(table.id)
    button = next(b for b in message.buttons() if b["label"].startswith(label))
    return await h.click(user, message, button["custom_id"])


async def passive_step(h: DiscordHarness, table: Msg) -> Reply:
    """Check, call or stand pat for whoever is to act: the hand goes to a showdown."""
    user = to_act(h)
    labels = [b["label"] for b in h.message(table.id).buttons()]
    for label in ("Check", "Call", "Stand pat"):
        if any(x.startswith(label) for x in labels):
            return await click(h, user, table, label)
    raise AssertionError(f"no passive action among {labels}")


async def to_the_draw(h: DiscordHarness, table: Msg) -> None:
    """Deal, then check or call until the draw."""
    await h.slash(ALICE, TABLE, f"{h.bot.manager.view(TABLE).variant} deal")
    while h.bot.manager.view(TABLE).hand.phase != "draw":
        await passive_step(h, table)


# ----------------------------------------------------------------- refusals


async def test_refusals_say_why_once_and_point_the_right_way(tmp_path):
    async with DiscordHarness(make_bot(tmp_path / "p.db")) as h:
        await h.connect(GUILD, {TABLE: "poker"}, PLAYERS)
        table = await open_table(h, "a5-triple", [ALICE, BOB])
        # no hand yet: one sentence about it, naming this game's deal
        no_hand = await h.slash(ALICE, TABLE, "a5-triple call")
        assert no_hand.content.count("No hand") == 1, no_hand.content
        assert "/a5-triple deal" in no_hand.content and "No hand is running" not in no_hand.content
        # a stranger pressing Deal is told to join, not that `deal` starts a hand
        stranger = await click(h, CAROL, table, "Deal")
        assert "/a5-triple join" in stranger.content, stranger.content
        assert "`deal` starts one" not in stranger.content
        await h.slash(ALICE, TABLE, "a5-triple deal")
        actor = to_act(h)
        waiting = BOB if actor is ALICE else ALICE
        name = actor["global_name"]
        out_of_turn = await h.slash(waiting, TABLE, "a5-triple fold")
        assert out_of_turn.content == f"It is not your turn: waiting for {name}."
        # the article fits the game: no "a Ace-to-Five"
        again = await h.slash(ALICE, TABLE, "a5-draw open")
        assert "a Ace" not in again.content and "Ace-to-Five Triple Draw" in again.content


async def test_an_outsider_is_told_how_to_join_from_any_button(tmp_path):
    async with DiscordHarness(make_bot(tmp_path / "p.db")) as h:
        await h.connect(GUILD, {TABLE: "poker"}, PLAYERS)
        table = await open_table(h, "a5-draw", [ALICE, BOB])
        await to_the_draw(h, table)
        for label in ("My hand", "Draw"):
            answer = await click(h, CAROL, table, label)
            assert answer.ephemeral and "/a5-draw join" in answer.content, answer.content


async def test_the_draw_menu_names_the_real_command(tmp_path):
    async with DiscordHarness(make_bot(tmp_path / "p.db")) as h:
        await h.connect(GUILD, {TABLE: "poker"}, PLAYERS)
        table = await open_table(h, "a5-draw", [ALICE, BOB])
        await to_the_draw(h, table)
        picker = await click(h, to_act(h), table, "Draw")
        text = str(picker.embeds)
        assert "/…" not in text and "/a5-draw discard" in text
        garbage = await h.slash(to_act(h), TABLE, "a5-draw discard", cards="Q" * 80)
        assert "'QQQQQQQQQQQQ…' is not a card" in garbage.content, garbage.content


# ----------------------------------------------------------------- private hands


async def test_dms_and_my_hand_name_the_channel_and_the_hand(tmp_path):
    async with DiscordHarness(make_bot(tmp_path / "p.db")) as h:
        await h.connect(GUILD, {TABLE: "poker"}, PLAYERS)
        table = await open_table(h, "a6-draw", [ALICE, BOB])
        await h.slash(ALICE, TABLE, "a6-draw deal")
        hand_id = h.bot.manager.view(TABLE).hand_id
        where = f"<#{TABLE}> · hand #{hand_id}"
        assert where in h.dms(ALICE)[-1].text  # after the DM check made when she joined
        mine = await click(h, BOB, table, "My hand")
        assert mine.ephemeral and where in str(mine.embeds)
        acted = await h.slash(to_act(h), TABLE, "a6-draw check")  # a command's private answer
        assert acted.ephemeral and where in str(acted.embeds)


# ----------------------------------------------------------------- slash command schema


async def test_open_offers_each_game_its_own_seat_range(tmp_path):
    async with DiscordHarness(make_bot(tmp_path / "p.db")) as h:
        await h.connect(GUILD, {TABLE: "poker"}, PLAYERS)
        ranges = {}
        for command in h.command_schema():
            opened = next((o for o in command.get("options", []) if o["name"] == "open"), None)
            if opened is None:
                continue
            seats = next(o for o in opened["options"] if o["name"] == "seats")
            ranges[command["name"]] = (seats["min_value"], seats["max_value"])
        assert ranges == {
            "a6-draw": (2, 5),
            "a5-draw": (2, 5),
            "a5-triple": (2, 6),
            "abyssinia": (2, 8),
            "mixed": (2, 8),  # a mixed table's games decide (refused beyond their smallest)
        }


# ----------------------------------------------------------------- leaderboard


async def test_leaderboard_lists_only_players_and_says_when_a_page_is_beyond_the_end(tmp_path):
    async with DiscordHarness(make_bot(tmp_path / "p.db")) as h:
        await h.connect(GUILD, {TABLE: "poker"}, PLAYERS)
        await h.slash(DAVE, TABLE, "balance")  # an account, but never a hand
        table = await open_table(h, "a5-draw", [ALICE, BOB])
        await h.slash(ALICE, TABLE, "a5-draw deal")
        while h.bot.manager.view(TABLE).hand is not None:
            await passive_step(h, table)
        board = str((await h.slash(CAROL, TABLE, "leaderboard")).embeds)
        assert "Alice" in board and "Bob" in board
        assert "Dave" not in board and "in 0 hands" not in board
        beyond = await h.slash(CAROL, TABLE, "leaderboard", page=99)
        text = str(beyond.embeds)
        assert "only 1 page" in text and "Page 2 of 2" not in text, text


# ----------------------------------------------------------------- showdown


def a5_order(cards) -> list[int]:
    """An independent oracle: pairs first, then highest first, the ace lowest."""
    low = {r: (r + 1) % 13 for r in range(13)}
    counts = {rank_of(c): sum(rank_of(d) == rank_of(c) for d in cards) for c in cards}
    return sorted(cards, key=lambda c: (counts[rank_of(c)], low[rank_of(c)]), reverse=True)


async def test_showdown_hands_are_sorted_and_each_is_named(tmp_path):
    async with DiscordHarness(make_bot(tmp_path / "p.db", seed=11)) as h:
        await h.connect(GUILD, {TABLE: "poker"}, PLAYERS)
        table = await open_table(h, "a5-draw", [ALICE, BOB, CAROL])
        await h.slash(ALICE, TABLE, "a5-draw deal")
        hand = h.bot.manager.table(TABLE).hand
        while h.bot.manager.view(TABLE).hand is not None:
            await passive_step(h, table)
        result = next(m for m in h.messages(TABLE, include_ephemeral=False) if "result" in m.text)
        showdown = next(f for f in result.embeds[0]["fields"] if f["name"] == "Showdown")
        lines = showdown["value"].split("\n")
        assert len(lines) == 3
        for user, line in zip((ALICE, BOB, CAROL), sorted(lines), strict=True):
            held = hand.holdings[hand.seat_of(str(uid(user)))]
            cards = " ".join(card_text(c) for c in a5_order(held))
            assert line.startswith(f"**{user['global_name']}**: {cards} — "), line
            named = line.split(" — ", 1)[1]
            top = RANKS[rank_of(a5_order(held)[0])]
            assert named and ("low" in named or "pair" in named or top in named), line


# ----------------------------------------------------------------- names


async def test_a_player_who_folds_and_leaves_is_named_in_the_result(tmp_path):
    async with DiscordHarness(make_bot(tmp_path / "p.db")) as h:
        await h.connect(GUILD, {TABLE: "poker"}, PLAYERS)
        table = await open_table(h, "a6-draw", [ALICE, BOB, CAROL])
        await h.slash(ALICE, TABLE, "a6-draw deal")
        await click(h, to_act(h), table, "Bet")
        folder = to_act(h)
        await click(h, folder, table, "Fold")
        left = await h.slash(folder, TABLE, "a6-draw leave")
        assert left.content == "You left the table."
        await h.restart(make_bot(tmp_path / "p.db", seed=8))  # the name is kept with the hand
        while h.bot.manager.view(TABLE).hand is not None:
            await passive_step(h, table)
        public = h.public_text()
        assert str(uid(folder)) not in public.replace(f'"{uid(folder)}"', "")
        result = next(m for m in h.messages(TABLE, include_ephemeral=False) if "result" in m.text)
        assert f"{folder['global_name']} -" in str(result.embeds)


async def test_names_are_escaped_and_nobody_is_pinged(tmp_path):
    sly = make_user(1300000000000000009, "sly", "**Sly** @everyone")
    async with DiscordHarness(make_bot(tmp_path / "p.db"), dms_closed={uid(sly)}) as h:
        await h.connect(GUILD, {TABLE: "poker"}, [*PLAYERS, sly])
        table = await open_table(h, "a5-draw", [ALICE, sly])
        await h.slash(ALICE, TABLE, "a5-draw deal")  # Sly's DMs are closed: told privately
        seats = next(f for f in h.message(table.id).embeds[0]["fields"] if f["name"] == "Seats")
        assert "\\*\\*Sly\\*\\*" in seats["value"], seats
        assert not [m for m in h.messages(TABLE, include_ephemeral=False) if "Sly" in m.content]
        moderator = discord.Permissions(manage_channels=True, use_application_commands=True)
        h.add_member(make_member(ALICE, permissions=moderator))
        await h.slash(ALICE, TABLE, "table-admin close")  # a public notice, in words
        bodies = [sent.json if isinstance(sent.json, dict) else {} for sent in h.public_payloads()]
        datas = [body.get("data", body) for body in bodies]  # a callback wraps its message
        with_content = [data for data in datas if data.get("content")]  # embeds never ping
        assert with_content
        for data in with_content:
            assert data.get("allowed_mentions", {}).get("parse") == [], data


# ----------------------------------------------------------------- honest errors


async def test_a_failed_reply_to_an_applied_action_says_it_was_applied(tmp_path):
    async with DiscordHarness(make_bot(tmp_path / "p.db")) as h:
        await h.connect(GUILD, {TABLE: "poker"}, PLAYERS)
        table = await open_table(h, "a5-draw", [ALICE, BOB])
        await to_the_draw(h, table)
        actor = to_act(h)
        picker = (await click(h, actor, table, "Draw")).message  # private: it keeps its buttons
        pat = next(c for c in picker.custom_ids() if ":pat:" in c)
        turn = h.bot.manager.view(TABLE).turn
        answer = h._answer_webhook
        failed = []

        def flaky(sent, method, path, body):  # Discord fails the answer that shows the hand
            if not failed and "hand.png" in sent.file_names:
                failed.append(sent)
                raise discord.HTTPException(_Response(500), {"message": "boom", "code": 0})
            return answer(sent, method, path, body)

        h._answer_webhook = flaky
        with pytest.raises(HarnessError) as logged:  # the failure is logged as an error
            await h.click(actor, picker, pat)
        assert "the answer to an applied discard failed" in str(logged.value)
        reply = logged.value.reply
        assert failed and "Nothing was changed" not in reply.content
        assert "applied" in reply.content and "table message" in reply.content
        assert h.bot.manager.view(TABLE).turn == turn + 1
        # the same click again: told it was already applied, not only that it is stale
        again = await h.click(actor, picker, pat)
        assert "already applied" in again.content, again.content
        assert h.bot.manager.view(TABLE).turn == turn + 1


class _Response:
    def __init__(self, status: int) -> None:
        self.status, self.reason, self.headers = status, "Server Error", {}


async def test_slash_command_errors_are_logged_with_the_command(tmp_path):
    async with DiscordHarness(make_bot(tmp_path / "p.db")) as h:
        await h.connect(GUILD, {TABLE: "poker"}, PLAYERS)
        await open_table(h, "a5-draw", [ALICE, BOB])
        await h.slash(ALICE, TABLE, "a5-draw deal")
        actor = to_act(h)
        await h.bot.store.db.conn.close()  # the database goes away under the bot
        with pytest.raises(HarnessError) as logged:
            await h.slash(actor, TABLE, "a5-draw check")
        assert "/a5-draw check" in str(logged.value)
        assert "component None" not in str(logged.value)
