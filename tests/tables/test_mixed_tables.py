"""Mixed tables at the TableManager, on SQLite and PostgreSQL (issue 38, items 1, 2 and 5).

A mixed table deals each hand in the game its rotation says, keeps that game for the
hand to its end, stores each hand with its own game, and carries on where it was after
a restart, mid-hand or between hands; a dealer's choice waits for its chooser, then
takes the next game in the list when their time runs out.
"""

from __future__ import annotations

from bot.tables.models import Code
from tests.support.databases import Databases
from tests.support.manager_helpers import (
    GUILD,
    Clock,
    Recorder,
    check_ledger,
    close_manager,
    open_manager,
    play,
    refused,
    wait_for,
)

CH = 500
A, B, C = 11, 12, 13


async def _hand_games(store: object, hand_ids: list[int]) -> list[str]:
    return [(await store.history.hand_record(h))["variant"] for h in hand_ids]  # type: ignore[attr-defined]


async def test_an_orbit_of_each_game_survives_restarts_mid_hand_and_between_hands(
    databases: Databases,
) -> None:
    path = databases.target("mixed.db")
    store, m = await open_manager(path, seed=1)
    view = await m.open_mixed(GUILD, CH, ["a6-draw", "a5-triple", "abyssinia"], "orbit")
    assert view.settings.seat_limit == 5  # the smallest maximum: the single draws' 5
    assert view.mixed is not None and view.mixed.kind == "orbit"
    for user in (A, B, C):
        seated = await m.join(CH, user, f"user{user}")
        assert seated.params["minimum"] == 48  # triple draw's minimum, the largest
    hands: list[int] = []
    for _ in range(2):
        hands.append((await m.deal(CH)).hand_id or 0)
        await play(m, CH, "orbit")
    view = m.view(CH)
    assert view.variant == "a6-draw" and view.mixed is not None
    assert (view.mixed.now, view.mixed.left, view.mixed.next) == ("a6-draw", 1, "a5-triple")
    await close_manager(store, m)  # a restart between hands

    store, m = await open_manager(path, seed=1)
    view = m.view(CH)
    assert view.mixed is not None
    assert (view.mixed.now, view.mixed.left, view.mixed.next) == ("a6-draw", 1, "a5-triple")
    hands.append((await m.deal(CH)).hand_id or 0)
    await play(m, CH, "orbit")
    view = m.view(CH)  # the orbit is over: triple draw is next, for an orbit of three
    assert view.variant == "a5-triple" and view.mixed is not None
    assert (view.mixed.now, view.mixed.left, view.mixed.next) == ("a5-triple", 3, "abyssinia")
    dealt = await m.deal(CH)
    hands.append(dealt.hand_id or 0)
    assert dealt.variant == "a5-triple" and dealt.mixed is not None and dealt.mixed.left == 2
    await play(m, CH, "orbit", limit=3)
    await close_manager(store, m)  # a restart in the middle of a triple-draw hand

    store, m = await open_manager(path, seed=1)
    view = m.view(CH)
    assert view.hand is not None and view.variant == "a5-triple"
    await play(m, CH, "orbit")
    for _ in range(2):
        hands.append((await m.deal(CH)).hand_id or 0)
        await play(m, CH, "orbit")
    hands.append((await m.deal(CH)).hand_id or 0)
    await play(m, CH, "orbit")
    assert await _hand_games(store, hands) == ["a6-draw"] * 3 + ["a5-triple"] * 3 + ["abyssinia"]
    summaries = await store.history.recent_hands(
        GUILD, A, 10
    )  # /history reads each hand's own game
    assert sorted((s.hand_id, s.variant) for s in summaries) == sorted(
        zip(hands, await _hand_games(store, hands), strict=True)
    )
    await close_manager(store, m)
    check_ledger(path)


async def test_every_n_hands_and_the_bad_settings_that_change_nothing(
    databases: Databases,
) -> None:
    store, m = await open_manager(databases.target("hands.db"), seed=2)
    bad = [
        (["a6-draw", "stud"], "hands", 2, Code.UNKNOWN_GAME),
        (["a6-draw"], "orbit", None, Code.MIX_TOO_FEW),
        (["a6-draw", "a5-draw"], "hands", 0, Code.BAD_EVERY),
        (["a6-draw", "a5-draw"], "hands", 51, Code.BAD_EVERY),
        (["a6-draw", "a5-draw"], "spin", None, Code.BAD_ROTATION),
    ]
    for games, kind, every, code in bad:
        answer = await refused(m.open_mixed(GUILD, CH, games, kind, every))
        assert answer.code is code
        assert not m.has_table(CH)
    too_many = await refused(m.open_mixed(GUILD, CH, ["a5-triple", "abyssinia"], "orbit", 2, 7))
    assert too_many.code is Code.BAD_SEATS and too_many.params["max"] == 6
    assert too_many.params["games"] == ("a5-triple", "abyssinia")  # the refusal names both
    assert not m.has_table(CH)
    await m.open_mixed(GUILD, CH, ["a5-draw", "a6-draw"], "hands", 2)
    for user in (A, B):
        await m.join(CH, user, f"user{user}")
    choice = await refused(m.choose_game(CH, A, "a6-draw"))
    assert choice.code is Code.NO_CHOICE_NOW  # not a dealer's choice table
    games = []
    for _ in range(5):
        games.append((await m.deal(CH)).variant)
        await play(m, CH, "hands")
    assert games == ["a5-draw", "a5-draw", "a6-draw", "a6-draw", "a5-draw"]
    await close_manager(store, m)


async def test_dealers_choice_waits_for_its_chooser_then_times_out_after_a_restart(
    databases: Databases,
) -> None:
    path = databases.target("choice.db")
    clock = Clock()
    store, m = await open_manager(path, seed=3, clock=clock, turn_timeout=30)
    await m.open_mixed(GUILD, CH, ["a5-draw", "abyssinia", "a6-draw"], "choice")
    for user in (A, B):
        await m.join(CH, user, f"user{user}")
    for _ in range(2):  # the first orbit is the first game
        assert (await m.deal(CH)).variant == "a5-draw"
        await play(m, CH, "choice")
    view = m.view(CH)
    assert view.mixed is not None and view.mixed.chooser is not None
    chooser = view.mixed.chooser
    other = B if chooser == A else A
    assert view.mixed.deadline == clock.now + 30 and view.mixed.next is None
    # bad choices: the other player, a game not in this mix, a deal before the choice
    assert (await refused(m.choose_game(CH, other, "a6-draw"))).code is Code.NOT_CHOOSER
    unknown = await refused(m.choose_game(CH, chooser, "a5-triple"))
    assert unknown.code is Code.UNKNOWN_GAME
    pending = await refused(m.deal(CH))
    assert pending.code is Code.CHOICE_PENDING and pending.params["chooser"] == chooser
    chosen = await m.choose_game(CH, chooser, "a6-draw")
    assert chosen.variant == "a6-draw" and chosen.mixed is not None
    assert chosen.mixed.chooser is None and chosen.mixed.now == "a6-draw"
    for _ in range(2):
        assert (await m.deal(CH)).variant == "a6-draw"
        await play(m, CH, "choice")
    first_chooser = chooser
    await close_manager(store, m)  # a restart while the next choice is awaited

    clock.now += 1000  # the restart gives the chooser a fresh turn time
    store, m = await open_manager(path, seed=3, clock=clock, turn_timeout=30)
    events = Recorder()
    m.subscribe(events)
    view = m.view(CH)
    assert view.mixed is not None and view.mixed.deadline == clock.now + 30
    assert view.mixed.chooser == (B if first_chooser == A else A)  # the choice went round
    clock.now += 31  # nobody chose
    await wait_for(lambda: "chosen" in events.kinds())
    (timed_out,) = [e for e in events.events if e.kind == "chosen"]
    assert timed_out.params["timeout"] and timed_out.params["game"] == "a5-draw"
    late = await refused(m.choose_game(CH, view.mixed.chooser, "abyssinia"))
    assert late.code is Code.NO_CHOICE_NOW  # too late: the default was taken
    assert (await m.deal(CH)).variant == "a5-draw"  # after a6-draw the list wraps round
    await play(m, CH, "choice")
    await close_manager(store, m)
    check_ledger(path)


async def test_a_deal_after_the_choice_ran_out_takes_the_next_game(databases: Databases) -> None:
    clock = Clock()
    store, m = await open_manager(databases.target("late.db"), seed=4, clock=clock)
    await m.open_mixed(GUILD, CH, ["abyssinia", "a6-draw"], "choice", turn_timeout=60)
    for user in (A, B, C):
        await m.join(CH, user, f"user{user}")
    for _ in range(3):
        await m.deal(CH)
        await play(m, CH, "late")
    view = m.view(CH)
    assert view.mixed is not None and view.mixed.chooser is not None
    chooser = next(s for s in view.seats if s.user_id == view.mixed.chooser)
    await m.leave(CH, chooser.user_id)  # the chooser left: the next seat chooses
    view = m.view(CH)
    assert view.mixed is not None and view.mixed.chooser not in (None, chooser.user_id)
    clock.now += 61
    assert (await m.deal(CH)).variant == "a6-draw"
    await close_manager(store, m)
