"""``python -m bot migrate | export | copy-sqlite-to-postgres`` (bot/storage/ops.py)."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from bot import operations
from bot.storage.migrations import MIGRATIONS
from bot.storage.store import Store
from tests.support.databases import PG_URL, SKIP_REASON, Databases, Target, drop_schema, new_schema
from tests.support.manager_helpers import (
    GRANT,
    check_ledger,
    close_manager,
    open_manager,
    play,
    seat_players,
)
from tests.support.paths import ROOT

G = 77
REPO = ROOT
needs_pg = pytest.mark.skipif(not PG_URL, reason=SKIP_REASON)


async def _some_play(target: Target, leave_live: bool = True) -> None:
    """Three finished hands at two tables, and (by default) one hand left mid-way."""
    store, m = await open_manager(target, seed=9)
    await seat_players(m, 10, "a5-draw", [1, 2, 3], guild=G)
    await seat_players(m, 11, "abyssinia", [3, 4], guild=G)
    for channel in (10, 11, 10):
        await m.deal(channel)
        await play(m, channel, f"ops{channel}")
    if leave_live:
        await m.deal(11)
        await play(m, 11, "live", limit=2)
    await close_manager(store, m)


def _use(monkeypatch: pytest.MonkeyPatch, target: Target) -> None:
    monkeypatch.delenv("DATABASE_URL", raising=False)
    if isinstance(target, str):
        monkeypatch.setenv("DATABASE_URL", target)
    else:
        monkeypatch.setenv("DATABASE_PATH", str(target))


def test_migrate_brings_a_database_to_the_latest_version(
    databases: Databases, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    target = databases.new()
    _use(monkeypatch, target)
    assert operations.run(["migrate"]) == 0
    out = capsys.readouterr().out
    assert f"schema version {len(MIGRATIONS)}" in out
    assert "PostgreSQL" in out if isinstance(target, str) else str(target) in out
    assert "postgresql://" not in out  # a URL may hold a password
    assert operations.run(["migrate"]) == 0  # again: nothing to do, same answer
    assert f"schema version {len(MIGRATIONS)}" in capsys.readouterr().out


def test_export_gives_the_guilds_ledger_as_json(
    databases: Databases, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    target = databases.new()
    asyncio.run(_some_play(target))
    snap = check_ledger(target, allow_live=True)
    _use(monkeypatch, target)
    out = tmp_path / "g.json"
    assert operations.run(["export", "--guild", str(G), "--output", str(out)]) == 0
    data = json.loads(out.read_text())
    assert data["guild_id"] == G
    balances = {a["user_id"]: a["balance"] for a in data["accounts"]}
    assert balances == {user: bal for _g, user, bal, *_ in snap["accounts"]}
    assert sum(balances.values()) == 4 * GRANT  # chips only move between players
    for account in data["accounts"]:
        entries = [e["amount"] for e in data["ledger"] if e["user_id"] == account["user_id"]]
        assert sum(entries) == account["balance"]
        assert account["available"] == account["balance"] - account["held"]
    assert [h["status"] for h in data["hands"]] == ["complete"] * 3 + ["live"]
    assert sum(p["net"] for p in data["hands"][0]["players"]) == 0
    assert sum(a["held"] for a in data["accounts"]) > 0  # the live hand's holds
    assert operations.run(["export", "--guild", "999", "--output", str(out)]) == 0
    assert json.loads(out.read_text())["accounts"] == []


@needs_pg
def test_copy_moves_a_sqlite_ledger_and_the_bot_carries_on(tmp_path: Path) -> None:
    path, url = tmp_path / "old.db", new_schema()
    try:
        asyncio.run(_some_play(path))
        before = check_ledger(path, allow_live=True)
        done = subprocess.run(
            [sys.executable, "-m", "bot", "copy-sqlite-to-postgres", "--sqlite", str(path)],
            env={"PATH": "/usr/bin:/bin", "DATABASE_URL": url, "HOME": str(tmp_path)},
            cwd=tmp_path,  # no .env
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        assert "4 accounts, 4 hands" in done.stdout and "every balance verified" in done.stdout
        assert "postgresql://" not in done.stdout + done.stderr
        assert check_ledger(url, allow_live=True) == before  # every row, as it was

        async def carry_on() -> None:
            store, m = await open_manager(url, seed=9)  # recovers the live hand from PostgreSQL
            assert await play(m, 11, "live") > 0
            await m.deal(10)  # new hands get new ids after the copied ones
            await play(m, 10, "after")
            await close_manager(store, m)

        asyncio.run(carry_on())
        check_ledger(url)
        # The target now has rows: a second copy is refused and changes nothing.
        assert operations.run(["copy-sqlite-to-postgres", "--sqlite", str(path), "--url", url]) == 1
        assert len(check_ledger(url)["hands"]) == 5
    finally:
        drop_schema(url)


@needs_pg
def test_a_copy_that_does_not_verify_is_rolled_back(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, url = tmp_path / "old.db", new_schema()
    try:
        asyncio.run(_some_play(path, leave_live=False))
        with sqlite3.connect(path) as lite:  # a balance that its ledger does not explain
            lite.execute("UPDATE accounts SET balance = balance + 5 WHERE user_id = 2")
        assert operations.run(["copy-sqlite-to-postgres", "--sqlite", str(path), "--url", url]) == 1
        assert "balance" in capsys.readouterr().err

        async def empty() -> bool:
            async with await Store.open(url) as store:
                return (
                    await store.ledger.balance(G, 1) is None
                    and await store.tables.load_tables() == []
                )

        assert asyncio.run(empty())
    finally:
        drop_schema(url)


def test_unknown_command_and_missing_target_are_one_line(tmp_path: Path) -> None:
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "DATABASE_PATH": str(tmp_path / "x.db")}
    done = subprocess.run(
        [sys.executable, "-m", "bot", "copy-sqlite-to-postgres"],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1
    assert done.stderr.strip() == "error: give the PostgreSQL database: DATABASE_URL or --url"
