"""Mixed tables end to end through the fake Discord (issue 38), one rotation per language.

A Portuguese, a Vietnamese and an English player sit at a mixed table in a server of
each language: every hand is dealt in the game the rotation says and played through the
table message's buttons and the games' own commands; the table message says the game
now, the hands left of it and the next; each private answer is in its reader's language
and every public message in the server's; the bot restarts mid-rotation and carries on
where it was; at a dealer's choice table the chooser picks from the menu on the table
message, a restart comes while the next choice is awaited, and the time runs out.
"""

from __future__ import annotations

import asyncio
import random
import time
from pathlib import Path

from bot.client import PokerBot
from bot.settings import Settings
from bot.ui import i18n
from bot.ui.catalog import t
from bot.ui.mixed_text import mixed_line
from bot.ui.text import game
from fakediscord.harness import DiscordHarness, Msg
from fakediscord.poker import ALICE, GUILD, TABLE, uid
from tests.discord.test_practice_end_to_end import play_with_bots
from tests.discord.test_three_languages import (
    DISCORD_CODES,
    EN,
    PT,
    READERS,
    VI,
    Trilingual,
    assert_in,
    private_messages,
)
from tests.support.game import Game

PLAYERS = (PT, VI, EN)


class Clock:
    """The real time, which a test can move forward (the rate limits see real time go by)."""

    def __init__(self) -> None:
        self.ahead = 0.0

    def __call__(self) -> float:
        return time.time() + self.ahead


def mixed_bot(path: Path, clock: Clock) -> PokerBot:
    """The production bot on a SQLite file, with the test's clock (turn timers and the
    dealer's choice run by it), no automatic deal, computer players with no pause."""
    settings = Settings(  # type: ignore[call-arg]
        _env_file=None, database_path=path, turn_timeout=3600, next_hand_delay=0, bot_pause=0
    )
    return PokerBot(settings, rng=random.Random(5), clock=clock)


def table_message(h: DiscordHarness) -> Msg:
    return h.message(h.bot.presenter.message_id(TABLE))  # type: ignore[attr-defined]


def shown_line(h: DiscordHarness, locale: str) -> str:
    """The rotation's line as the table message must show it now, in ``locale``."""
    view = h.bot.manager.view(TABLE)  # type: ignore[attr-defined]
    assert view.mixed is not None
    with i18n.using(locale):
        return mixed_line(view.mixed)


async def sit_down(h: DiscordHarness, server: str, **options: object) -> None:
    opened = await h.slash(PT, TABLE, "mixed open", **options)
    assert opened.message is not None and opened.message.deleted  # the table message answers
    for player in PLAYERS:  # a mixed table takes the commands of any of its games
        joined = await h.slash(player, TABLE, "a5-draw join")
        assert joined.ephemeral
        assert_in(READERS[uid(player)], joined.content, "a seat's answer")
    assert_in(server, table_message(h).text, "the mixed table's message")


async def play_hands(
    h: DiscordHarness, clock: Clock, count: int, games: list[str], server: str
) -> None:
    """Deal and play ``count`` hands (dealt by the game's own /deal), noting each game.
    A minute passes before each deal, as at a table (the players' rate limits refill)."""
    manager = h.bot.manager  # type: ignore[attr-defined]
    for n in range(count):
        clock.ahead += 60
        variant = manager.view(TABLE).variant
        dealt = await h.slash(PLAYERS[n % 3], TABLE, f"{variant} deal")
        assert dealt.ephemeral, dealt.content
        view = manager.view(TABLE)
        assert view.hand is not None and view.variant == variant  # dealt as announced
        assert shown_line(h, server) in table_message(h).text
        games.append(variant)
        await Trilingual(h, TABLE, table_message(h), seed=len(games)).play_hand()


def check_languages(h: DiscordHarness, server: str) -> None:
    for player in PLAYERS:
        for msg in private_messages(h, player):
            assert_in(READERS[uid(player)], msg.text, f"a private message to {player['username']}")
    for msg in h.messages(TABLE, include_ephemeral=False):
        assert_in(server, msg.text, "a public message")


async def connect(h: DiscordHarness, server: str) -> None:
    for player in PLAYERS:
        h.set_locale(player, DISCORD_CODES[READERS[uid(player)]])
    await h.connect(GUILD, {TABLE: "poker"}, list(PLAYERS), preferred_locale=DISCORD_CODES[server])


async def test_an_orbit_of_each_game_in_a_portuguese_server_with_a_restart(tmp_path) -> None:
    path, clock, games = tmp_path / "orbit.db", Clock(), []
    async with DiscordHarness(mixed_bot(path, clock)) as h:
        await connect(h, "pt_BR")
        await sit_down(h, "pt_BR", games="a5-draw a6-draw", rotation="orbit")
        rules = await h.slash(EN, TABLE, "mixed rules")
        with i18n.using("en"):
            assert rules.ephemeral and game("a6-draw") in rules.content
        assert_in("en", rules.content, "/mixed rules to an English player")
        await play_hands(h, clock, 2, games, "pt_BR")
        with i18n.using("pt_BR"):  # one hand of the orbit left, then Ace-to-Six
            left = t("mixed.left", count=1)
            assert left in table_message(h).text and game("a6-draw") in table_message(h).text
        await h.restart(mixed_bot(path, clock))  # mid-rotation
        assert shown_line(h, "pt_BR") in table_message(h).text
        await play_hands(h, clock, 4, games, "pt_BR")
        check_languages(h, "pt_BR")
        history = await h.slash(PT, TABLE, "history")
        with i18n.using("pt_BR"):
            assert game("a5-draw") in history.content and game("a6-draw") in history.content
        # each hand keeps its own game: /stats per game and in total, /replay, exports
        for which, count in (("a5-draw", 3), ("a6-draw", 3), (None, 6)):
            options = {"game": which} if which else {}
            clock.ahead += 60  # past /stats' cooldown
            stats = await h.slash(EN, TABLE, "stats", **options)
            assert t("stats.hands", "en", count=count) in stats.message.text
        manager = h.bot.manager  # type: ignore[attr-defined]
        for summary in await manager.store.history.recent_hands(GUILD, uid(EN), 10):
            clock.ahead += 60  # past /replay's cooldown
            replay = await h.slash(EN, TABLE, "replay", hand=summary.hand_id)
            title = t("replay.title", "en", hand_id=summary.hand_id, game=game(summary.variant))
            assert title in replay.message.text
    assert games == ["a5-draw"] * 3 + ["a6-draw"] * 3


async def test_every_hand_another_game_in_a_vietnamese_server(tmp_path) -> None:
    path, clock, games = tmp_path / "hands.db", Clock(), []
    async with DiscordHarness(mixed_bot(path, clock)) as h:
        await connect(h, "vi")
        bad = await h.slash(VI, TABLE, "mixed open", games="a5-draw holdem")
        with i18n.using("vi"):
            assert bad.content == t(
                "refused.unknown_game",
                game="holdem",
                games="a6-draw, a5-draw, a5-triple, abyssinia".replace(", ", t("list.sep")),
            )
        assert not h.bot.manager.has_table(TABLE)  # type: ignore[attr-defined]
        await sit_down(h, "vi", games="a5-triple a5-draw", rotation="hands", hands=1)
        await play_hands(h, clock, 2, games, "vi")
        await h.restart(mixed_bot(path, clock))
        await play_hands(h, clock, 1, games, "vi")
        check_languages(h, "vi")
    assert games == ["a5-triple", "a5-draw", "a5-triple"]  # blinds, antes, blinds again


async def test_dealers_choice_from_the_menu_then_timed_out_after_a_restart(tmp_path) -> None:
    path, clock, games = tmp_path / "choice.db", Clock(), []
    async with DiscordHarness(mixed_bot(path, clock)) as h:
        await connect(h, "en")
        await sit_down(h, "en", games="a6-draw a5-draw", rotation="choice", timeout=30)
        await play_hands(h, clock, 3, games, "en")  # the first orbit: the first game
        view = h.bot.manager.view(TABLE)  # type: ignore[attr-defined]
        assert view.mixed is not None and view.mixed.chooser is not None
        chooser = next(p for p in PLAYERS if uid(p) == view.mixed.chooser)
        other = next(p for p in PLAYERS if p is not chooser)
        menu = next(c for c in table_message(h).custom_ids() if c.startswith("pkg:"))
        early = await h.slash(other, TABLE, "a6-draw deal")  # no deal before the choice
        with i18n.using(READERS[uid(other)]):
            assert early.ephemeral and chooser["global_name"] in early.content
        assert_in(READERS[uid(other)], early.content, "the refused deal")
        wrong = await h.select(other, table_message(h), menu, ["a5-draw"])
        assert_in(READERS[uid(other)], wrong.content, "a choice out of turn")
        picked = await h.select(chooser, table_message(h), menu, ["a5-draw"])
        with i18n.using(READERS[uid(chooser)]):
            assert picked.content == t("mixed.chose", game=game("a5-draw"))
        await play_hands(h, clock, 3, games, "en")
        view = h.bot.manager.view(TABLE)  # type: ignore[attr-defined]
        assert view.mixed is not None and view.mixed.chooser not in (None, uid(chooser))
        await h.restart(mixed_bot(path, clock))  # while the next choice is awaited
        assert any(c.startswith("pkg:") for c in table_message(h).custom_ids())
        clock.ahead += 31  # nobody chooses in time: the next game in the list is taken
        for _ in range(50):
            if "Time is up" in table_message(h).text:
                break
            await asyncio.sleep(0.1)
            await h.settle()
        with i18n.using("en"):
            assert game("a6-draw") in table_message(h).text.split("Time is up")[1]
        assert not any(c.startswith("pkg:") for c in table_message(h).custom_ids())
        await play_hands(h, clock, 1, games, "en")
        check_languages(h, "en")
    assert games == ["a6-draw"] * 3 + ["a5-draw"] * 3 + ["a6-draw"]


async def test_computer_players_play_every_game_of_a_practice_mixed_table(tmp_path) -> None:
    """A practice mixed table: the computer players play all four games; no chips move."""
    clock = Clock()
    async with DiscordHarness(mixed_bot(tmp_path / "practice.db", clock)) as h:
        await h.connect(GUILD, {TABLE: "poker"}, list(PLAYERS))
        opened = await h.slash(ALICE, TABLE, "mixed open", rotation="hands", hands=1, bots=2)
        assert opened.message is not None and opened.message.deleted
        manager = h.bot.manager  # type: ignore[attr-defined]
        assert [s.bot for s in manager.view(TABLE).seats] == [None, "normal", "normal"]
        game = Game(h, TABLE, table_message(h), seed=9)
        played = []
        for _ in range(4):
            played.append(manager.view(TABLE).variant)
            clock.ahead += 60  # a minute between hands: the rate limits refill
            await play_with_bots(game, 1)
        assert played == ["a6-draw", "a5-draw", "a5-triple", "abyssinia"]
        account = await h.bot.store.ledger.balance(GUILD, uid(ALICE))  # type: ignore[attr-defined]
        assert account.balance == 200 and account.hands_played == 0


async def test_a_computer_player_whose_turn_it_is_to_choose_takes_the_next_game(
    tmp_path,
) -> None:
    clock = Clock()
    async with DiscordHarness(mixed_bot(tmp_path / "choice.db", clock)) as h:
        await h.connect(GUILD, {TABLE: "poker"}, list(PLAYERS))
        await h.slash(
            ALICE, TABLE, "mixed open", games="a5-draw,a6-draw", rotation="choice", bots=2
        )
        manager = h.bot.manager  # type: ignore[attr-defined]
        game = Game(h, TABLE, table_message(h), seed=10)
        played = []
        for _ in range(3):
            played.append(manager.view(TABLE).variant)
            clock.ahead += 60  # a minute between hands: the rate limits refill
            await play_with_bots(game, 1)
        assert manager.view(TABLE).mixed.chooser == uid(ALICE)  # the button's next seat
        chose = await h.slash(ALICE, TABLE, "mixed choose", game="a5-draw")
        assert (
            chose.ephemeral
            and chose.content == "You chose Ace-to-Five Lowball Draw for the next orbit."
        )
        for _ in range(3):
            played.append(manager.view(TABLE).variant)
            clock.ahead += 60  # a minute between hands: the rate limits refill
            await play_with_bots(game, 1)
        chooser = manager.view(TABLE).mixed.chooser
        assert next(s for s in manager.view(TABLE).seats if s.user_id == chooser).bot
        await play_with_bots(game, 1)  # dealt at once: a computer player keeps nobody waiting
        (last, *earlier) = await manager.store.history.recent_hands(GUILD, uid(ALICE), 10)
        assert [h.variant for h in reversed(earlier)] == played == ["a5-draw"] * 6
        assert last.variant == "a6-draw"  # the next game in the list
