"""A stop signal at any moment of start-up ends ``python -m bot`` cleanly, within docker's grace.

Each test starts the real bot in a child process, holds it at one phase of start-up with a
stall of the test's own, and sends SIGTERM (``docker stop``) or SIGINT (Ctrl-C):

- the imports: importing discord.py sleeps (tests/support/stall);
- the database check: another connection holds the SQLite file exclusively;
- the migration: another connection holds SQLite's write lock, or PostgreSQL's migration lock;
- a "PostgreSQL" that accepts the connection and never answers (a socket of the test's own);
- the login to "Discord": the network guard sends it to a port that never answers.

Every stall lasts STALL seconds or forever (the bot's own SQLite lock wait is 5 s, after
which it would fail with an error line), longer than docker stop's grace period GRACE: an
exit with status 0 within GRACE of the signal is the signal's doing. Where the machine
allows it (``unshare``), the child is PID 1 of its own PID namespace, as in a container,
where the kernel drops every signal the process has installed no handler for.
"""

from __future__ import annotations

import contextlib
import functools
import os
import select
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import asyncpg
import pytest

from bot.storage.postgres import MIGRATION_LOCK
from tests.support.databases import PG_URL, SKIP_REASON, drop_schema, new_schema, run_sync
from tests.support.paths import ROOT

STALL_SITE = ROOT / "tests" / "support" / "stall"
GRACE = 10.0  # docker stop's default: after it, SIGKILL (exit 137)
STALL = 60.0
TOKEN = "MTIzNDU2Nzg5MDEyMzQ1Njc4.secret-part.never-print-me"
OUR_VARS = ("DISCORD_TOKEN", "DATABASE_PATH", "DATABASE_URL", "SHARD_COUNT", "SHARD_IDS")
OUR_VARS += ("STARTING_GRANT", "TURN_TIMEOUT", "NEXT_HAND_DELAY", "DEV_GUILD_ID", "LOG_LEVEL")


@functools.cache
def as_pid1() -> tuple[str, ...]:
    """The command prefix that makes the child PID 1 of a new PID namespace, if allowed."""
    unshare = shutil.which("unshare")
    prefix = (unshare, "--pid", "--fork", "--kill-child") if unshare else ()
    if prefix:
        probe = subprocess.run([*prefix, "true"], capture_output=True, timeout=60)
        if probe.returncode != 0:
            prefix = ()
    return prefix  # type: ignore[return-value]


@dataclass
class Child:
    proc: subprocess.Popen[str]
    pid: int  # the bot's process as seen from here (PID 1 in its namespace under unshare)
    tmp: Path

    def alive(self) -> bool:
        return self.proc.poll() is None

    def opened(self, path: Path) -> bool:
        """Whether the bot holds ``path`` open now."""
        with contextlib.suppress(OSError):
            for fd in (Path("/proc") / str(self.pid) / "fd").iterdir():
                with contextlib.suppress(OSError):
                    if os.readlink(fd) == str(path):
                        return True
        return False

    def log(self, name: str) -> list[str]:
        path = self.tmp / name
        return path.read_text().splitlines() if path.exists() else []


def start_bot(tmp_path: Path, env: dict[str, str], *args: str) -> Child:
    clean = {k: v for k, v in os.environ.items() if k not in OUR_VARS}
    clean.update(
        DISCORD_TOKEN=TOKEN,
        DATABASE_PATH=str(tmp_path / "poker.db"),
        PYTHONPATH=os.pathsep.join([str(STALL_SITE), str(ROOT)]),
        NETGUARD_LOG=str(tmp_path / "netguard.log"),
        STALL_LOG=str(tmp_path / "stall.log"),
        STALL_SECONDS=str(STALL),
    )
    clean.update(env)
    prefix = as_pid1()
    proc = subprocess.Popen(
        [*prefix, sys.executable, "-m", "bot", *args],
        cwd=tmp_path,  # no .env there
        env=clean,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    pid = proc.pid
    if prefix:  # the bot is unshare's one child
        deadline = time.monotonic() + 60
        while not (found := _children(proc.pid)):
            assert proc.poll() is None and time.monotonic() < deadline, "unshare never forked"
            time.sleep(0.01)
        (pid,) = found
    return Child(proc, pid, tmp_path)


def _children(parent: int) -> list[int]:
    found = []
    for status in Path("/proc").glob("[0-9]*/status"):
        with contextlib.suppress(OSError):
            if f"\nPPid:\t{parent}\n" in status.read_text():
                found.append(int(status.parent.name))
    return found


def wait_until(child: Child, ready: Callable[[Child], bool], phase: str) -> None:
    deadline = time.monotonic() + 120  # start-up on a loaded machine; not a speed claim
    while not ready(child):
        if not child.alive():
            out, err = child.proc.communicate()
            pytest.fail(f"the bot ended before reaching {phase}:\n{err}")
        assert time.monotonic() < deadline, f"the bot never reached {phase}"
        time.sleep(0.02)


def stop(child: Child, sig: signal.Signals) -> tuple[str, str]:
    os.kill(child.pid, sig)
    try:
        return child.proc.communicate(timeout=GRACE)
    except subprocess.TimeoutExpired:
        child.proc.kill()
        out, err = child.proc.communicate()
        pytest.fail(f"still running {GRACE:.0f} s after {sig.name} (docker would kill it):\n{err}")


# ------------------------------------------------------------------------------ phases ----
# Each phase: the environment that makes the bot stall there, and when it has got there.

Ready = Callable[[Child], bool]
Held = tuple[dict[str, str], Ready]
Phase = Iterator[Held]


@contextlib.contextmanager
def imports(tmp_path: Path) -> Phase:
    yield {"STALL_IMPORT": "discord"}, lambda child: "stalled discord" in child.log("stall.log")


@contextlib.contextmanager
def database_check(tmp_path: Path) -> Phase:
    path = tmp_path / "poker.db"
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("CREATE TABLE other (x)")
    holder.execute("BEGIN EXCLUSIVE")  # the bot's switch to WAL waits for it
    try:
        yield {}, lambda child: child.opened(path)
    finally:
        holder.close()


@contextlib.contextmanager
def sqlite_migration(tmp_path: Path) -> Phase:
    path = tmp_path / "poker.db"
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("PRAGMA journal_mode = WAL")  # an empty database, schema v0
    holder.execute("BEGIN IMMEDIATE")  # the migration's BEGIN IMMEDIATE waits for it
    try:
        # Only the bot's open connection has the -wal file open: past the check's probes.
        yield {}, lambda child: child.opened(Path(f"{path}-wal"))
    finally:
        holder.close()
    with sqlite3.connect(path) as conn:  # the migration changed nothing
        assert conn.execute("PRAGMA user_version").fetchone() == (0,)
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    conn.close()


@contextlib.contextmanager
def postgres_migration(tmp_path: Path) -> Phase:
    if not PG_URL:
        pytest.skip(SKIP_REASON)
    url = new_schema()
    holder = run_sync(asyncpg.connect(PG_URL))
    run_sync(holder.execute("SELECT pg_advisory_lock($1)", MIGRATION_LOCK))

    def waiting(child: Child) -> bool:
        sql = "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"
        return bool(run_sync(holder.fetchval(sql)))

    try:
        yield {"DATABASE_URL": url}, waiting
    finally:
        run_sync(holder.close())
    tables = run_sync(_tables(url))
    drop_schema(url)
    assert tables == []  # the migration changed nothing


async def _tables(url: str) -> list[str]:
    conn = await asyncpg.connect(url)
    try:
        sql = "SELECT table_name FROM information_schema.tables WHERE table_schema = $1"
        return [r[0] for r in await conn.fetch(sql, url.rsplit("search_path=", 1)[1])]
    finally:
        await conn.close()


@contextlib.contextmanager
def silent_postgres(tmp_path: Path) -> Phase:
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(4)
        port = server.getsockname()[1]
        url = f"postgresql://poker:never-print-me@127.0.0.1:{port}/poker"
        accepted: list[socket.socket] = []

        def connected(child: Child) -> bool:
            if select.select([server], [], [], 0)[0]:
                accepted.append(server.accept()[0])  # and never a byte back
            return bool(accepted)

        try:
            yield {"DATABASE_URL": url}, connected
        finally:
            for conn in accepted:
                conn.close()


@contextlib.contextmanager
def discord_login(tmp_path: Path) -> Phase:
    with socket.socket() as sink:
        sink.bind(("127.0.0.1", 0))
        sink.listen(16)
        env = {"NETGUARD_SINK": str(sink.getsockname()[1])}
        yield env, lambda child: any("-> sink" in a for a in child.log("netguard.log"))


PHASES: dict[
    str, Callable[[Path], contextlib.AbstractContextManager[tuple[dict[str, str], Ready]]]
] = {
    "imports": imports,
    "database check": database_check,
    "migration (SQLite)": sqlite_migration,
    "migration (PostgreSQL)": postgres_migration,
    "PostgreSQL that never answers": silent_postgres,
    "Discord login": discord_login,
}
# Stopped where it was held: it never tried to reach Discord (loopback is not logged).
NO_NETWORK_YET = set(PHASES) - {"Discord login"}


# SIGINT takes the same paths as SIGTERM: tried once per kind of handler (before the event
# loop, the loop's before the bot exists, the loop's closing the bot).
CASES = [(phase, signal.SIGTERM) for phase in PHASES] + [
    (phase, signal.SIGINT) for phase in ("imports", "migration (SQLite)", "Discord login")
]


@pytest.mark.parametrize(("phase", "sig"), CASES, ids=[f"{p}-{s.name}" for p, s in CASES])
def test_a_stop_signal_at_any_phase_of_start_up_exits_0_within_the_grace(tmp_path, phase, sig):
    with PHASES[phase](tmp_path) as (env, ready):
        child = start_bot(tmp_path, env)
        try:
            wait_until(child, ready, phase)
            time.sleep(0.2)  # inside the stall, not at its edge
            out, err = stop(child, sig)
        finally:
            if child.alive():
                child.proc.kill()
                child.proc.communicate()
    assert child.proc.returncode == 0, err
    assert "Traceback" not in err and "error:" not in err, err
    assert f"received {sig.name}" in err, err
    assert "never-print-me" not in out + err
    reached = [a for a in child.log("netguard.log") if a != "armed"]
    if phase in NO_NETWORK_YET:
        assert reached == []
    else:  # the phase held it at Discord's door
        assert any("-> sink" in a for a in reached), reached
    # before the event loop there is no bot to close: the stop is plain
    assert ("closed cleanly" in err) == (phase != "imports"), err


def test_a_stop_while_a_command_starts_ends_it_with_128_plus_the_signal(tmp_path):
    """``python -m bot migrate`` (and the other commands): caught as early, but a command
    stopped is a command not done, so its status says so, as a shell's would."""
    with imports(tmp_path) as (env, ready):
        child = start_bot(tmp_path, {**env, "STALL_IMPORT": "asyncpg"}, "migrate")
        try:
            wait_until(child, lambda c: "stalled asyncpg" in c.log("stall.log"), "its imports")
            out, err = stop(child, signal.SIGTERM)
        finally:
            if child.alive():
                child.proc.kill()
                child.proc.communicate()
    assert child.proc.returncode == 128 + signal.SIGTERM, err
    assert err == "stopped by SIGTERM\n" and out == ""
    assert not (tmp_path / "poker.db").exists()  # nothing was migrated
