"""End to end: the real bot, driven through real discord.py with gateway payloads.

The harness (fakediscord/harness.py) feeds INTERACTION_CREATE payloads built from the
command schema the bot synced, and records every request the bot makes. The
engine's own state is read only as the oracle of which cards are hidden.
"""

from __future__ import annotations

import asyncio
import random

import discord
import pytest

from bot.client import PokerBot
from bot.engine.cards import format_card
from bot.render.plain_text import card_text
from bot.settings import Settings
from fakediscord.harness import DiscordHarness, HarnessError
from fakediscord.poker import (
    ALICE,
    BOB,
    CAROL,
    DAVE,
    GUILD,
    PLAYERS,
    TABLE,
    make_bot,
    open_table,
    uid,
)
from tests.support.game import Game, card_pattern

OTHER = 1310000000000000002
EPHEMERAL = 64


@pytest.mark.parametrize(
    ("variant", "count"),
    [("a6-draw", 2), ("a5-draw", 3), ("a5-triple", 3), ("abyssinia", 3)],
)
async def test_a_whole_hand_of_each_variant_through_slash_commands_and_buttons(
    tmp_path, variant, count
):
    players = PLAYERS[:count]
    async with DiscordHarness(make_bot(tmp_path / "p.db")) as h:
        await h.connect(GUILD, {TABLE: "poker"}, PLAYERS)
        table = await open_table(h, variant, players)
        dealt = await h.slash(players[-1], TABLE, f"{variant} deal")
        assert dealt.ephemeral
        game = Game(h, TABLE, table)
        game.check_privacy()
        await game.play_hand()
        game.check_privacy()
        # the table message was edited in place, and the result was posted publicly
        assert h.message(table.id).id == table.id
        results = [m for m in h.messages(TABLE, include_ephemeral=False) if "result" in m.text]
        assert len(results) == 1
        assert "Chips" in results[0].text
        # the ledger moved exactly the hand's chips
        board = await h.slash(ALICE, TABLE, "leaderboard")
        assert not board.ephemeral and "net chips won" in str(board.embeds)
        balances = [await h.bot.store.ledger.balance(GUILD, uid(p)) for p in players]
        assert sum(a.balance for a in balances) == 200 * count
        assert all(a.hands_played == 1 and a.held == 0 for a in balances)


def test_the_privacy_oracle_catches_every_notation():
    from bot.engine import parse_cards

    pattern = card_pattern(parse_cards("As Td"))
    for text in ("A♠", "As", "T♦", "10♦", "[Td]"):
        assert pattern.search(text), text
    for text in ("Has", "Asking", "2♠", "Tdx"):
        assert not pattern.search(text), text


async def test_dealt_cards_go_by_dm_and_closed_dms_are_told_privately_at_join(tmp_path):
    async with DiscordHarness(make_bot(tmp_path / "p.db"), dms_closed={uid(BOB)}) as h:
        await h.connect(GUILD, {TABLE: "poker"}, PLAYERS)
        await h.slash(ALICE, TABLE, "a5-draw open")
        table = h.message(h.bot.presenter.message_id(TABLE))  # type: ignore[attr-defined]
        alice_join = await h.slash(ALICE, TABLE, "a5-draw join")
        assert alice_join.followups == []  # her DMs are open: nothing to say
        (probe,) = h.dms(ALICE)
        assert "send your cards here" in probe.content
        bob_join = await h.slash(BOB, TABLE, "a5-draw join")
        (warning,) = bob_join.followups
        assert warning.ephemeral and "My hand" in warning.content
        assert h.dms(BOB) == []
        # joining again tries closed DMs once more (issue 22); the deal does not try them
        await h.slash(BOB, TABLE, "a5-draw leave")
        assert len((await h.slash(BOB, TABLE, "a5-draw join")).followups) == 1
        refused = [s for s in h.sent if isinstance(s.error, discord.Forbidden)]
        assert len(refused) == 2
        await h.slash(ALICE, TABLE, "a5-draw deal")
        assert [s for s in h.sent if isinstance(s.error, discord.Forbidden)] == refused
        alice_dm = [m for m in h.dms(ALICE) if m.attachments]
        assert len(alice_dm) == 1 and alice_dm[0].attachments == ["hand.png"]
        mine = h.bot.manager.my_hand(TABLE, uid(ALICE)).cards
        assert all(card_text(c) in alice_dm[0].text for c in mine)
        # no public word about anyone's DMs, ever
        assert "direct messages" not in h.public_text()
        # "My hand" shows Bob his cards, ephemerally
        shown = await h.click(BOB, table, h.message(table.id).custom_id_for("My hand"))
        assert shown.ephemeral and shown.attachments == ["hand.png"]
        game = Game(h, TABLE, table)
        await game.play_hand()
        game.check_privacy()
        assert "direct messages" not in h.public_text()


async def test_out_of_turn_unseated_and_duplicate_clicks_are_refused(tmp_path):
    async with DiscordHarness(make_bot(tmp_path / "p.db")) as h:
        await h.connect(GUILD, {TABLE: "poker"}, PLAYERS)
        table = await open_table(h, "a6-draw", [ALICE, BOB])
        await h.slash(ALICE, TABLE, "a6-draw deal")
        view = h.bot.manager.view(TABLE)
        to_act = next(p for p in PLAYERS if uid(p) == view.to_act_user)
        waiting = ALICE if to_act is BOB else BOB
        check = h.message(table.id).custom_id_for("Check")
        before = h.message(table.id).text
        out_of_turn = await h.click(waiting, table, check)
        assert out_of_turn.ephemeral and "not your turn" in out_of_turn.content
        stranger = await h.click(CAROL, table, check)  # an outsider is told how to join
        assert stranger.ephemeral and "not seated" in stranger.content
        assert "/a6-draw join" in stranger.content
        slash_stranger = await h.slash(CAROL, TABLE, "a6-draw fold")
        assert slash_stranger.ephemeral and "/a6-draw join" in slash_stranger.content
        illegal = await h.slash(to_act, TABLE, "a6-draw fold")
        assert illegal.ephemeral and "nothing is owed" in illegal.content
        assert "legal now: check, bet" in illegal.content.lower()
        assert h.message(table.id).text == before  # nothing changed
        # two clicks of the same button at once: exactly one is applied
        first, second = await asyncio.gather(
            h.click(to_act, table, check), h.click(to_act, table, check)
        )
        texts = sorted([first.content or "✅", second.content or "✅"])
        assert sum("earlier turn" in t for t in texts) == 1
        assert len(h.bot.manager.table(TABLE).hand.actions) == 1
        await h.slash(CAROL, TABLE, "a6-draw join")
        latecomer = await h.slash(CAROL, TABLE, "a6-draw fold")
        assert latecomer.ephemeral and "not dealt into this hand" in latecomer.content


async def test_bad_input_gets_a_clear_ephemeral_answer(tmp_path):
    async with DiscordHarness(make_bot(tmp_path / "p.db")) as h:
        await h.connect(GUILD, {TABLE: "poker", OTHER: "other"}, PLAYERS)
        nothing = await h.slash(ALICE, OTHER, "a5-draw join")
        assert nothing.ephemeral and "no table" in nothing.content.lower()
        await open_table(h, "a5-draw", [ALICE, BOB])
        wrong_game = await h.slash(ALICE, TABLE, "abyssinia join")
        assert wrong_game.ephemeral and "/a5-draw" in wrong_game.content
        again = await h.slash(ALICE, TABLE, "a5-draw open")
        assert again.ephemeral and "already has" in again.content
        with pytest.raises(HarnessError, match="above max_value 5"):  # Discord itself refuses
            await h.slash(ALICE, OTHER, "a5-draw open", seats=7)
        no_hand = await h.slash(ALICE, TABLE, "a5-draw call")
        assert no_hand.ephemeral and "deal" in no_hand.content
        await h.slash(ALICE, TABLE, "a5-draw deal")
        view = h.bot.manager.view(TABLE)
        to_act = next(p for p in PLAYERS if uid(p) == view.to_act_user)
        early = await h.slash(to_act, TABLE, "a5-draw discard", cards="8c")
        assert early.ephemeral and "can't discard now" in early.content
        assert "Legal now: check, bet." in early.content
        for _ in range(2):
            view = h.bot.manager.view(TABLE)
            actor = next(p for p in PLAYERS if uid(p) == view.to_act_user)
            await h.slash(actor, TABLE, "a5-draw check")
        actor = next(p for p in PLAYERS if uid(p) == h.bot.manager.view(TABLE).to_act_user)
        garbage = await h.slash(actor, TABLE, "a5-draw discard", cards="Zz")
        assert garbage.ephemeral and "'Zz' is not a card" in garbage.content
        mine = h.bot.manager.my_hand(TABLE, uid(actor)).cards
        foreign = next(c for c in h.bot.manager.table(TABLE).hand.header.deck if c not in mine)
        wrong = await h.slash(actor, TABLE, "a5-draw discard", cards=format_card(foreign))
        assert wrong.ephemeral and "don't hold" in wrong.content
        # autocomplete offers the caller's own cards only
        choices = await h.autocomplete(actor, TABLE, "a5-draw discard", "cards", "")
        offered = {c["value"] for c in choices}
        assert "pat" in offered and {format_card(c) for c in mine} <= offered


async def test_abyssinia_buy_choices_show_card_and_price(tmp_path):
    async with DiscordHarness(make_bot(tmp_path / "p.db")) as h:
        await h.connect(GUILD, {TABLE: "poker"}, PLAYERS)
        table = await open_table(h, "abyssinia", [ALICE, BOB])
        await h.slash(ALICE, TABLE, "abyssinia deal")
        market = h.bot.manager.view(TABLE).hand.market
        choices = await h.autocomplete(ALICE, TABLE, "abyssinia buy", "from", "")
        names = {c["value"]: c["name"] for c in choices}
        left = market[0]
        assert card_text(left.card) in names["left"] and str(left.price) in names["left"]
        assert "blind" in names
        buttons = [b["label"] for b in h.message(table.id).buttons()]
        assert any(card_text(left.card) in label for label in buttons)
        assert "board.png" in h.message(table.id).attachments


async def test_restart_in_the_middle_of_a_hand_keeps_the_table_and_its_buttons(tmp_path):
    path = tmp_path / "p.db"
    async with DiscordHarness(make_bot(path)) as h:
        await h.connect(GUILD, {TABLE: "poker"}, PLAYERS)
        table = await open_table(h, "a5-triple", [ALICE, BOB, CAROL])
        await h.slash(ALICE, TABLE, "a5-triple deal")
        game = Game(h, TABLE, table, seed=3)
        for i in range(6):
            await game.step(use_slash=i % 2 == 0)
        before = h.bot.manager.view(TABLE)
        await h.restart(make_bot(path, seed=99))
        after = h.bot.manager.view(TABLE)
        assert (after.hand_id, after.turn, after.to_act_user) == (
            before.hand_id,
            before.turn,
            before.to_act_user,
        )
        # the old table message's buttons still work after the restart
        game = Game(h, TABLE, table, seed=4)
        await game.play_hand()
        game.check_privacy()
        board = await h.slash(BOB, TABLE, "leaderboard")
        text = " ".join(str(e) for e in board.embeds)
        assert all(p["global_name"] in text for p in (ALICE, BOB, CAROL))
        history = await h.slash(BOB, TABLE, "history")
        assert history.ephemeral and "Triple Draw" in history.content


async def test_general_commands(tmp_path):
    async with DiscordHarness(make_bot(tmp_path / "p.db")) as h:
        await h.connect(GUILD, {TABLE: "poker"}, PLAYERS)
        balance = await h.slash(DAVE, TABLE, "balance")
        assert balance.ephemeral and "200" in balance.content
        refill = await h.slash(DAVE, TABLE, "refill")
        assert refill.ephemeral and "No refill" in refill.content
        rules = await h.slash(DAVE, TABLE, "rules", game="a6-draw")
        assert rules.ephemeral and "6-4-3-2-A" in str(rules.embeds)
        empty = await h.slash(DAVE, TABLE, "history")
        assert empty.ephemeral and "no finished hands" in empty.content


async def test_an_unexpected_failure_is_logged_and_answered_with_a_private_apology(tmp_path):
    async with DiscordHarness(make_bot(tmp_path / "p.db")) as h:
        await h.connect(GUILD, {TABLE: "poker"}, PLAYERS)
        table = await open_table(h, "a5-draw", [ALICE, BOB])
        await h.slash(ALICE, TABLE, "a5-draw deal")
        view = h.bot.manager.view(TABLE)
        to_act = next(p for p in PLAYERS if uid(p) == view.to_act_user)
        await h.bot.store.db.conn.close()  # the database goes away under the bot
        sent_before = len(h.sent)
        with pytest.raises(
            HarnessError
        ) as failure:  # the harness turns logged errors into failures
            await h.click(to_act, table, h.message(table.id).custom_id_for("Check"))
        assert "component pk:" in str(failure.value) and "failed (guild" in str(failure.value)
        clicked = failure.value.reply
        assert clicked.ephemeral and clicked.content.startswith("Sorry, something went wrong")
        public = [s for s in h.sent[sent_before:] if s.visibility == "public"]
        assert not any("Traceback" in s.text or "Error" in s.text for s in public)
        # the action was not applied: memory did not run ahead of the database
        assert len(h.bot.manager.table(TABLE).hand.actions) == 0


async def test_the_turn_timer_acts_and_the_table_message_shows_it(tmp_path):
    settings = Settings(_env_file=None, database_path=tmp_path / "p.db", next_hand_delay=0)  # type: ignore[call-arg]
    # A 0.2 s timer, below the operator's minimum of 5 s, keeps the test fast.
    settings = settings.model_copy(update={"turn_timeout": 0.2})
    async with DiscordHarness(PokerBot(settings, rng=random.Random(5))) as h:
        await h.connect(GUILD, {TABLE: "poker"}, PLAYERS)
        table = await open_table(h, "a5-draw", [ALICE, BOB])
        await h.slash(ALICE, TABLE, "a5-draw deal")
        for _ in range(50):  # both players sleep through the whole hand
            if h.bot.manager.view(TABLE).hand is None:
                break
            await asyncio.sleep(0.1)
            await h.settle()
        assert h.bot.manager.view(TABLE).hand is None
        text = h.message(table.id).text
        assert "time's up" in text and "sitting out" in text  # two timeouts in a row each
        refused = await h.slash(ALICE, TABLE, "a5-draw deal")
        assert refused.ephemeral and "sitting out" in refused.content
