"""Kill tests: SIGKILL the manager's process at write boundaries, restart, check.

``tests/support/crash_child.py`` plays a scripted triple-draw session on a real SQLite
file in a child process. A probe run logs every COMMIT with what the session was
doing; the child is then killed just before and just after the first COMMIT of
each kind of step (open, join, deal, action, action with a reshuffle, timeout,
leaving, coming back, settling) and at random moments. After each kill a fresh
manager starts on the file and the test checks what a player would care about:
"""

from __future__ import annotations

import asyncio
import json
import random
import sqlite3
import sys
from collections.abc import Awaitable, Iterable
from pathlib import Path
from typing import Any

from bot.storage.migrations import MIGRATIONS
from tests.support.crash_child import CH, GUILD, ROSTER, heavy_draw
from tests.support.manager_helpers import check_ledger, close_manager, open_manager, play
from tests.support.paths import ROOT


async def run_child(base: Path, kill: str, after: float | None = None) -> int:
    """Run the session on ``base``.db (acks and commit log beside it); return the exit code.
    With ``after``, SIGKILL it from outside after that many seconds."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "tests.support.crash_child",
        str(base.with_suffix(".db")),
        str(base.with_suffix(".acks")),
        str(base.with_suffix(".log")),
        kill,
        cwd=ROOT,
        stderr=asyncio.subprocess.PIPE,
    )
    if after is None:
        _, err = await asyncio.wait_for(proc.communicate(), 30)
    else:
        try:
            _, err = await asyncio.wait_for(proc.communicate(), after)
        except TimeoutError:
            proc.kill()
            _, err = await proc.communicate()
    assert proc.returncode in (0, -9), err.decode()
    return proc.returncode


async def gather_all(cases: Iterable[Awaitable[None]]) -> None:
    """Run every case to its end (a failure must not leave children running), then fail."""
    results = await asyncio.gather(*cases, return_exceptions=True)
    for result in results:
        if isinstance(result, BaseException):
            raise result


def rows(db: Path, sql: str) -> list[tuple[Any, ...]]:
    conn = sqlite3.connect(db)
    try:
        return conn.execute(sql).fetchall()
    finally:
        conn.close()


def migrated(db: Path) -> bool:
    """The file exists and every migration committed. A kill may land before or between
    them; no step is played until the store is open, so there is nothing to check then
    (and the ledger's layout is the newest one's only once it is)."""
    return db.exists() and rows(db, "PRAGMA user_version")[0][0] == len(MIGRATIONS)


def person_ids(db: Path) -> dict[str, str]:
    """Stored records name people by token ("#3"): each token's Discord id, as text."""
    found = rows(db, "SELECT person_id, user_id FROM people")
    return {f"#{person}": str(user) for person, user in found}


def check_acknowledged(base: Path) -> int:
    """Every action the manager acknowledged before the kill is stored; return how many."""
    acks_file = base.with_suffix(".acks")
    if not acks_file.exists():
        return 0  # killed before the first acknowledgement
    acks = [json.loads(line) for line in acks_file.read_text().splitlines()]
    if not acks:  # the child creates the file at start-up, maybe before the first migration
        return 0
    db = base.with_suffix(".db")
    ids = person_ids(db)
    stored = {
        (h, i): {**json.loads(a), "player": ids[json.loads(a)["player"]]}
        for h, i, a in rows(db, "SELECT hand_id, idx, action_json FROM hand_actions")
    }
    for ack in acks:
        action = stored.get((ack["hand"], ack["turn"]))
        assert action is not None, f"acknowledged but lost: {ack}"
        assert action["player"] == ack["player"]
        if "action" in ack:
            assert action == ack["action"], (action, ack)
    return len(acks)


def check_rotation(db: Path) -> None:
    """RULES.md §1: the button moves one seat (to the next dealt-in seat) per hand, and the
    stored button is the last hand's dealer. Seats are fixed: ROSTER[i] sits in seat i."""
    previous: int | None = None
    ids = person_ids(db)
    for hand_id, header_json in rows(db, "SELECT hand_id, header_json FROM hands ORDER BY 1"):
        header = json.loads(header_json)
        dealt = [ROSTER.index(int(ids[s["player"]])) for s in header["seats"]]
        dealer = dealt[header["dealer"]]
        order = sorted(dealt)
        expected = (
            order[0] if previous is None else next((n for n in order if n > previous), order[0])
        )
        assert dealer == expected, f"hand {hand_id}: seat {dealer} deals, not seat {expected}"
        previous = dealer
    ((button,),) = rows(db, f"SELECT button FROM tables WHERE channel_id = {CH}")
    assert button == previous


async def restart_and_check(base: Path) -> None:
    """A fresh manager on the killed file: acknowledged actions kept, chips conserved,
    each hand settled at most once, holds only for the live hand it restores, which is
    playable to its end; then the button rotation (one more hand is dealt to see it move)."""
    db = base.with_suffix(".db")
    check_acknowledged(base)
    if not db.exists():
        return  # killed before the file existed
    check_ledger(db, allow_live=True)
    store, m = await open_manager(db, seed=1)
    live = await store.history.load_live_hands()
    assert len(live) <= 1
    if not m.has_table(CH):
        assert not live
        await close_manager(store, m)
        return
    assert m.table(CH).hand_id == (live[0].hand_id if live else None)
    await play(m, CH, "end", agent=heavy_draw)  # raises if the hand cannot go on
    assert m.view(CH).hand is None
    check_ledger(db)  # no hold left behind: no hand is live now
    if len([s for s in m.table(CH).seats if not s.sitting_out]) >= 2:
        await m.deal(CH)
        check_rotation(db)
        await play(m, CH, "next", agent=heavy_draw)
    check_rotation(db)
    for user in ROSTER:
        account = await store.ledger.balance(GUILD, user)
        assert account is None or account.held == 0
    await close_manager(store, m)
    check_ledger(db)


def kill_points(log: Path) -> list[str]:
    """The first COMMIT of each kind of step, and the second reshuffle; before and after."""
    firsts: dict[str, int] = {}
    reshuffles = []
    for line in log.read_text().splitlines():
        number, step, doing = line.split(" ", 2)
        kind = f"{step} {doing.split()[0]}"
        firsts.setdefault(kind, int(number))
        if doing == "reshuffle":
            reshuffles.append(int(number))
    assert {"start_hand deal", "append_action reshuffle", "append_action timeout"} <= set(firsts)
    assert {"finish_hand act", "save_seats leave", "save_seats back"} <= set(firsts)
    chosen = sorted({*firsts.values(), reshuffles[1]})
    return [f"{n}:{moment}" for n in chosen for moment in ("before", "after")]


async def test_kills_at_every_kind_of_write_boundary(tmp_path: Path) -> None:
    probe = tmp_path / "probe"
    assert await run_child(probe, "none") == 0
    assert check_acknowledged(probe) > 50
    check_rotation(probe.with_suffix(".db"))
    check_ledger(probe.with_suffix(".db"))
    points = kill_points(probe.with_suffix(".log"))
    parallel = asyncio.Semaphore(3)

    async def case(point: str) -> None:
        base = tmp_path / point.replace(":", "-")
        async with parallel:
            assert await run_child(base, point) == -9, f"not killed at {point}"
            await restart_and_check(base)

    await gather_all(case(p) for p in points)


async def test_kills_at_random_moments_then_carry_on(tmp_path: Path) -> None:
    """Killed at random moments, restarted by the same session (twice), then finished."""
    rng = random.Random(7)
    parallel = asyncio.Semaphore(3)
    codes: list[int] = []

    async def case(n: int) -> None:
        base = tmp_path / f"random{n}"
        async with parallel:
            for _ in range(2):
                codes.append(await run_child(base, "none", after=rng.uniform(0.3, 1.0)))
                check_acknowledged(base)
                if migrated(base.with_suffix(".db")):  # a kill can land before the last migration
                    check_ledger(base.with_suffix(".db"), allow_live=True)
            assert await run_child(base, "none") == 0
            await restart_and_check(base)

    await gather_all(case(n) for n in range(4))
    assert -9 in codes  # some runs were cut short
