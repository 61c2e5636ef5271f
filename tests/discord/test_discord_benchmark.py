"""bench/discord.py's code path at a tiny size, so that the benchmark cannot rot. Nothing
here says how fast the machine is: only that the run completes and its counts agree."""

from __future__ import annotations

import asyncio.events

from bench.discord import GAMES, Passes, plan, report, run_once


async def test_the_discord_benchmark_plays_every_game_and_its_counts_agree(tmp_path, capsys):
    figures = await run_once(tables=4, hands=1, seed=3, latency=0.0, directory=tmp_path)
    # (run_once itself checks that every interaction was answered and that each table
    # message ended equal to the table's latest public view)
    assert {seat.variant for seat in plan(4)} == set(GAMES)
    assert figures.hands == 4 and figures.tally.deals == 4
    assert figures.actions == figures.stored_actions > 0
    assert len(figures.tally.tokens) == figures.actions + figures.tally.deals + len(
        figures.tally.refused
    )
    assert len(figures.ack) == len(figures.tally.tokens)
    # each command got its private answer; a click on the table message none (issue 39),
    # unless it was refused after its deferral (a button the table had moved past), or it
    # ended its hand: the result is then a public followup of that click (which moves come
    # by click and which by command depends on when "Discord" shows each table message, so
    # on the machine's speed: a loaded machine once made a hand-ending move by click)
    commands = len(figures.tally.tokens) - figures.tally.clicks
    most = commands + len(figures.tally.refused) + min(figures.hands, figures.tally.clicks)
    assert commands <= len(figures.answer) <= most
    assert figures.edits == figures.presenter_edits > 0
    assert figures.requests >= figures.webhook >= 2 * len(figures.tally.tokens)
    assert 0 < figures.loop_busy <= 1.05  # the loop thread's CPU over wall time
    report([figures, figures], 0.0)
    printed = capsys.readouterr().out
    for target in ("initial response p99", "longest event-loop stall", "table edits per action"):
        assert target in printed


async def test_the_benchmark_can_leave_the_players_part_out_of_the_loop_passes(tmp_path, capsys):
    run = asyncio.events.Handle._run
    passes = Passes()
    figures = await run_once(
        tables=4, hands=1, seed=3, latency=0.0, directory=tmp_path, passes=passes
    )
    assert asyncio.events.Handle._run is run  # asyncio is given back as it was
    assert 0 < passes.driver < passes.total  # the players did some of the loop's work
    assert 0 < passes.handed < passes.driver  # handing the interactions: the bot's part
    assert passes.longest_bot > 0  # the bot's own callbacks, timed pass by pass
    assert passes.longest_bot_cpu <= passes.longest_bot  # a thread runs at most all the time
    assert figures.sweep > 0
    report([figures], 0.0)
    printed = capsys.readouterr().out
    assert "longest loop pass, the players' part left out" in printed
    assert "longest stall, the players' part left out" in printed
    assert "of which the loop's thread was on the CPU" in printed
    assert "a sweep's full pass" in printed
