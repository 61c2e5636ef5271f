"""Sit & Gos end to end through the fake Discord (issue 36).

Scripted users create a Sit & Go with ``/sitngo create``, register with the registration
message's button, and play it to a winner in its thread by clicks and commands, on fast
levels of the bot's clock, with a restart in the middle of a hand; the fees and the prize
are checked against the ledger, every payload is scanned for hidden cards, and the
summary is posted. Then every bad request of the issue's list gets its private answer and
changes nothing.
"""

from __future__ import annotations

import discord
import pytest

from bot.tables.models import Code, Refused
from bot.tournaments import structures
from bot.ui import i18n
from bot.ui.tournaments import table_level_line
from fakediscord.harness import DiscordHarness, make_member
from fakediscord.poker import ALICE, BOB, CAROL, DAVE, GUILD, TABLE, uid
from tests.support.sng_game import LEVEL, Clock, SngGame, deal, registration, restart, sng_bot

FEE = 50
MANAGER = discord.Permissions(
    view_channel=True, send_messages=True, use_application_commands=True, manage_channels=True
)
MEMBERS = [ALICE, BOB, CAROL, make_member(DAVE, permissions=MANAGER)]  # Dave moderates


async def create(h: DiscordHarness, user: dict, variant: str, **options: object) -> int:
    created = await h.slash(user, TABLE, "sitngo create", game=variant, **options)
    assert created.ephemeral and "is open for registration" in created.content, created.content
    number = int(created.content.split("#")[1].split(" ")[0])
    message = registration(h, number)
    assert f"sng:{number}:reg" in message.custom_ids()
    return number


def grant(h: DiscordHarness) -> int:
    return int(h.bot.settings.starting_grant)  # type: ignore[attr-defined]


async def balance(h: DiscordHarness, user: dict) -> int:
    account = await h.bot.store.ledger.balance(GUILD, uid(user))  # type: ignore[attr-defined]
    return 0 if account is None else int(account.balance)


@pytest.mark.parametrize("variant", ["a6-draw", "a5-draw", "a5-triple", "abyssinia"])
async def test_a_sit_and_go_of_each_game_to_a_winner_with_a_restart(tmp_path, variant) -> None:
    path, clock = tmp_path / "sng.db", Clock()
    players = [ALICE, BOB, CAROL]
    stack = structures.smallest_stack(variant)
    async with DiscordHarness(sng_bot(path, clock)) as h:
        await h.connect(GUILD, {TABLE: "poker"}, MEMBERS)
        start_chips = grant(h)
        number = await create(h, ALICE, variant, seats=3, speed="turbo", stack=stack, fee=FEE)
        for n, p in enumerate(players):
            clicked = await h.click(p, registration(h, number), f"sng:{number}:reg")
            assert (
                clicked.ephemeral
                and clicked.content == f"You are registered for Sit & Go #{number}."
            )
            shows = f"Players ({n + 1}/3)" if n < 2 else "Playing in <#"  # the third: it starts
            assert shows in registration(h, number).text
        # full: it started in a thread of its own, which the registration message links
        threads = h.threads(TABLE)
        assert len(threads) == 1
        thread = int(threads[0]["id"])
        shown = registration(h, number)
        assert f"Playing in <#{thread}>" in shown.text and shown.custom_ids() == []
        assert [await balance(h, p) for p in players] == [start_chips - FEE] * 3
        manager = h.bot.manager  # type: ignore[attr-defined]
        table = h.message(h.bot.presenter.message_id(thread))  # type: ignore[attr-defined]
        game = SngGame(h, thread, table)
        hands, restarted, step = 0, False, 0
        while manager.has_table(thread):
            view = manager.view(thread)
            if view.hand is None:
                await deal(h, thread, view)
                continue
            assert view.level is not None
            with i18n.using("en"):  # the level line, as the table message shows it now
                line = table_level_line(variant, view.level)
            # the seconds left count down with the real time: the line up to them
            assert line.rsplit(" in ", 1)[0] + " in " in game.table.text
            if hands == 2 and not restarted and view.turn >= 2:  # in the middle of a hand
                manager = await restart(h, sng_bot(path, clock), thread)
                restarted = True
            before = manager.table(thread).hand
            try:
                await game.step(use_slash=step % 3 == 2)
            except Refused as exc:  # the last hand ended: the winner's table closed meanwhile
                assert exc.code is Code.NO_TABLE and not manager.has_table(thread)
                game.check_privacy(before)
                break
            step += 1
            if manager.has_table(thread) and manager.view(thread).hand is None:
                hands += 1
                clock.ahead += LEVEL  # a level a hand: the stakes rise fast
            assert hands < 300, "the Sit & Go does not end"
        assert restarted
        await h.bot.sitngo.wait_idle()  # type: ignore[attr-defined]
        await h.settle()
        store = h.bot.store  # type: ignore[attr-defined]
        row = await store.tournaments.get(number)
        assert row is not None and row.status == "finished"
        entries = await store.tournaments.entries(number)
        winner = next(e for e in entries if e.place == 1)
        assert winner.prize == 3 * FEE  # 2-4 entrants: the winner takes all
        assert await store.tournaments.ledger_sums(number) == {
            "sng_fee": -3 * FEE,
            "sng_prize": 3 * FEE,
        }
        for p in players:
            won = 3 * FEE if uid(p) == winner.user_id else 0
            assert await balance(h, p) == start_chips - FEE + won
        summary = [m for m in h.messages(TABLE, include_ephemeral=False) if "🏆" in m.text]
        assert len(summary) == 1 and f"1. {winner.display_name}: {3 * FEE} chips" in summary[0].text
        assert f"Finished: {winner.display_name} won." in registration(h, number).text
        clock.ahead += 60  # past the players' click and command budgets
        standings = await h.slash(BOB, TABLE, "sitngo standings")
        first = f"1. {winner.display_name}: points 100 · wins 1 · cashes 1 · entries 1"
        assert not standings.ephemeral and first in standings.message.text  # public


async def test_bad_requests_get_a_private_answer_and_change_nothing(tmp_path) -> None:
    path, clock = tmp_path / "bad.db", Clock()
    async with DiscordHarness(sng_bot(path, clock)) as h:
        await h.connect(GUILD, {TABLE: "poker"}, MEMBERS)
        chips = grant(h)
        store = h.bot.store  # type: ignore[attr-defined]
        # a server where only moderators open tables: only they create Sit & Gos
        await h.slash(DAVE, TABLE, "settings who-opens", who="moderators")
        members = await h.slash(ALICE, TABLE, "sitngo create", game="a5-draw", seats=2)
        assert members.content == "On this server only moderators open tables."
        assert await store.tournaments.open_tournaments(GUILD) == []
        await h.slash(DAVE, TABLE, "settings who-opens", who="anyone")
        first = await create(h, ALICE, "a5-draw", seats=2, fee=FEE)
        reg = f"sng:{first}:reg"
        assert (await h.click(ALICE, registration(h, first), reg)).ephemeral
        twice = await h.click(ALICE, registration(h, first), reg)
        assert twice.ephemeral and twice.content == "You are registered already."
        assert len(await store.tournaments.entries(first)) == 1
        # starting with fewer than two, or by someone else
        early = await h.slash(BOB, TABLE, "sitngo start", number=first)
        assert early.content == "Only its creator or a moderator may do that."
        few = await h.slash(ALICE, TABLE, "sitngo start")
        assert few.content == "A Sit & Go starts with at least two players; registered: 1."
        # a fee above the player's available chips
        rich = await create(h, BOB, "a6-draw", seats=2, fee=chips + 1)
        short = await h.click(CAROL, registration(h, rich), f"sng:{rich}:reg")
        assert (
            short.content
            == f"The entry fee is {chips + 1} chips, but you have {chips} chips available."
        )
        assert await store.tournaments.entries(rich) == []
        not_in = await h.click(CAROL, registration(h, rich), f"sng:{rich}:unreg")
        assert not_in.content == "You are not registered for this Sit & Go."
        # the seats are full: it starts, and its buttons are gone (no late register)
        await h.click(BOB, registration(h, first), reg)
        row = await store.tournaments.get(first)
        assert row is not None and row.status == "running"
        assert registration(h, first).custom_ids() == []
        # a player at two tournaments at once
        elsewhere = await h.click(ALICE, registration(h, rich), f"sng:{rich}:reg")
        assert (
            elsewhere.content
            == f"You are already in Sit & Go #{first} on this server: one at a time."
        )
        assert await store.tournaments.entries(rich) == []
        # bad structure: a seat count the game does not have
        seats = await h.slash(CAROL, TABLE, "sitngo create", game="a5-draw", seats=8)
        assert seats.content == "A Sit & Go of this game has 2 to 5 seats, not 8."
        # a moderator cancels mid-play: every fee comes back, the table closes
        thread = int(h.threads(TABLE)[0]["id"])
        assert h.bot.manager.has_table(thread)  # type: ignore[attr-defined]
        stranger = await h.slash(CAROL, thread, "sitngo cancel")
        assert stranger.content == "Only its creator or a moderator may do that."
        cancelled = await h.slash(DAVE, thread, "sitngo cancel")
        assert (
            cancelled.content == f"Sit & Go #{first} is cancelled: every entry fee was given back."
        )
        await h.settle()
        assert not h.bot.manager.has_table(thread)  # type: ignore[attr-defined]
        assert [await balance(h, p) for p in (ALICE, BOB)] == [chips, chips]
        assert "Cancelled: every entry fee was given back." in registration(h, first).text
        again = await h.slash(ALICE, TABLE, "sitngo cancel", number=first)
        assert again.content == "This Sit & Go is over already: it finished or was cancelled."
        unknown = await h.slash(ALICE, TABLE, "sitngo start", number=999)
        assert unknown.content == "There is no such Sit & Go on this server."
        standings = await h.slash(ALICE, TABLE, "sitngo standings")
        assert "No Sit & Go has finished on this server yet." in standings.message.text


async def test_a_sit_and_go_started_as_the_bot_stopped_begins_after_the_restart(tmp_path) -> None:
    path, clock = tmp_path / "resume.db", Clock()
    async with DiscordHarness(sng_bot(path, clock)) as h:
        await h.connect(GUILD, {TABLE: "poker"}, MEMBERS)
        number = await create(h, ALICE, "a6-draw", seats=2)
        service = h.bot.tournaments  # type: ignore[attr-defined]
        for p in (ALICE, BOB):  # registered, and started, with no thread made yet
            row, _ = await service.register(GUILD, number, uid(p), p["username"])
        assert row.status == "running" and h.threads(TABLE) == []
        await h.restart(sng_bot(path, clock))
        await h.settle()
        threads = h.threads(TABLE)
        assert len(threads) == 1
        thread = int(threads[0]["id"])
        view = h.bot.manager.view(thread)  # type: ignore[attr-defined]
        assert view.hand is not None and {s.user_id for s in view.seats} == {uid(ALICE), uid(BOB)}
        assert f"Playing in <#{thread}>" in registration(h, number).text
