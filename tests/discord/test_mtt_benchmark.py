"""bench/mtt_discord.py's code path at 60 entrants, so that the benchmark cannot rot. Nothing
here says how fast the machine is: only that the tournament finishes correctly through
the fake Discord and that the chips were conserved at every check."""

from __future__ import annotations

from bench.mtt_discord import report, run_once


async def test_the_mtt_benchmark_plays_sixty_entrants_to_a_winner(tmp_path, capsys):
    figures = await run_once(
        entrants=60, seed=2, latency=0.0, directory=tmp_path, think=0.0, level=60.0, rate=30.0
    )
    # (run_once itself checks after every counted hand, move and break that the entries'
    # stacks add up to 60 x the stack; at the end one winner, every place given, the prizes
    # equal to the fees, the ledger balanced, every table closed, every interaction answered)
    assert figures.tables >= 10  # ten six-handed tables at the start, none reused
    assert figures.tally.hands > 0 and figures.tally.actions > figures.tally.hands
    assert 0 < figures.tally.checks <= figures.tally.hands + 200  # a check per event or fewer
    assert figures.tally.clicks > 0  # the players clicked the threads' table messages
    assert any(what == "a table broken" for _, what in figures.tally.happened)
    assert len(figures.ack) == len(figures.tally.tokens)
    report(figures, (0.0, 0.0), 0.0, 2.0)
    printed = capsys.readouterr().out
    assert f"won by {figures.winner}" in printed
    for metric in ("longest event-loop stall", "X: global-limited", "initial response p99"):
        assert metric in printed
