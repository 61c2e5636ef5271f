"""``python -m bot`` from the outside: bad configuration or no Discord is one clear line."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest


def run_bot(tmp_path, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if k not in ("DISCORD_TOKEN", "TURN_TIMEOUT")}
    clean.update(DATABASE_PATH=str(tmp_path / "poker.db"), **env)
    return subprocess.run(
        [sys.executable, "-m", "bot"],
        cwd=tmp_path,  # no .env there
        env={**clean, "PYTHONPATH": os.getcwd()},
        capture_output=True,
        text=True,
        timeout=120,
    )


def one_error_line(proc: subprocess.CompletedProcess[str]) -> str:
    assert proc.returncode != 0
    assert "Traceback" not in proc.stderr
    errors = [line for line in proc.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, proc.stderr
    return errors[0]


def test_missing_token_is_one_line(tmp_path):
    line = one_error_line(run_bot(tmp_path))
    assert "DISCORD_TOKEN" in line


@pytest.mark.parametrize(("name", "value"), [("TURN_TIMEOUT", "-1"), ("STARTING_GRANT", "lots")])
def test_invalid_setting_is_one_line_naming_it(tmp_path, name, value):
    line = one_error_line(run_bot(tmp_path, DISCORD_TOKEN="x.y.z", **{name: value}))
    assert name in line


def test_unreachable_or_rejecting_discord_is_one_line_and_the_token_never_shows(tmp_path):
    token = "MTIzNDU2Nzg5MDEyMzQ1Njc4.secret-part.never-print-me"
    proc = run_bot(tmp_path, DISCORD_TOKEN=token)
    line = one_error_line(proc)
    assert "Discord" in line
    assert "never-print-me" not in proc.stderr + proc.stdout
