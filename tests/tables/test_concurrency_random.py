"""A seeded storm of concurrent requests of every kind at ~30 tables, then its audit.

``bench/concurrency.py`` is the storm and the audit (its docstring lists both); here a
short run of it on each backend. The long run is ``python bench/concurrency.py``
(docs/benchmarks.md).
"""

from __future__ import annotations

from dataclasses import replace

from bench.concurrency import KINDS, Plan, Report, run
from tests.support.databases import Databases

# Closes racing the other steps at their table (code review R1: a step queued behind a
# close ran on the closed table and seated a player there). Left out of one storm, which
# then plays longer hands at tables that stay open.
CLOSES = ("close", "close_while_settling", "close_racing")
SHORT = Plan(seed=11, bursts=120, burst_size=10)


def assert_clean(report: Report) -> None:
    """What the audit found, in full; and that it audited something real."""
    print(report.figures())  # shown with -s, and with a failure
    assert report.violations == [], report.figures()
    assert report.errors == [], report.figures()
    assert report.stall_cpu < 0.2, report.figures()  # no blocking call on the event loop
    assert report.hands_finished >= 5 and report.replayed == report.hands_finished
    assert report.replayed_cli >= 1
    assert report.refusals_checked >= 50  # refusals compared before and after
    assert len(report.refusals) >= 10  # of many kinds
    assert report.live_hands_audited >= 1


async def test_a_storm_of_requests_without_closes_leaves_everything_consistent(
    databases: Databases,
) -> None:
    plan = replace(SHORT, kinds=tuple(k for k in KINDS if k not in CLOSES))
    report = await run(databases.target("storm.db"), plan)
    assert_clean(report)
    assert report.settings_checked >= 3
    assert {"join", "deal", "act", "forget", "kick", "practice", "settings"} <= set(report.requests)


async def test_a_storm_with_closes_racing_every_other_step(databases: Databases) -> None:
    plan = replace(SHORT, seed=12)
    report = await run(databases.target("storm.db"), plan)
    assert_clean(report)
    assert report.requests["close"] >= 20
