"""``python -m bot`` from the outside: bad configuration, a bad database or no Discord is one
clear line, and the only line it prints (stop signals: tests/app/test_startup_signals.py).

No test here can reach the network: every child runs with ``tests/support/netguard`` first on its
PYTHONPATH, whose sitecustomize refuses (or sinks into a silent local port) every lookup
and connection outside the loopback, and logs each one, so a test also proves where the
bot stopped: before any network attempt, or at its first one.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from bot.storage.migrations import MIGRATIONS
from bot.storage.sqlite import open_database
from tests.support.paths import ROOT

NETGUARD = ROOT / "tests" / "support" / "netguard"
OUR_VARS = (
    "DISCORD_TOKEN",
    "DATABASE_PATH",
    "DATABASE_URL",
    "STARTING_GRANT",
    "TURN_TIMEOUT",
    "NEXT_HAND_DELAY",
    "DEV_GUILD_ID",
    "LOG_LEVEL",
)
TOKEN = "MTIzNDU2Nzg5MDEyMzQ1Njc4.secret-part.never-print-me"


def bot_env(tmp_path: Path, **env: str) -> dict[str, str]:
    clean = {k: v for k, v in os.environ.items() if k not in OUR_VARS}
    clean.update(
        DATABASE_PATH=str(tmp_path / "poker.db"),
        PYTHONPATH=os.pathsep.join([str(NETGUARD), str(ROOT)]),
        NETGUARD_LOG=str(tmp_path / "netguard.log"),
    )
    clean.update(env)
    return clean


def run_bot(
    tmp_path: Path, *, prefix: tuple[str, ...] = (), **env: str
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*prefix, sys.executable, "-m", "bot"],
        cwd=tmp_path,  # no .env there
        env=bot_env(tmp_path, **env),
        capture_output=True,
        text=True,
        timeout=120,
    )


def network_log(tmp_path: Path) -> list[str]:
    lines = (tmp_path / "netguard.log").read_text().splitlines()
    assert lines[0] == "armed", "the network guard was not loaded"
    return lines[1:]


def one_error_line(proc: subprocess.CompletedProcess[str]) -> str:
    """The one line ``python -m bot`` printed (at the default LOG_LEVEL): an error line."""
    assert proc.returncode != 0
    assert proc.stdout == ""
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:"), proc.stderr
    assert "never-print-me" not in proc.stderr
    return lines[0]


def test_missing_token_is_one_line(tmp_path):
    line = one_error_line(run_bot(tmp_path))
    assert "DISCORD_TOKEN" in line
    assert network_log(tmp_path) == []


@pytest.mark.parametrize(
    ("name", "value"),
    [("TURN_TIMEOUT", "-1"), ("STARTING_GRANT", "lots"), ("STARTING_GRANT", "1e30")],
)
def test_invalid_setting_is_one_line_naming_it(tmp_path, name, value):
    line = one_error_line(run_bot(tmp_path, DISCORD_TOKEN=TOKEN, **{name: value}))
    assert name in line and ("from 1 " in line or "from 5 " in line)
    assert network_log(tmp_path) == []


def test_unreachable_discord_is_one_line_and_the_token_never_shows(tmp_path):
    proc = run_bot(tmp_path, DISCORD_TOKEN=TOKEN)
    line = one_error_line(proc)
    assert "cannot reach Discord" in line
    attempts = network_log(tmp_path)
    assert attempts and all(a.endswith("refused") for a in attempts)
    assert any("discord.com" in a for a in attempts)  # the bot did try, and was stopped
    assert (tmp_path / "poker.db").exists()  # the database was opened first


# ------------------------------------------------------------------- database problems ----


def _bot_database(path: Path) -> bytes:
    async def make() -> None:
        await (await open_database(path)).close()

    asyncio.run(make())
    return path.read_bytes()


def _random_bytes(tmp_path: Path) -> Path:
    path = tmp_path / "random.db"
    path.write_bytes(os.urandom(8192))
    return path


def _truncated(tmp_path: Path) -> Path:
    path = tmp_path / "truncated.db"
    data = _bot_database(path)
    path.write_bytes(data[: len(data) // 2])
    return path


def _newer_schema(tmp_path: Path) -> Path:
    path = tmp_path / "newer.db"
    _bot_database(path)
    with sqlite3.connect(path) as conn:
        conn.execute(f"PRAGMA user_version = {len(MIGRATIONS) + 1}")
    conn.close()
    return path


def _directory(tmp_path: Path) -> Path:
    path = tmp_path / "a-folder.db"
    path.mkdir()
    return path


def _under_a_file(tmp_path: Path) -> Path:
    (tmp_path / "plain-file").write_text("not a folder")
    return tmp_path / "plain-file" / "poker.db"


def _under_proc(tmp_path: Path) -> Path:
    return Path("/proc/self/poker.db")


CASES = {
    "random bytes": (_random_bytes, "is not a SQLite database"),
    "truncated": (_truncated, "is damaged"),
    "newer schema": (_newer_schema, f"newer than this code (v{len(MIGRATIONS)})"),
    "a directory": (_directory, "is a directory"),
    "under a regular file": (_under_a_file, "is a file, not a folder"),
    "under /proc": (_under_proc, "cannot be created"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_database_problem_is_one_line_naming_the_file_and_changes_nothing(tmp_path, case):
    make, reason = CASES[case]
    path = make(tmp_path)
    before = path.read_bytes() if path.is_file() else None
    line = one_error_line(run_bot(tmp_path, DISCORD_TOKEN=TOKEN, DATABASE_PATH=str(path)))
    assert line.startswith(f"error: database {path} ") and reason in line, line
    assert network_log(tmp_path) == []  # checked before any network attempt
    if before is None:  # nothing was there to change: and nothing was made
        assert not path.is_file()
    else:
        assert path.read_bytes() == before
        assert not Path(f"{path}-wal").exists() and not Path(f"{path}-shm").exists()


def test_read_only_database_is_one_line_and_changes_nothing(tmp_path):
    path = tmp_path / "read-only.db"
    before = _bot_database(path)
    path.chmod(0o444)
    root = os.geteuid() == 0  # root writes anyway: drop the capability that lets it
    setpriv = shutil.which("setpriv") or ""
    assert setpriv or not root, "setpriv (util-linux) is needed to test a read-only file as root"
    drop = (setpriv, "--inh-caps=-dac_override", "--bounding-set=-dac_override")
    prefix: tuple[str, ...] = drop if root else ()
    proc = run_bot(tmp_path, prefix=prefix, DISCORD_TOKEN=TOKEN, DATABASE_PATH=str(path))
    line = one_error_line(proc)
    assert line.startswith(f"error: database {path} ") and "read-only" in line
    assert path.read_bytes() == before
    assert network_log(tmp_path) == []
