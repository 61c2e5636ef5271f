"""Practice tables: computer players through the manager's door, on real databases.

A person and computer players play whole hands of every game; the practice hands
are recorded and replayable but the real ledger (accounts, ledger rows, the
leaderboard) is exactly as before.
"""

from __future__ import annotations

import random

import pytest

from bot.engine import Hand, parse_header
from bot.engine.record import parse_actions
from bot.practice.driver import PracticeDriver
from bot.tables.manager import TableManager
from bot.tables.models import Code, Done, TableEvent
from tests.support.databases import Databases
from tests.support.manager_helpers import (
    GRANT,
    GUILD,
    VARIANT_IDS,
    Recorder,
    close_manager,
    ledger_snapshot,
    open_manager,
    refused,
    seat_players,
    step,
)

CH = 700
A, B = 21, 22


def replay(record: dict) -> Hand:
    header = parse_header(record)
    header.actions = list(parse_actions(record["actions"]))  # type: ignore[arg-type]
    return Hand.replay(header)


async def practice_table(m: TableManager, variant: str, levels: list[str]) -> PracticeDriver:
    driver = PracticeDriver(m, pause=0, rng=random.Random(5))
    await m.open_table(GUILD, CH, variant)
    await m.join(CH, A, "anna")
    for i, level in enumerate(levels):
        await m.add_bot(CH, A, level, f"bot{i} ({level})")
    return driver


async def play_hand(
    m: TableManager, driver: PracticeDriver, seed: str, person: int = A, deal: bool = True
) -> None:
    """Play one hand to its end (dealing it first): the person by a scripted agent, the
    computer players by the driver."""
    if deal:
        await m.deal(CH, person)
    for _ in range(5000):
        await driver.settle()
        view = m.view(CH)
        if view.hand is None:
            return
        if view.to_act_user == person:
            await step(m, CH, seed)
    raise AssertionError("the hand did not end")


@pytest.mark.parametrize("variant", VARIANT_IDS)
async def test_practice_hands_move_no_chips_and_are_recorded(
    databases: Databases, variant: str
) -> None:
    path = databases.target("p.db")
    store, m = await open_manager(path, seed=3)
    driver = await practice_table(m, variant, ["normal", "hard"])
    before = ledger_snapshot(path)
    board_before = await store.ledger.leaderboard(GUILD, 1)
    finished = []

    def listen(event: TableEvent) -> None:
        if event.kind == "finished":
            finished.append(event)

    m.subscribe(listen)
    for n in range(3):
        await play_hand(m, driver, f"practice-{variant}-{n}")
    assert len(finished) == 3
    after = ledger_snapshot(path)
    assert after["accounts"] == before["accounts"]
    assert after["ledger"] == before["ledger"]
    assert await store.ledger.leaderboard(GUILD, 1) == board_before
    account = await store.ledger.balance(GUILD, A)
    assert account is not None and account.held == 0 and account.balance == GRANT
    # Recorded, replayable, and in the person's history marked as practice.
    history = await store.history.recent_hands(GUILD, A)
    assert [h.hand_id for h in history] == [e.hand_id for e in reversed(finished)]
    total = 0
    for summary, event in zip(history, reversed(finished), strict=True):
        assert summary.practice
        record = await store.history.hand_record(summary.hand_id)
        assert replay(record).net() == event.result.net
        assert summary.net == event.result.net[str(A)]
        total += summary.net
    seat = m.table(CH).seat_of(A)
    assert seat is not None and seat.stack == GRANT + total  # no refill was needed
    await driver.close()
    await close_manager(store, m)


async def test_a_deadline_on_a_computer_players_turn_makes_its_move_and_a_restart_resumes(
    databases: Databases,
) -> None:
    path = databases.target("p.db")
    store, m = await open_manager(path, seed=4)
    driver = PracticeDriver(m, pause=3600, rng=random.Random(1))  # they would wait an hour
    await m.open_table(GUILD, CH, "a5-draw")
    await m.join(CH, A, "anna")
    await m.add_bot(CH, A, "easy", "bot (easy)")
    view = await m.deal(CH, A)
    if view.to_act_user == A:
        await step(m, CH, "t")
    view = m.view(CH)
    assert view.to_act_user is not None and view.to_act_user < 0
    recorder = Recorder()
    m.subscribe(recorder)
    # The driver would wait an hour; the turn's deadline makes the move instead (on the
    # old code ``expire`` returned False for a computer player and the hand hung).
    assert await m.expire(CH)
    after = m.view(CH)
    assert after.turn == view.turn + 1
    moves = [e for e in recorder.events if e.move is not None]
    assert moves[0].kind == "action" and not moves[0].move.timeout  # its own move, no timeout
    bot = next(s for s in after.seats if s.bot)
    assert bot.timeouts == 0 and not bot.sitting_out
    if after.hand is not None and after.to_act_user == A:
        await step(m, CH, "t")
    view = m.view(CH)
    if view.hand is None or view.to_act_user != bot.user_id:  # deal a hand where it is to act
        while m.view(CH).hand is not None:
            if m.view(CH).to_act_user == A:
                await step(m, CH, "t2")
            else:
                await m.expire(CH)
        view = await m.deal(CH, A)
        if view.to_act_user == A:
            await step(m, CH, "t3")
        view = m.view(CH)
    assert view.to_act_user == bot.user_id
    await driver.close()
    await close_manager(store, m)
    # After a restart the seat, its level and stack, and the turn are back; it acts.
    store, m = await open_manager(path, seed=5)
    bot = next(s for s in m.table(CH).seats if s.bot)
    assert bot.bot == "easy" and bot.stack is not None and bot.name == "bot (easy)"
    driver = PracticeDriver(m, pause=0, rng=random.Random(2))
    driver.resume()
    await driver.settle()
    assert m.view(CH).turn > view.turn
    await driver.close()
    await close_manager(store, m)


async def test_seating_computer_players_between_hands_only(databases: Databases) -> None:
    store, m = await open_manager(databases.target("p.db"), seed=6)
    driver = PracticeDriver(m, pause=3600)
    await m.open_table(GUILD, CH, "abyssinia")
    assert (await refused(m.add_bot(CH, A, "normal", "x"))).code == Code.NOT_SEATED
    await m.join(CH, A, "anna")
    assert (await refused(m.add_bot(CH, A, "genius", "x"))).code == Code.UNKNOWN_LEVEL
    assert (await refused(m.remove_bot(CH, A))).code == Code.NO_BOT
    done = await m.add_bot(CH, A, "hard", "🤖 Cousin (hard)")
    assert done.code == Done.BOT_SEATED and done.params["seat"] == 2
    assert m.table(CH).practice
    await m.deal(CH, A)
    assert (await refused(m.add_bot(CH, A, "easy", "x"))).code == Code.HAND_RUNNING
    assert (await refused(m.remove_bot(CH, A))).code == Code.HAND_RUNNING
    await driver.close()
    await close_manager(store, m)


async def test_the_last_person_leaving_stands_the_computer_players_up(
    databases: Databases,
) -> None:
    store, m = await open_manager(databases.target("p.db"), seed=7)
    driver = PracticeDriver(m, pause=0, rng=random.Random(3))
    await m.open_table(GUILD, CH, "a6-draw")
    await m.join(CH, A, "anna")
    await m.add_bot(CH, A, "normal", "b1")
    await m.add_bot(CH, A, "easy", "b2")
    await m.join(CH, B, "ben")
    assert (await m.leave(CH, B)).code == Done.LEFT
    assert len(m.table(CH).seats) == 3  # anna is still there
    await m.deal(CH, A)
    assert (await m.leave(CH, A)).code == Done.LEAVING  # in the hand: after it
    await play_hand(m, driver, "leave", deal=False)
    assert m.table(CH).seats == []  # everyone stood up: the table idles
    assert (await refused(m.deal(CH))).code == Code.TOO_FEW_PLAYERS
    await driver.close()
    await close_manager(store, m)


async def test_practice_stacks_are_refilled_between_hands(databases: Databases) -> None:
    store, m = await open_manager(databases.target("p.db"), seed=8)
    driver = await practice_table(m, "a5-triple", ["easy"])
    seat = m.table(CH).seat_of(A)
    assert seat is not None
    seat.stack = 20  # below triple draw's minimum of 48, as after a losing run
    await m.deal(CH, A)
    hand = m.table(CH).hand
    assert hand is not None
    assert {s.player: s.stack for s in hand.header.seats}[str(A)] == GRANT
    assert seat.stack == GRANT
    await driver.close()
    await close_manager(store, m)


async def test_hints_at_practice_tables_only_and_on_your_turn(databases: Databases) -> None:
    store, m = await open_manager(databases.target("p.db"), seed=9)
    driver = PracticeDriver(m, pause=3600)
    await m.open_table(GUILD, CH, "a5-draw")
    await m.join(CH, A, "anna")
    await m.join(CH, B, "ben")
    await m.deal(CH, A)
    assert (await refused(m.hint(CH, A))).code == Code.NOT_PRACTICE
    await driver.close()
    await close_manager(store, m)
    store, m = await open_manager(databases.target("q.db"), seed=10)
    driver = PracticeDriver(m, pause=3600)
    await m.open_table(GUILD, CH, "a5-draw")
    await m.join(CH, A, "anna")
    await m.add_bot(CH, A, "easy", "b1")
    await m.add_bot(CH, A, "hard", "b2")
    view = await m.deal(CH, A)
    while m.view(CH).to_act_user != A:  # the computer players wait an hour: act for them
        view = m.view(CH)
        user = view.to_act_user
        assert user is not None
        assert (await refused(m.hint(CH, A))).code == Code.NOT_YOUR_TURN
        hand = m.table(CH).hand
        assert hand is not None
        move = hand.default_action()
        assert move is not None
        await m.act(CH, user, move.action, cards=[], source=move.source, turn=view.turn)
    advice = await m.hint(CH, A)
    assert advice.level == "hard"  # the table's strongest level
    assert advice.action.player == str(A)
    assert advice.action.action in m.view(CH).hand.legal
    await driver.close()
    await close_manager(store, m)


async def test_a_kicked_or_erased_last_person_stands_the_computer_players_up(
    databases: Databases,
) -> None:
    path = databases.target("p.db")
    store, m = await open_manager(path, seed=12)
    driver = await practice_table(m, "a5-draw", ["normal", "easy"])
    assert await m.kick(CH, A)  # between hands: at once
    assert m.table(CH).seats == []
    await driver.close()
    await close_manager(store, m)
    store, m = await open_manager(path, seed=12)  # and so it was stored
    assert m.table(CH).seats == []
    await m.join(CH, A, "anna")
    await m.add_bot(CH, A, "hard", "b")
    await m.forget_player(GUILD, A)
    assert m.table(CH).seats == []
    await close_manager(store, m)
    store, m = await open_manager(path, seed=12)
    assert m.table(CH).seats == []
    await close_manager(store, m)


async def test_the_last_practice_hand_is_reviewed_for_its_players_only(
    databases: Databases,
) -> None:
    store, m = await open_manager(databases.target("p.db"), seed=13)
    await seat_players(m, 800, "a6-draw", [A, B])  # a real table: nothing to review
    await m.deal(800, A)
    while m.view(800).hand is not None:
        await step(m, 800, "real")
    assert await m.review_last(800, A) is None
    assert m.view(800).review_hand_id is None
    driver = await practice_table(m, "a5-triple", ["easy", "hard"])
    assert await m.review_last(CH, A) is None  # no hand yet
    await play_hand(m, driver, "review")
    hand_id = m.view(CH).review_hand_id
    assert hand_id is not None
    last = await m.review_last(CH, A)
    assert last is not None and last.hand_id == hand_id and last.level == "hard"
    record = await store.history.hand_record(hand_id)
    mine = [a for a in record["actions"] if a["player"] == str(A)]
    assert [r.index for r in last.decisions] == [
        i for i, a in enumerate(record["actions"]) if a["player"] == str(A)
    ]
    assert len(mine) == len(last.decisions) > 0
    assert await m.review_last(CH, B) is None  # Ben was not in it
    await driver.close()
    await close_manager(store, m)


async def test_the_opener_may_close_their_practice_table_with_its_computer_players(
    databases: Databases,
) -> None:
    store, m = await open_manager(databases.target("p.db"), seed=14)
    await m.open_table(GUILD, CH, "a6-draw", opener=A)
    await m.join(CH, A, "anna")
    await m.add_bot(CH, A, "normal", "b1")
    await m.join(CH, B, "ben")
    refusal = await refused(m.close_table(CH, A, moderator=False))
    assert refusal.code == Code.CLOSE_OTHERS_SEATED and refusal.params["count"] == 1  # ben
    await m.leave(CH, B)
    assert await m.close_table(CH, A, moderator=False)  # the computer player is no one
    assert not m.has_table(CH)
    await close_manager(store, m)


async def test_erasing_a_practice_player_keeps_their_hands_replayable(
    databases: Databases,
) -> None:
    """The anonymous id of an erased player never takes a computer player's id (-1, -2, …)
    in their practice hands: the old code renamed them to -1 beside the computer's -1."""
    path = databases.target("p.db")
    store, m = await open_manager(path, seed=15)
    driver = await practice_table(m, "a5-draw", ["normal", "easy"])
    await play_hand(m, driver, "erase")
    hand_id = m.view(CH).review_hand_id
    assert hand_id is not None
    await driver.close()
    await m.leave(CH, A)
    anon = await m.forget_player(GUILD, A)
    record = await store.history.hand_record(hand_id)
    players = [seat["player"] for seat in record["seats"]]
    assert str(anon) in players and len(set(players)) == len(players)
    replay(record)  # still a valid hand record
    await close_manager(store, m)
