"""End to end through the real discord.py: one person and two computer players.

``/<game> open bots:2`` seats the opener and two computer players; the person plays
whole hands of every game by slash commands and buttons while the computer players
act by themselves (pause 0), and the real ledger is never touched.
"""

from __future__ import annotations

import dataclasses
import random
import re

import pytest

from bot.client import PokerBot
from bot.engine import Hand
from bot.engine.cards import FULL_DECK
from bot.engine.record import HandRecord, parse_record
from bot.settings import Settings
from fakediscord.harness import DiscordHarness
from fakediscord.poker import ALICE, GUILD, PLAYERS, TABLE, uid
from tests.support.game import Game, card_pattern


def seen_by(record: HandRecord, player: str) -> set[int]:
    """Every card ``player`` held at some point of the hand, or saw face up."""
    hand = Hand(dataclasses.replace(record, actions=[]))
    seen: set[int] = set()
    for action in [None, *record.actions]:
        if action is not None:
            hand.apply(action)
        seen |= set(hand.holdings[hand.seat_of(player)])
        if hand.variant.split:  # Abyssinia: everything bought is face up
            seen |= {c for held in hand.holdings for c in held}
            seen |= {c for c in hand.market if c is not None}
    return seen


def practice_bot(path) -> PokerBot:
    settings = Settings(  # type: ignore[call-arg]
        _env_file=None, database_path=path, turn_timeout=3600, next_hand_delay=0, bot_pause=0
    )
    return PokerBot(settings, rng=random.Random(11))


async def play_with_bots(game: Game, hands: int) -> None:
    """Deal and play ``hands`` hands: Alice through Discord, the computer players alone."""
    driver = game.h.bot.practice  # type: ignore[attr-defined]
    for n in range(hands):
        dealt = await game.h.slash(ALICE, TABLE, f"{game.manager.view(TABLE).variant} deal")
        assert dealt.ephemeral, dealt.content
        for i in range(500):
            await driver.settle()
            view = game.manager.view(TABLE)
            if view.hand is None:
                break
            assert view.to_act_user == uid(ALICE)
            await game.step(use_slash=(i + n) % 3 == 2)
        else:
            raise AssertionError("the hand did not finish")


@pytest.mark.parametrize("variant", ["a6-draw", "a5-draw", "a5-triple", "abyssinia"])
async def test_one_person_and_two_computer_players_play_whole_hands(tmp_path, variant):
    async with DiscordHarness(practice_bot(tmp_path / "p.db")) as h:
        await h.connect(GUILD, {TABLE: "poker"}, PLAYERS)
        opened = await h.slash(ALICE, TABLE, f"{variant} open", bots=2)
        assert opened.deferred and opened.message.deleted  # the table message is the answer
        table = h.messages(TABLE, include_ephemeral=False)[-1]
        seats = h.bot.manager.view(TABLE).seats  # type: ignore[attr-defined]
        assert [s.bot for s in seats] == [None, "normal", "normal"]
        assert h.message(table.id).text.count("🤖") >= 2  # marked as bots on the table
        game = Game(h, TABLE, table, seed=3)
        await play_with_bots(game, 1)
        game.check_privacy()
        results = [m for m in h.messages(TABLE, include_ephemeral=False) if "result" in m.text]
        assert len(results) == 1
        # Between hands, the review button shows Alice's decisions next to the computer
        # level's, privately, naming no card she never saw.
        button = game.table.custom_id_for("📘 Review my last hand")
        review = await h.click(ALICE, game.table, button)
        assert review.ephemeral
        text = review.content + "".join(f.content for f in review.followups)
        assert "📘" in text and "normal" in text, text
        hand_id = game.manager.table(TABLE).last_practice[0]
        record = parse_record(await h.bot.store.history.hand_record(hand_id))  # type: ignore[attr-defined]
        mine = [a for a in record.actions if a.player == str(uid(ALICE))]
        assert len(re.findall(r"^\d+\. ", text, re.M)) == len(mine) > 0
        pattern = card_pattern(set(FULL_DECK) - seen_by(record, str(uid(ALICE))))
        assert pattern is not None and not pattern.search(text), text
        # A hint on Alice's turn is private; the real ledger never moved.
        await h.slash(ALICE, TABLE, f"{variant} deal")
        await h.bot.practice.settle()  # type: ignore[attr-defined]
        assert h.bot.manager.view(TABLE).to_act_user == uid(ALICE)  # type: ignore[attr-defined]
        hint = await h.slash(ALICE, TABLE, f"{variant} hint")
        assert hint.ephemeral and "💡" in hint.content
        if variant != "abyssinia":  # there the log still shows the last hand's open cards
            game.check_privacy()
        account = await h.bot.store.ledger.balance(GUILD, uid(ALICE))  # type: ignore[attr-defined]
        assert account.balance == 200 and account.hands_played == 0
        history = await h.slash(ALICE, TABLE, "history")
        assert "practice" in (history.content + str(history.embeds))
