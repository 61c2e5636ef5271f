"""A mixed multi-table tournament through the fake Discord (issue 38 item 4, issue 37):
`/mtt create games: … start_when:` names its games and when it starts on its registration
message, the scheduler starts it once that many have registered, each table deals the
rotation's game at the level's stakes for that game, and the bad requests of the new
options get a private answer and create nothing."""

from __future__ import annotations

import asyncio

from bot.engine.record import HandRecord, parse_record
from bot.engine.stakes import Stakes
from bot.tournaments import structures
from fakediscord.harness import DiscordHarness
from fakediscord.poker import GUILD, TABLE
from tests.support.mtt_server import LEVEL, MEMBERS, PEOPLE, Clock, grant, mtt_bot, registration

OPTIONS = {"table_size": 3, "cap": 10, "speed": "turbo"}


def stakes_of(game: str) -> Stakes:
    """A game's stakes at level 1 of a mixed tournament (one unit mapped to each game)."""
    return Stakes.from_json(game, structures.level_at(game, 1).stakes_json())


async def test_a_mixed_tournament_starts_at_its_count_and_deals_its_games(tmp_path) -> None:
    path, clock = tmp_path / "mixed.db", Clock()
    alice = PEOPLE[0]
    async with DiscordHarness(mtt_bot(path, clock)) as h:
        await h.connect(GUILD, {TABLE: "poker"}, MEMBERS[:8])
        grant(h)
        store = h.bot.store  # type: ignore[attr-defined]
        both = await h.slash(
            alice, TABLE, "mtt create", game="a5-draw", games="a5-draw a6-draw", **OPTIONS
        )
        assert both.ephemeral and both.content == (
            "Give either game (one game) or games (a mixed tournament), not both."
        )
        neither = await h.slash(alice, TABLE, "mtt create", **OPTIONS)
        assert neither.content == "Give the game, or the games of a mixed tournament."
        wide = await h.slash(
            alice, TABLE, "mtt create", games="a5-draw a5-triple", **(OPTIONS | {"table_size": 6})
        )
        assert wide.content == (
            "A table of Ace-to-Five Lowball Draw, Ace-to-Five Triple Draw has 2 to 5 seats, not 6."
        )
        early = await h.slash(
            alice, TABLE, "mtt create", games="a5-draw a5-triple", start_when=11, **OPTIONS
        )
        assert early.content == (
            "It can start when 2 to 10 players (its cap) have registered, not 11."
        )
        assert await store.tournaments.open_tournaments(GUILD) == []
        clock.ahead += 60  # past the creation rate limit
        made = await h.slash(
            alice, TABLE, "mtt create", games="a5-draw a5-triple", hands=2, start_when=6, **OPTIONS
        )
        number = int(made.content.split("#")[1].split(" ")[0])
        shown = registration(h, number).text
        assert "Ace-to-Five Lowball Draw, Ace-to-Five Triple Draw" in shown
        assert "it starts when 6 have registered" in shown
        for person in PEOPLE[:6]:
            clicked = await h.click(person, registration(h, number), f"mtt:{number}:reg")
            assert clicked.ephemeral
        row = await store.tournaments.get(number)
        assert row is not None and row.status == "registering"  # the scheduler starts it
        await h.bot.scheduler.tick()  # type: ignore[attr-defined]
        await h.settle()
        row = await store.tournaments.get(number)
        assert row is not None and row.status == "running"
        threads = h.threads(TABLE)
        assert len(threads) == 2  # six players on two tables of three
        manager = h.bot.manager  # type: ignore[attr-defined]
        games: dict[int, list[str]] = {int(t["id"]): [] for t in threads}
        dealt_ids: dict[int, list[int]] = {c: [] for c in games}
        records: list[HandRecord] = []  # each table's hands as dealt
        for channel in games:
            view = manager.view(channel)
            assert view.hand is not None  # every table dealt
        clock.ahead += LEVEL / 10
        # the turn timer acts for everyone (check or fold, stand pat) until each table has
        # dealt four hands: two of each game, the level's stakes for each
        for _ in range(400):
            for channel, dealt in games.items():
                view = manager.view(channel)
                if view.hand is None or view.hand_id is None:
                    continue
                if not dealt or len(dealt) < 4 and view.hand_id != dealt_ids[channel][-1]:
                    record = parse_record(await store.history.hand_record(view.hand_id))
                    dealt.append(record.variant)
                    dealt_ids[channel].append(view.hand_id)
                    records.append(record)
                await manager.expire(channel, view.hand_id, view.turn)
                await h.settle()
            if all(len(dealt) >= 4 for dealt in games.values()):
                break
        for dealt in games.values():
            assert dealt[:4] == ["a5-draw", "a5-draw", "a5-triple", "a5-triple"], games
        assert len(records) >= 8 and all(r.allin for r in records)  # tournament hands
        assert all(r.stakes == stakes_of(r.variant) for r in records)  # that game's, level 1
        h.assert_no_errors()


async def test_the_pause_between_hands_is_not_taken_under_the_tournaments_lock(tmp_path) -> None:
    """Every counted hand syncs its tournament's tables and then waits the pause between
    hands before dealing. Waited under the tournament's sync lock, one table's pause held
    every other table's moves and deals back: syncs ran one pause apart, so a tournament of
    many tables fell further behind with each hand. Two syncs at once take one pause."""
    pause = 1.0  # the bot's pause between hands, injected
    path, clock = tmp_path / "pause.db", Clock()
    alice = PEOPLE[0]
    async with DiscordHarness(mtt_bot(path, clock, next_hand_delay=pause)) as h:
        await h.connect(GUILD, {TABLE: "poker"}, MEMBERS[:8])
        grant(h)
        made = await h.slash(alice, TABLE, "mtt create", game="a5-draw", **OPTIONS)
        number = int(made.content.split("#")[1].split(" ")[0])
        for person in PEOPLE[:6]:
            await h.click(person, registration(h, number), f"mtt:{number}:reg")
        await h.slash(alice, TABLE, "mtt start")
        await h.settle()
        row = await h.bot.store.tournaments.get(number)  # type: ignore[attr-defined]
        assert row is not None and row.status == "running"
        driver = h.bot.mtt_driver  # type: ignore[attr-defined]
        loop = asyncio.get_running_loop()
        began = loop.time()
        await asyncio.gather(driver.sync(number), driver.sync(number))
        took = loop.time() - began
        assert pause <= took < 1.9 * pause  # one pause, not one after the other
