"""Mixed Sit & Gos (issue 38 item 4): the mix and its one-unit stakes as pure values,
the service's refusals, and a mixed Sit & Go played to a winner across a restart at the
table manager's level, on both backends."""

from __future__ import annotations

import json
import random

import pytest

from bot.engine import VARIANTS
from bot.storage.store import Store
from bot.tables.manager import TableManager
from bot.tables.rotation import Rotation
from bot.tournaments import mixing, structures
from bot.tournaments.driver import TournamentDriver
from bot.tournaments.mixing import Mix, MixCode, MixKind, MixRefused
from bot.tournaments.multi_table import MultiTableService
from bot.tournaments.service import SngCode, SngRefused, TournamentService
from bot.tournaments.structures import Speed
from bot.ui import i18n
from bot.ui.text import game
from bot.ui.tournaments import stakes_text, summary_text, table_level_line
from tests.support.databases import Target, open_reader
from tests.support.manager_helpers import (
    GRANT,
    GUILD,
    Clock,
    close_manager,
    open_manager,
    play,
    random_agent,
)

THREAD = 901
USERS = [21, 22, 23]
GAMES = ("a6-draw", "a5-triple", "abyssinia")

# ----- pure: the mix, the unit, the stakes ------------------------------------


def test_one_unit_per_level_maps_to_every_game() -> None:
    for number in range(1, 25):  # past the last level too
        u = structures.unit(number)
        level = structures.mixed_level(tuple(VARIANTS), number)
        assert level["a5-triple"].get("small_bet") == level["a5-triple"].get("big_blind") == u
        assert level["a5-triple"].get("small_blind") == u // 2
        assert level["a5-triple"].get("big_bet") == 2 * u
        for single in ("a6-draw", "a5-draw"):
            assert level[single].get("small_bet") == u and level[single].get("big_bet") == 2 * u
        assert level["abyssinia"].get("bet") == u // 2
        assert level["abyssinia"].get("prices") == (u, u // 2, 2 * u)
        assert {lv.number for lv in level.values()} == {number}
    assert [structures.unit(n) for n in (1, 2, 3, 20, 21)] == [20, 30, 40, 10000, 15000]


def test_a_mix_starts_at_fifty_big_bets_of_its_largest_game() -> None:
    assert structures.smallest_mixed_stack(("abyssinia", "a5-draw")) == 50 * 40
    assert structures.smallest_mixed_stack(("abyssinia", "a5-triple")) == 50 * 40
    assert structures.smallest_stack("abyssinia") == 50 * 10  # alone it plays shallower


def test_every_n_hands_is_the_tables_own_rotation() -> None:
    mix = mixing.make(["a6-draw", "a5-triple", "a6-draw"], "hands", 2)  # named twice: once
    assert mix == Mix(("a6-draw", "a5-triple"), MixKind.HANDS, 2)
    assert mix.table_rotation() == Rotation.make("hands", ("a6-draw", "a5-triple"), 2)
    assert mix.game(7, "a5-triple") == "a5-triple"  # the table's count decides, not the level
    assert mixing.make(GAMES, "hands", None).every == 6  # BARGE's "every 6 hands"
    assert Mix.loads(mix.dumps()) == mix
    assert Mix.loads(None) is None
    assert mix.seat_limit == 5  # the draw game's most


def test_each_level_its_game() -> None:
    mix = mixing.make(GAMES, "level", 9)  # hands are read only for a hands rotation
    assert mix == Mix(GAMES, MixKind.LEVEL, 0)
    assert mix.table_rotation() is None
    assert [mix.game(n, "a6-draw") for n in range(1, 8)] == [
        "a6-draw",
        "a5-triple",
        "abyssinia",
        "a6-draw",
        "a5-triple",
        "abyssinia",
        "a6-draw",
    ]
    assert Mix.loads(mix.dumps()) == mix


@pytest.mark.parametrize(
    ("games", "kind", "every", "code"),
    [
        (["a5-draw"], "hands", 6, MixCode.GAMES),
        (["a5-draw", "a5-draw"], "hands", 6, MixCode.GAMES),
        (["a5-draw", "holdem"], "hands", 6, MixCode.UNKNOWN_GAME),
        (["a5-draw", "a6-draw"], "orbit", None, MixCode.BAD_ROTATION),
        (["a5-draw", "a6-draw"], "hands", 0, MixCode.BAD_EVERY),
        (["a5-draw", "a6-draw"], "hands", 51, MixCode.BAD_EVERY),
    ],
)
def test_bad_mixes_are_refused(games: list[str], kind: str, every: int, code: MixCode) -> None:
    with pytest.raises(MixRefused) as caught:
        mixing.make(games, kind, every)
    assert caught.value.code is code


# ----- the service: refusals change nothing -------------------------------------


async def _open(path: Target, clock: Clock) -> tuple[Store, TableManager, TournamentDriver]:
    store, manager = await open_manager(path, clock=clock, start=False)
    service = TournamentService(
        store,
        grant=GRANT,
        rng=random.Random(7),
        clock=clock,
        level_seconds={s: 60.0 for s in Speed},
    )
    driver = TournamentDriver(manager, service)
    await driver.restore()
    await manager.start()
    return store, manager, driver


@pytest.mark.parametrize(
    ("games", "kind", "every", "seats", "stack", "code"),
    [
        (("a5-draw",), "hands", 6, 3, 3000, SngCode.MIX_GAMES),
        (("a5-draw", "omaha"), "hands", 6, 3, 3000, SngCode.UNKNOWN_GAME),
        (("a5-draw", "abyssinia"), "hands", 0, 3, 3000, SngCode.BAD_EVERY),
        (("a5-draw", "abyssinia"), "hands", 51, 3, 3000, SngCode.BAD_EVERY),
        (("a5-draw", "abyssinia"), "orbit", 6, 3, 3000, SngCode.BAD_ROTATION),
        # six seats: Abyssinia takes eight, but A-5 draw five
        (("a5-draw", "abyssinia"), "level", None, 6, 3000, SngCode.MIX_SEATS),
        # 1500 chips: 150 big bets of Abyssinia, but under 50 of A-5 draw
        (("a5-draw", "abyssinia"), "level", None, 3, 1500, SngCode.BAD_STACK),
    ],
)
async def test_a_bad_mixed_sit_and_go_is_refused(
    db_path: Target,
    games: tuple[str, ...],
    kind: str,
    every: int | None,
    seats: int,
    stack: int,
    code: SngCode,
) -> None:
    clock = Clock()
    store, manager, driver = await _open(db_path, clock)
    with pytest.raises(SngRefused) as caught:
        await driver.service.create(
            GUILD,
            500,
            USERS[0],
            games[0],
            seats=seats,
            start_stack=stack,
            games=games,
            rotation=kind,
            every=every,
        )
    assert caught.value.code is code
    assert await store.tournaments.open_tournaments(GUILD) == []  # nothing created
    await close_manager(store, manager)


async def test_seats_above_a_games_most_are_refused_naming_the_games(db_path: Target) -> None:
    store, manager, driver = await _open(db_path, Clock())
    with pytest.raises(SngRefused) as caught:
        await driver.service.create(
            GUILD, 500, USERS[0], "abyssinia", seats=6, games=("abyssinia", "a5-draw")
        )
    assert caught.value.params == {
        "games": ("abyssinia", "a5-draw"),
        "min": 2,
        "max": 5,
        "given": 6,
    }
    await close_manager(store, manager)


# ----- played to a winner across a restart ------------------------------------------


def _headers(db_path: Target) -> list[dict[str, object]]:
    db = open_reader(db_path)
    try:
        return [
            json.loads(r[0])
            for r in db.execute(
                "SELECT header_json FROM hands WHERE channel_id = ? ORDER BY hand_id", (THREAD,)
            ).fetchall()
        ]
    finally:
        db.close()


@pytest.mark.parametrize("kind", ["hands", "level"])
async def test_mixed_sit_and_go_to_a_winner_across_a_restart(db_path: Target, kind: str) -> None:
    clock = Clock()
    store, manager, driver = await _open(db_path, clock)
    stack = structures.smallest_mixed_stack(GAMES)
    t = await driver.service.create(
        GUILD,
        500,
        USERS[0],
        "a5-draw",  # ignored: a mixed one is its games
        seats=3,
        start_stack=stack,
        games=GAMES,
        rotation=kind,
        every=2,
    )
    tid = t.tournament_id
    assert t.variant == GAMES[0]
    for user in USERS:
        t, _ = await driver.service.register(GUILD, tid, user, f"p{user}")
    view = await driver.begin(t, THREAD)
    assert view.hand is not None and view.variant == GAMES[0]
    hands, restarted = 0, False
    lines: list[tuple[str, int, str]] = []  # between hands: the game, the level, its line
    while True:
        if hands == 3 and not restarted:  # a restart in the middle of a hand
            await play(manager, THREAD, f"mix:{hands}", random_agent, limit=2)
            await driver.wait_closed()
            await close_manager(store, manager)
            clock.now += 500  # down for a while: that time does not count
            store, manager, driver = await _open(db_path, clock)
            restarted = True
        await play(manager, THREAD, f"mix:{hands}", random_agent)
        hands += 1
        clock.now += 20  # a level every three hands
        await driver.wait_closed()
        row = await store.tournaments.get(tid)
        assert row is not None
        if row.status == "finished":
            break
        assert hands < 400, "the tournament does not end"
        between = manager.view(THREAD)
        assert between.level is not None
        with i18n.using("en-US"):
            line = table_level_line(between.variant, between.level)
        lines.append((between.variant, between.level.number, line))
        await manager.deal(THREAD)
    assert restarted and hands > 6
    headers = _headers(db_path)
    assert len(headers) == hands == row.hands
    levels = []
    for h in headers:  # each hand: its game, at the level's stakes for that game
        variant = h["variant"]
        assert isinstance(variant, str) and variant in GAMES
        assert h["allin"] is True
        level = structures.level_number(variant, h["stakes"])
        assert level is not None, h
        levels.append(level)
    assert levels == sorted(levels) and levels[-1] > 1  # the stakes rose
    played = [h["variant"] for h in headers]
    assert set(played) == set(GAMES)  # every game was dealt
    if kind == "hands":  # two hands of each in turn, counted by the table across the restart
        assert played == [GAMES[(i // 2) % 3] for i in range(hands)]
    else:  # each level its game, whatever the hands
        assert played == [GAMES[(n - 1) % 3] for n in levels]
    # between hands the table is the next hand's game, and its message's level line
    # names it with its stakes, and what comes next
    assert {n for _, n, _ in lines} > {1}
    for variant, number, line in lines:
        with i18n.using("en-US"):
            stakes = stakes_text(variant, structures.level_at(variant, number))
        assert line.startswith(f"Level {number}, {game(variant)}: {stakes}. Next: "), line
        if kind == "level":  # the level's game, and the next level's
            assert variant == GAMES[(number - 1) % 3]
            assert f"Next: {game(GAMES[number % 3])}, " in line
        else:  # the table's own rotation's game, at the next level too
            assert f"Next: {game(variant)}, " in line
    entries = await store.tournaments.entries(tid)
    assert sorted(e.place for e in entries if e.place is not None) == [1, 2, 3]
    with i18n.using("en-US"):
        summary = summary_text(row, entries)
    names = ", ".join(game(g) for g in GAMES)
    assert summary.splitlines()[0] == f"🏆 Sit & Go #{tid} ({names}) is over."
    assert not manager.has_table(THREAD)
    await close_manager(store, manager)


# ----- multi-table tournaments: the same mix, the game from the same place ----------


async def test_a_mixed_multi_table_tournament_keeps_its_mix_and_deals_by_it(
    db_path: Target,
) -> None:
    clock = Clock()
    store = await Store.open(db_path, clock=clock)
    try:
        rng = random.Random(3)
        sng = TournamentService(
            store, grant=GRANT, rng=rng, clock=clock, level_seconds={s: 60.0 for s in Speed}
        )
        mtt = MultiTableService(store, sng, rng)
        bad: list[tuple[dict[str, object], SngCode]] = [
            ({"games": ("a5-draw",)}, SngCode.MIX_GAMES),
            ({"games": ("a5-draw", "abyssinia"), "table_size": 6}, SngCode.MIX_SEATS),
            ({"games": ("a5-draw", "abyssinia"), "rotation": "orbit"}, SngCode.BAD_ROTATION),
        ]
        for options, code in bad:
            settings: dict[str, object] = {"table_size": 4, **options}
            with pytest.raises(SngRefused) as caught:
                await mtt.create(
                    GUILD, 77, 1, "a5-draw", cap=8, speed="turbo", start_stack=3000, **settings
                )  # type: ignore[arg-type]
            assert caught.value.code is code
        assert await store.tournaments.open_tournaments(GUILD) == []
        for user in range(1, 5):
            await store.ledger.ensure_account(GUILD, user, f"u{user}", GRANT)
        t = await mtt.create(
            GUILD, 77, 1, "a5-draw", table_size=2, cap=4, speed="turbo", start_stack=3000,
            games=GAMES, rotation="level",
        )  # fmt: skip
        assert t.variant == GAMES[0] and sng.mix(t) == Mix(GAMES, MixKind.LEVEL)
        for user in range(1, 5):
            await store.tournaments.register(t.tournament_id, user, f"u{user}")
        field = await mtt.start(t.tournament_id)
        assert len(field.tables) == 2
        started = await store.tournaments.get(t.tournament_id)
        assert started is not None
        seen = []
        for _ in range(4):  # every table asks the one place: the level's game and stakes
            game_now = sng.game(started, "a6-draw")
            view = sng.level_view(started)
            stakes = sng.stakes(started, game_now)
            seen.append((view.number, game_now, stakes.number))
            assert view.game == game_now and set(view.mixed) == set(GAMES)
            assert view.mixed[game_now][0] == stakes.stakes_json()
            clock.now += 60
        assert seen == [(n, GAMES[(n - 1) % 3], n) for n in (1, 2, 3, 4)]
    finally:
        await store.close()
