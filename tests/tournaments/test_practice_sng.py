"""Practice Sit & Gos (issue 36 item 7): computer players take seats at the creation,
play the tournament through the practice driver, and play it on to its winner when the
person is out; no fee, no prize, nothing in the ledger, no standings or season points.

At the table manager's level on both backends: one scripted person (any legal move,
folds included), fast levels on the test's clock, a restart in the middle.
"""

from __future__ import annotations

import random

import pytest

from bot.practice.driver import PracticeDriver
from bot.storage.store import Store
from bot.tables.manager import TableManager
from bot.tournaments import structures
from bot.tournaments.driver import TournamentDriver
from bot.tournaments.service import SngCode, SngRefused, TournamentService
from bot.tournaments.structures import Speed
from bot.ui import i18n
from bot.ui.tournaments import summary_text
from tests.support.databases import Target
from tests.support.manager_helpers import (
    GRANT,
    GUILD,
    VARIANT_IDS,
    Clock,
    close_manager,
    ledger_snapshot,
    open_manager,
    random_agent,
    step,
)

THREAD = 910
PERSON = 11
BOTS = ["bot one", "bot two"]


class Bot:
    """One running bot process: the store, the tables, both drivers."""

    def __init__(self, store: Store, manager: TableManager, sng: TournamentDriver) -> None:
        self.store, self.manager, self.sng = store, manager, sng
        self.practice = PracticeDriver(manager, pause=0, rng=random.Random(7))

    @classmethod
    async def open(cls, path: Target, clock: Clock) -> Bot:
        store, manager = await open_manager(path, clock=clock, start=False)
        service = TournamentService(
            store,
            grant=GRANT,
            rng=random.Random(5),
            clock=clock,
            level_seconds={s: 60.0 for s in Speed},
        )
        bot = cls(store, manager, TournamentDriver(manager, service))
        await bot.sng.restore()
        await manager.start()  # wakes a computer player whose turn it is
        return bot

    async def close(self) -> None:
        await self.practice.close()
        await close_manager(self.store, self.manager)

    async def play_hand(self, seed: str) -> None:
        """The person's moves by a scripted agent, the computer players' by the driver,
        until the hand ends."""
        for _ in range(20_000):
            await self.practice.settle()
            view = self.manager.view(THREAD)
            if view.hand is None:
                return
            if view.to_act_user == PERSON:
                await step(self.manager, THREAD, seed, random_agent)
        raise AssertionError("the hand did not end")

    async def until_a_computer_is_to_act(self, seed: str) -> tuple[int, int]:
        """Play until a computer player is to act, its move not made: its (user, turn)."""
        for _ in range(2_000):
            view = self.manager.view(THREAD)
            assert view.hand is not None and view.to_act_user is not None
            if view.to_act_user < 1:
                return view.to_act_user, view.turn
            await step(self.manager, THREAD, seed, random_agent)
        raise AssertionError("no computer player's turn came")


async def _practice_sng(bot: Bot, variant: str, level: str = "normal") -> int:
    service = bot.sng.service
    t = await service.create(
        GUILD,
        500,
        PERSON,
        variant,
        seats=3,
        start_stack=structures.smallest_stack(variant),
        bots=BOTS,
        level=level,
    )
    assert t.practice and t.status == "registering"
    entries = await service.repo.entries(t.tournament_id)
    assert [(e.user_id, e.display_name, e.bot) for e in entries] == [
        (-1, "bot one", level),
        (-2, "bot two", level),
    ]
    return t.tournament_id


@pytest.mark.parametrize("variant", VARIANT_IDS)
async def test_practice_sit_and_go_plays_to_a_winner_with_no_ledger_and_no_standings(
    db_path: Target, variant: str
) -> None:
    clock = Clock()
    bot = await Bot.open(db_path, clock)
    await bot.store.seasons.start(GUILD, "winter")  # a running season: it must stay empty
    await bot.store.ledger.ensure_account(GUILD, PERSON, "anna", GRANT)
    before = ledger_snapshot(db_path)
    tid = await _practice_sng(bot, variant)
    t, _ = await bot.sng.service.register(GUILD, tid, PERSON, "anna")
    assert t.status == "running"  # the person filled the last seat
    view = await bot.sng.begin(t, THREAD)
    assert view.hand is not None
    assert {s.user_id: s.bot for s in view.seats} == {-1: "normal", -2: "normal", PERSON: None}
    stack = t.start_stack
    hands, restarted, person_out_at = 0, False, None
    while True:
        if hands == 3 and not restarted:  # a restart as a computer player is to act
            waiting = await bot.until_a_computer_is_to_act(f"{variant}:{hands}")
            await bot.close()  # its move, on its way, is lost with the process
            bot = await Bot.open(db_path, clock)
            view = bot.manager.view(THREAD)
            assert (view.to_act_user, view.turn) == waiting
            await bot.practice.settle()  # woken at the start: it moves on its own
            assert bot.manager.view(THREAD).turn > waiting[1]
            restarted = True
        else:  # the restart comes at the fourth hand, never later
            assert restarted == (hands > 3)
        await bot.play_hand(f"{variant}:{hands}")
        hands += 1
        clock.now += 25  # a level every 60 s
        await bot.sng.wait_closed()
        row = await bot.store.tournaments.get(tid)
        assert row is not None
        if row.status == "finished":
            break
        assert hands < 600, "the tournament does not end"
        seats = bot.manager.view(THREAD).seats
        assert sum(s.stack or 0 for s in seats) == 3 * stack  # chips in play conserved
        if person_out_at is None and all(s.user_id != PERSON for s in seats):
            person_out_at = hands  # the computer players play on among themselves
        await bot.manager.deal(THREAD)
    assert restarted
    assert not bot.manager.has_table(THREAD)
    entries = await bot.store.tournaments.entries(tid)
    # the person went out first, and the computer players played it on to its winner
    assert person_out_at is not None and person_out_at < hands
    assert next(e.place for e in entries if e.user_id == PERSON) == 3
    assert sorted(e.place for e in entries) == [1, 2, 3]
    assert all(e.prize == 0 and e.points == 0 for e in entries)
    assert {e.user_id for e in entries if e.bot} == {-1, -2}
    # nothing in the ledger, no account changed; no standings, no season points
    after = ledger_snapshot(db_path)
    assert (after["accounts"], after["ledger"]) == (before["accounts"], before["ledger"])
    assert await bot.store.tournaments.ledger_sums(tid) == {}
    assert await bot.store.tournaments.standings(GUILD) == ([], 0)
    _, season_rows, ranked = await bot.store.seasons.standings(GUILD)
    assert (season_rows, ranked) == ([], 0)
    with i18n.using("en-US"):
        summary = summary_text(row, entries)
    assert summary.splitlines()[0].startswith(f"🏆 Practice Sit & Go #{tid} (")
    assert "chips" not in summary  # no prizes
    await bot.close()


async def test_refusals_change_nothing(db_path: Target) -> None:
    clock = Clock()
    bot = await Bot.open(db_path, clock)
    service = bot.sng.service
    cases = [
        (dict(seats=3, bots=["a", "b", "c"]), SngCode.BAD_BOTS, {"min": 1, "max": 2, "given": 3}),
        (dict(seats=2, bots=["a", "b"]), SngCode.BAD_BOTS, {"min": 1, "max": 1, "given": 2}),
        (dict(seats=3, bots=["a"], fee=10), SngCode.BOTS_FEE, {"given": 10}),
        (dict(seats=3, bots=["a"], level="godlike"), SngCode.UNKNOWN_LEVEL, None),
    ]
    for kwargs, code, params in cases:
        with pytest.raises(SngRefused) as refused:
            await service.create(GUILD, 500, PERSON, "a5-draw", **kwargs)  # type: ignore[arg-type]
        assert refused.value.code is code
        if params is None:
            assert refused.value.params["level"] == "godlike"
        else:
            assert refused.value.params == params
    assert await bot.store.tournaments.open_tournaments(GUILD) == []
    # computer players alone never start: a person must be registered
    tid = await _practice_sng(bot, "a5-draw", level="easy")
    with pytest.raises(SngRefused) as refused:
        await service.start(GUILD, tid, PERSON, moderator=False)
    assert refused.value.code is SngCode.NO_PERSON
    row = await bot.store.tournaments.get(tid)
    assert row is not None and row.status == "registering"
    # the same computer players' ids in two practice Sit & Gos: no "elsewhere"
    other = await _practice_sng(bot, "a6-draw", level="hard")
    assert other != tid
    await bot.close()


async def test_a_person_away_does_not_stand_the_computer_players_up(db_path: Target) -> None:
    """At a practice table the computer players stand up when no person plays on; at a
    practice Sit & Go a person away (sitting out, during a hand or between hands) is
    still dealt in, and the computer players stay."""
    clock = Clock()
    bot = await Bot.open(db_path, clock)
    tid = await _practice_sng(bot, "a5-triple")
    t, _ = await bot.sng.service.register(GUILD, tid, PERSON, "anna")
    await bot.sng.begin(t, THREAD)
    await bot.manager.sit_out(THREAD, PERSON)  # during the first hand
    await bot.play_hand("away:0")  # away players may still act themselves
    seats = bot.manager.view(THREAD).seats
    assert {s.user_id for s in seats} == {-1, -2, PERSON}
    assert next(s for s in seats if s.user_id == PERSON).sitting_out
    await bot.manager.sit_out(THREAD, PERSON)  # back, between hands
    await bot.manager.sit_out(THREAD, PERSON)  # and away again
    assert {s.user_id for s in bot.manager.view(THREAD).seats} == {-1, -2, PERSON}
    view = await bot.manager.deal(THREAD)
    assert view.hand is not None and {p.player for p in view.hand.seats} == {"-1", "-2", "11"}
    await bot.close()
