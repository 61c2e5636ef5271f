"""/privacy show and /privacy delete: end to end, and the erasure on the SQLite file."""

from __future__ import annotations

import asyncio
import json
import sqlite3

from bot.engine import Hand
from bot.engine.record import parse_record
from fakediscord.harness import DiscordHarness
from fakediscord.poker import (
    ALICE,
    BOB,
    CAROL,
    GUILD,
    PLAYERS,
    TABLE,
    make_bot,
    open_table,
)
from tests.support.game import Game
from tests.support.manager_helpers import check_ledger


def uid(user: dict) -> int:
    return int(user["id"])


def rows_naming(path, user_id: int) -> dict[str, int]:
    """How many rows of each table still hold this id (as a number or in a record's JSON)."""
    db = sqlite3.connect(path)
    try:
        found = {
            "accounts": db.execute("SELECT COUNT(*) FROM accounts WHERE user_id=?", (user_id,)),
            "people": db.execute("SELECT COUNT(*) FROM people WHERE user_id=?", (user_id,)),
            "ledger": db.execute(
                "SELECT COUNT(*) FROM ledger JOIN people USING (person_id) WHERE user_id=?",
                (user_id,),
            ),
            "hand_players": db.execute(
                "SELECT COUNT(*) FROM hand_players JOIN people USING (person_id) WHERE user_id=?",
                (user_id,),
            ),
            "seats": db.execute("SELECT COUNT(*) FROM seats WHERE user_id=?", (user_id,)),
            "hands": db.execute(
                "SELECT COUNT(*) FROM hands WHERE header_json LIKE ?", (f"%{user_id}%",)
            ),
            "actions": db.execute(
                "SELECT COUNT(*) FROM hand_actions WHERE action_json LIKE ?", (f"%{user_id}%",)
            ),
        }
        return {name: cursor.fetchone()[0] for name, cursor in found.items()}
    finally:
        db.close()


async def test_privacy_shows_and_erases_a_players_data(tmp_path):
    path = tmp_path / "p.db"
    async with DiscordHarness(make_bot(path)) as h:
        await h.connect(GUILD, {TABLE: "poker"}, PLAYERS)
        nothing = await h.slash(BOB, TABLE, "privacy show")
        assert nothing.ephemeral and "nothing" in nothing.content
        table = await open_table(h, "a5-draw", [ALICE, BOB, CAROL])
        await h.slash(ALICE, TABLE, "a5-draw deal")
        hand_id = h.bot.manager.view(TABLE).hand_id
        # while Bob is in the hand: refused, and nothing changes
        refused = await h.slash(BOB, TABLE, "privacy delete")
        assert refused.ephemeral and "hand still being played" in refused.content
        assert refused.components == []
        await Game(h, TABLE, table).play_hand()
        shown = await h.slash(BOB, TABLE, "privacy show")
        text = str(shown.embeds)
        assert shown.ephemeral and "Bob" in text and str(uid(BOB)) in text
        assert f"<#{TABLE}>" in text and "Hands played: 1" in text
        before = {
            uid(u): await h.bot.store.ledger.balance(GUILD, uid(u)) for u in (ALICE, BOB, CAROL)
        }
        # the confirmation step: nothing is erased before the button
        asked = await h.slash(BOB, TABLE, "privacy delete")
        assert asked.ephemeral and "deleted player" in asked.content
        assert rows_naming(path, uid(BOB))["accounts"] == 1
        button = asked.message.custom_ids()[0]
        done = await h.click(BOB, asked.message, button)
        assert "erased" in done.message.content and done.message.components == []
        # nothing names Bob any more, and he is off the table
        assert set(rows_naming(path, uid(BOB)).values()) == {0}
        assert uid(BOB) not in [s.user_id for s in h.bot.manager.view(TABLE).seats]
        snapshot = check_ledger(path)  # balances, holds and the ledger still add up
        (anon,) = [a for a in snapshot["accounts"] if a[1] < 0]
        assert anon[2] == before[uid(BOB)].balance  # his chips are retired under the placeholder
        # the hand still replays, with the placeholder in Bob's seat
        record = await h.bot.store.history.hand_record(hand_id)
        players = [s["player"] for s in record["seats"]]
        assert str(anon[1]) in players and str(uid(BOB)) not in players
        hand = Hand.replay(parse_record(record))
        assert hand.complete and sum(hand.net().values()) == 0
        # others' histories are whole; the leaderboard does not rank the deleted player
        history = await h.slash(ALICE, TABLE, "history")
        assert f"#{hand_id}" in history.content
        board = await h.slash(ALICE, TABLE, "leaderboard")
        assert "deleted player" not in str(board.embeds) and "Bob" not in str(board.embeds)
        after = await h.bot.store.ledger.balance(GUILD, uid(ALICE))
        assert after.balance == before[uid(ALICE)].balance
        # Bob may come back: a fresh account
        await h.slash(BOB, TABLE, "a5-draw join")
        fresh = await h.bot.store.ledger.balance(GUILD, uid(BOB))
        assert fresh.balance == 200 and fresh.hands_played == 0
        check_ledger(path)


async def test_two_erased_players_of_one_hand_get_distinct_placeholders(tmp_path):
    path = tmp_path / "p.db"
    async with DiscordHarness(make_bot(path)) as h:
        await h.connect(GUILD, {TABLE: "poker"}, PLAYERS)
        table = await open_table(h, "a6-draw", [ALICE, BOB])
        await h.slash(ALICE, TABLE, "a6-draw deal")
        hand_id = h.bot.manager.view(TABLE).hand_id
        await Game(h, TABLE, table).play_hand()
        for user in (ALICE, BOB):
            asked = await h.slash(user, TABLE, "privacy delete")
            await h.click(user, asked.message, asked.message.custom_ids()[0])
        record = await h.bot.store.history.hand_record(hand_id)
        players = [s["player"] for s in record["seats"]]
        assert len(set(players)) == 2 and all(int(p) < 0 for p in players)
        assert {a["player"] for a in record["actions"]} <= set(players)
        assert json.dumps(record).count(str(uid(ALICE))) == 0
        check_ledger(path)
        assert h.bot.manager.view(TABLE).seats == ()


async def test_the_erase_button_answers_before_the_erase_is_written(tmp_path):
    """The confirmation defers at once, then shows the result: an erase held up by the
    database (here another step holding the store for 400 ms, as a long history does)
    never makes Discord wait. The old code answered only after the erase."""
    async with DiscordHarness(make_bot(tmp_path / "p.db"), latency=0.3) as h:
        await h.connect(GUILD, {TABLE: "poker"}, PLAYERS)
        await h.slash(BOB, TABLE, "balance")  # an account to erase
        asked = await h.slash(BOB, TABLE, "privacy delete")
        store = h.bot.store
        held = asyncio.Event()

        async def busy() -> None:
            async with store.db.lock:
                held.set()
                await asyncio.sleep(0.4)

        task = asyncio.create_task(busy())
        await held.wait()
        done = await h.click(BOB, asked.message, asked.message.custom_ids()[0])
        await task
        await h.settle()
        assert done.ack_latency < 0.25
        assert "erased" in h.message(asked.message.id).content
        assert await store.ledger.balance(GUILD, uid(BOB)) is None
