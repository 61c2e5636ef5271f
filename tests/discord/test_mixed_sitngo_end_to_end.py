"""A mixed Sit & Go end to end through the fake Discord (issue 38 item 4).

``/sitngo create games:… rotation:hands hands:1`` makes a Sit & Go whose game changes
every hand; its registration message names the games, the rotation and each game's
level 1. Two players register with the buttons and play it to a winner in its thread,
on short levels of the bot's clock, with a restart in the middle of a hand: each hand
is dealt in the rotation's game at the level's stakes for it, the table message shows
the game now and next and the level's stakes of the game, every payload is scanned for
hidden cards, and the public summary names the games. Then each bad request gets its
private answer and creates nothing.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3

import pytest

from bot.tables.manager import TableManager
from bot.tables.models import TableView
from bot.tournaments import structures
from bot.ui import i18n
from bot.ui.mixed_text import mixed_line
from bot.ui.text import game
from bot.ui.tournaments import table_level_line
from fakediscord.harness import DiscordHarness
from fakediscord.model import HarnessError
from fakediscord.poker import ALICE, BOB, CAROL, GUILD, TABLE
from tests.support.sng_game import LEVEL, Clock, SngGame, deal, registration, restart, sng_bot

GAMES = ("a6-draw", "a5-triple", "abyssinia")


async def played(sng: SngGame, manager: TableManager, thread: int, dealt: list) -> bool:
    """Note the level and game of the hand in play, play it; False if it ended the
    tournament (the winner's table closed)."""
    view = manager.view(thread)
    assert view.hand is not None and view.level is not None
    dealt.append((view.level.number, view.variant))
    with contextlib.suppress(KeyError):  # the table closed as the hand ended
        await sng.play_hand()
    return manager.has_table(thread)


def names(games: tuple[str, ...]) -> str:
    with i18n.using("en"):
        return ", ".join(game(g) for g in games)


async def test_a_mixed_sit_and_go_to_a_winner_with_a_restart(tmp_path) -> None:
    path, clock = tmp_path / "mixed-sng.db", Clock()
    players = [ALICE, BOB]
    async with DiscordHarness(sng_bot(path, clock, seed=13)) as h:
        await h.connect(GUILD, {TABLE: "poker"}, [ALICE, BOB, CAROL])
        created = await h.slash(
            ALICE,
            TABLE,
            "sitngo create",
            games="a6-draw, a5-triple abyssinia",
            rotation="hands",
            hands=1,
            seats=2,
            speed="turbo",
        )
        assert created.ephemeral and "is open for registration" in created.content, created.content
        number = int(created.content.split("#")[1].split(" ")[0])
        text = registration(h, number).text
        assert f"Sit & Go #{number}: {names(GAMES)}" in text
        assert f"Mixed: {names(GAMES)}; 1 hand of each game in turn." in text
        with i18n.using("en"):
            assert "Level 1, Ace-to-Five Triple Draw: blinds 10/20, bets 20/40." in text
            assert "Level 1, Abyssinia: ante 5, bet 10, cards 20/10/40." in text
        for p in players:
            clicked = await h.click(p, registration(h, number), f"sng:{number}:reg")
            assert clicked.ephemeral, clicked.content
        thread = int(h.threads(TABLE)[0]["id"])
        manager: TableManager = h.bot.manager  # type: ignore[attr-defined]
        table = h.message(h.bot.presenter.message_id(thread))  # type: ignore[attr-defined]
        sng = SngGame(h, thread, table)
        dealt: list[str] = []
        shown: list[tuple[TableView, str]] = []  # each hand's view as dealt, and its message
        hands, restarted, step = 0, False, 0
        while manager.has_table(thread):
            view = manager.view(thread)
            if view.hand is None:
                await deal(h, thread, view)
                continue
            if not dealt or len(dealt) == hands:  # a new hand: what the table shows of it
                dealt.append(view.variant)
                shown.append((view, sng.table.text))
            if hands == 2 and not restarted and view.turn >= 2:  # in the middle of a hand
                manager = await restart(h, sng_bot(path, clock, seed=13), thread)
                restarted = True
            before = manager.table(thread).hand
            try:
                await sng.step(use_slash=step % 3 == 2)
            except KeyError:  # the last hand ended: the winner's table closed meanwhile
                assert not manager.has_table(thread)
                sng.check_privacy(before)
                break
            step += 1
            if manager.has_table(thread) and manager.view(thread).hand is None:
                hands += 1
                clock.ahead += LEVEL / 2  # a level every two hands
            assert hands < 300, "the Sit & Go does not end"
        assert restarted and len(dealt) >= 3
        assert dealt == [GAMES[i % 3] for i in range(len(dealt))]  # a game a hand, in turn
        for view, message in shown:  # the game now and next, the level's stakes of the game
            assert view.mixed is not None and view.level is not None
            with i18n.using("en"):
                now = mixed_line(view.mixed)
                level = table_level_line(view.variant, view.level)
            assert now in message  # Now: … · next: …
            assert level.rsplit(" in ", 1)[0] in message
            assert level.startswith(f"Level {view.level.number}, {names((view.variant,))}: ")
        await h.bot.sitngo.wait_idle()  # type: ignore[attr-defined]
        await h.settle()
        db = sqlite3.connect(path)
        try:
            headers = [
                json.loads(r[0])
                for r in db.execute(
                    "SELECT header_json FROM hands WHERE channel_id = ? ORDER BY hand_id",
                    (thread,),
                )
            ]
        finally:
            db.close()
        assert [hd["variant"] for hd in headers] == dealt
        for hd in headers:  # at the level's stakes for its game
            assert structures.level_number(hd["variant"], hd["stakes"]) is not None
        summary = [m for m in h.messages(TABLE, include_ephemeral=False) if "🏆" in m.text]
        assert len(summary) == 1
        assert summary[0].text.startswith(f"🏆 Sit & Go #{number} ({names(GAMES)}) is over.")


async def test_a_game_a_level_takes_each_games_commands(tmp_path) -> None:
    """``rotation:level``: between hands the table is the level's game, whose commands
    (and any game of the mix's) it takes; each hand is dealt in its level's game."""
    path, clock = tmp_path / "level-sng.db", Clock()
    async with DiscordHarness(sng_bot(path, clock, seed=13)) as h:
        await h.connect(GUILD, {TABLE: "poker"}, [ALICE, BOB, CAROL])
        created = await h.slash(
            ALICE, TABLE, "sitngo create", games="a5-triple abyssinia", rotation="level", seats=2
        )
        number = int(created.content.split("#")[1].split(" ")[0])
        assert "Mixed: " + names(("a5-triple", "abyssinia")) + "; one game a level, in turn." in (
            registration(h, number).text
        )
        for p in (ALICE, BOB):
            await h.click(p, registration(h, number), f"sng:{number}:reg")
        thread = int(h.threads(TABLE)[0]["id"])
        manager: TableManager = h.bot.manager  # type: ignore[attr-defined]
        table = h.message(h.bot.presenter.message_id(thread))  # type: ignore[attr-defined]
        sng = SngGame(h, thread, table)
        dealt: list[tuple[int, str]] = []
        while len(dealt) < 4 and await played(sng, manager, thread, dealt):
            clock.ahead += LEVEL  # the next level: the next game
            view = manager.view(thread)
            # the other game's /sitout, and back: the table takes any game of the mix
            other = "abyssinia" if view.variant == "a5-triple" else "a5-triple"
            said = [(await h.slash(ALICE, thread, f"{other} sitout")).content for _ in "ab"]
            assert not any("This channel's table plays" in c for c in said), said
            await deal(h, thread, view)  # with the level's game's /deal
        assert len(dealt) >= 2
        assert dealt == [(n, ("a5-triple", "abyssinia")[(n - 1) % 2]) for n, _ in dealt]


async def test_bad_mixed_requests_get_a_private_answer_and_create_nothing(tmp_path) -> None:
    path, clock = tmp_path / "bad-mixed.db", Clock()
    async with DiscordHarness(sng_bot(path, clock, seed=13)) as h:
        await h.connect(GUILD, {TABLE: "poker"}, [ALICE, BOB, CAROL])
        store = h.bot.store  # type: ignore[attr-defined]
        bad = {
            "A mixed Sit & Go plays 2 to 4 different games, not 1.": {
                "games": "a5-draw",
                "seats": 2,
            },
            "Unknown game holdem: the games are a5-draw, a5-triple, a6-draw, abyssinia.": {
                "games": "a5-draw holdem",
                "seats": 2,
            },
            "A Sit & Go of Ace-to-Five Lowball Draw, Abyssinia has 2 to 5 seats, not 6.": {
                "games": "a5-draw abyssinia",
                "seats": 6,
            },
            "Give either game (one game) or games (a mixed Sit & Go), not both.": {
                "game": "a5-draw",
                "games": "a5-draw abyssinia",
                "seats": 2,
            },
            "Give the game, or the games of a mixed Sit & Go.": {"seats": 2},
            "The starting stack must be from 2,000 to 1,000,000 chips, not 1,500.": {
                "games": "abyssinia a5-draw",
                "seats": 2,
                "stack": 1500,
            },
        }
        for n, (answer, options) in enumerate(bad.items()):
            clock.ahead += 60  # past the command budget
            user = (ALICE, BOB, CAROL)[n % 3]
            said = await h.slash(user, TABLE, "sitngo create", **options)
            assert said.ephemeral and said.content == answer, (options, said.content)
        # hands out of 1-50: Discord itself refuses to send it (the option's range)
        for hands in (0, 51):
            with pytest.raises(HarnessError, match="hands"):
                await h.slash(
                    ALICE, TABLE, "sitngo create", games="a5-draw a6-draw", hands=hands, seats=2
                )
        assert await store.tournaments.open_tournaments(GUILD) == []
        assert [m for m in h.messages(TABLE, include_ephemeral=False) if "Sit & Go" in m.text] == []
