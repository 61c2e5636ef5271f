"""Issue 40 from the operator's side: the settings, the endpoint of a real ``python -m bot``,
the container's health command, the JSON log lines, and the event loop's lag.

The end-to-end half (a hand played, the counters scraped, the database taken away) is
tests/discord/test_metrics_end_to_end.py.
"""

from __future__ import annotations

import asyncio
import io
import json
import logging
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from bot import logs
from bot.logs import JsonFormatter, LogFormat, log_context
from bot.metrics import METRICS, Metrics
from bot.settings import Settings, SettingsError, load_settings
from bot.storage.store import Store
from tests.app.test_container import env_file, final_stage, image_env
from tests.app.test_startup import bot_env, network_log, one_error_line, run_bot
from tests.app.test_startup_signals import (
    TOKEN,
    discord_login,
    start_bot,
    stop,
    wait_until,
)
from tests.storage.test_postgres_reconnect import _terminate
from tests.support.databases import PG_URL, SKIP_REASON, new_schema
from tests.support.paths import ROOT

HEALTHCHECK = [sys.executable, "-m", "bot.health"]  # the Dockerfile's HEALTHCHECK command


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def get(url: str) -> tuple[int, str]:
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(url, timeout=10) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def health(tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*HEALTHCHECK, *args],
        cwd=tmp_path,
        env=bot_env(tmp_path, **env),
        capture_output=True,
        text=True,
        timeout=60,
    )


# ---------------------------------------------------------------------- the settings ----


@pytest.mark.parametrize(
    ("name", "value", "says"),
    [
        ("METRICS_PORT", "70000", "TCP port from 1 to 65535"),
        ("METRICS_PORT", "http", "TCP port from 1 to 65535"),
        ("METRICS_HOST", "example.com", "IP address"),
        ("LOG_FORMAT", "xml", "text, json"),
    ],
)
def test_a_bad_metrics_or_log_setting_stops_start_up_with_one_line(tmp_path, name, value, says):
    line = one_error_line(run_bot(tmp_path, DISCORD_TOKEN=TOKEN, **{name: value}))
    assert line.startswith(f"error: invalid setting {name}: ") and says in line, line
    assert network_log(tmp_path) == []


def test_the_endpoint_is_off_by_default_and_binds_the_loopback(monkeypatch, tmp_path):
    for name in ("METRICS_PORT", "METRICS_HOST", "LOG_FORMAT"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    settings = load_settings()
    assert (settings.metrics_port, settings.metrics_host) == (None, "127.0.0.1")
    assert settings.log_format is LogFormat.TEXT
    monkeypatch.setenv("METRICS_PORT", " 9108 ")
    monkeypatch.setenv("METRICS_HOST", "0.0.0.0")
    monkeypatch.setenv("LOG_FORMAT", "JSON")
    settings = load_settings()
    assert (settings.metrics_port, settings.metrics_host) == (9108, "0.0.0.0")
    assert settings.log_format is LogFormat.JSON
    monkeypatch.setenv("METRICS_PORT", "")
    assert load_settings().metrics_port is None
    monkeypatch.setenv("METRICS_PORT", "0")
    with pytest.raises(SettingsError, match="METRICS_PORT"):
        load_settings()


def test_a_taken_port_stops_start_up_with_one_line(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        proc = run_bot(tmp_path, DISCORD_TOKEN=TOKEN, METRICS_PORT=str(port))
    line = one_error_line(proc)
    assert line.startswith(f"error: cannot serve metrics and health on 127.0.0.1:{port}"), line
    assert proc.returncode == 1
    assert network_log(tmp_path) == []  # before the login


# ------------------------------------------------------------- the health command ----


def test_the_health_command_without_a_port_or_a_bot_says_why(tmp_path):
    off = health(tmp_path)
    assert off.returncode == 1
    assert off.stderr.strip() == (
        "error: METRICS_PORT is not set: the bot serves no health endpoint"
    )
    port = free_port()
    nobody = health(tmp_path, METRICS_PORT=str(port))
    assert nobody.returncode == 1
    assert nobody.stderr.startswith(f"error: no answer from http://127.0.0.1:{port}/healthz")


def test_a_running_bot_answers_the_health_command_and_serves_metrics(tmp_path):
    """A real ``python -m bot`` held in its login (Discord never answers): the endpoint is up
    from before the login, the health command reaches it and hears that the database is not
    open yet (the store opens after the login), readiness waits for Discord, the metrics are
    served, every log line is one JSON object, and SIGTERM still ends it with 0."""
    port = free_port()
    env = {"METRICS_PORT": str(port), "METRICS_HOST": "0.0.0.0", "LOG_FORMAT": "json"}
    with discord_login(tmp_path) as (sink, in_login):
        child = start_bot(tmp_path, {**env, **sink})
        try:
            wait_until(child, in_login, "the Discord login")
            status, text = get(f"http://127.0.0.1:{port}/metrics")
            assert status == 200
            assert "# TYPE lowball_step_seconds histogram" in text
            assert "lowball_event_loop_lag_seconds " in text
            probe = health(tmp_path, **env)
            assert probe.returncode == 1
            assert probe.stderr.strip() == "unhealthy: the database is not open yet"
            ready = health(tmp_path, "--ready", **env)
            assert ready.returncode == 1
            assert ready.stderr.strip() == "not ready: not logged in to Discord yet"
            out, err = stop(child, signal.SIGTERM)
        finally:
            if child.alive():
                child.proc.kill()
                child.proc.communicate()
    assert child.proc.returncode == 0, err
    lines = err.splitlines()
    assert lines, "nothing was logged"
    records = [json.loads(line) for line in lines]  # each line one JSON object
    assert any(r["message"] == "received SIGTERM: closing" for r in records), err
    assert all({"time", "level", "logger", "message"} <= r.keys() for r in records)
    assert "never-print-me" not in out + err
    with pytest.raises(OSError):  # the endpoint closed with the bot
        socket.create_connection(("127.0.0.1", port), timeout=1).close()


def test_the_images_healthcheck_runs_that_command_on_the_images_port(monkeypatch, tmp_path):
    """The Dockerfile's HEALTHCHECK is the command tested above, and the port it asks is on
    in the image, even under ``docker run --env-file`` with a .env copied from .env.example
    (whose lines override the image's ENV). The image itself is not built in CI."""
    (check,) = [x for x in final_stage() if x.keyword == "HEALTHCHECK"]
    assert check.args.endswith('CMD ["python", "-m", "bot.health"]'), check.args
    for name in Settings.model_fields:
        monkeypatch.delenv(name.upper(), raising=False)
    for key, value in (image_env() | env_file(ROOT / ".env.example")).items():
        monkeypatch.setenv(key, value)
    monkeypatch.chdir(tmp_path)
    settings = load_settings()
    assert (settings.metrics_port, settings.metrics_host) == (9108, "127.0.0.1")
    compose = (ROOT / "docker-compose.yml").read_text()  # and compose's bots, the same way
    x_bot = compose[compose.index("x-bot:") : compose.index("services:")]
    assert '    test: ["CMD", "python", "-m", "bot.health"]\n' in x_bot
    assert '    METRICS_PORT: "9108"\n' in x_bot


# ------------------------------------------------------------------- the log lines ----


def _json_lines(secrets: tuple[str, ...]) -> tuple[logging.Logger, io.StringIO]:
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.setFormatter(JsonFormatter(secrets))
    logger = logging.getLogger("tests.json")
    logger.handlers[:] = [handler]
    logger.propagate = False
    logger.setLevel(logging.DEBUG)
    return logger, out


def test_a_json_line_carries_the_ids_and_never_a_secret():
    url = "postgresql://poker:pg-secret-pass@db:5432/poker"
    logger, out = _json_lines((TOKEN, url, "pg-secret-pass"))
    with log_context(guild_id=11, channel_id=22, hand_id=None):
        with log_context(hand_id=33, user_id=44):
            logger.info("token %s and url %s", TOKEN, url)
        try:
            raise RuntimeError(f"boom {TOKEN}")
        except RuntimeError:
            logger.exception("with\na traceback")
    logger.warning("outside", extra={"user_id": 55})
    lines = out.getvalue().splitlines()
    assert len(lines) == 3  # one line per record, the multi-line message and traceback too
    first, second, third = (json.loads(line) for line in lines)
    assert {k: first[k] for k in logs.ID_FIELDS} == {
        "guild_id": 11,
        "channel_id": 22,
        "hand_id": 33,
        "user_id": 44,
    }
    assert first["message"] == f"token {logs.MASK} and url {logs.MASK}"
    assert (second["guild_id"], second["channel_id"]) == (11, 22)
    assert "hand_id" not in second and "user_id" not in second
    assert second["message"] == "with\na traceback" and "RuntimeError" in second["exception"]
    assert third["user_id"] == 55 and "guild_id" not in third
    assert "never-print-me" not in out.getvalue() and "pg-secret-pass" not in out.getvalue()


def test_configure_puts_one_handler_on_the_root_logger():
    root = logging.getLogger()
    saved = root.handlers[:], root.level
    try:
        logs.configure(LogFormat.JSON, logging.WARNING, (TOKEN,))
        assert len(root.handlers) == 1 and root.level == logging.WARNING
        assert isinstance(root.handlers[0].formatter, JsonFormatter)
        logs.configure(LogFormat.TEXT, logging.INFO)
        assert isinstance(root.handlers[0].formatter, logs.TextFormatter)
    finally:
        root.handlers[:], level = saved
        root.setLevel(level)


# ------------------------------------------------------------------- the loop's lag ----


async def test_the_loop_lag_shows_a_block_of_the_loop():
    metrics = Metrics()
    watcher = asyncio.create_task(metrics.watch_loop(every=0.05))
    try:
        await asyncio.sleep(0.2)  # a few looks at an idle loop
        assert looks(metrics, "+Inf") >= 1
        time.sleep(0.4)  # the loop blocked: the watcher's timer is late by at least 0.35 s
        await asyncio.sleep(0.15)
        assert looks(metrics, "0.25") < looks(metrics, "+Inf")  # one look was later than that
    finally:
        watcher.cancel()


def looks(metrics: Metrics, le: str) -> float:
    """How many looks found a lag of at most ``le`` seconds."""
    samples = metrics.loop_lags.collect()[0].samples
    return next(s.value for s in samples if s.name.endswith("_bucket") and s.labels["le"] == le)


# ------------------------------------------------- the dashboard and the alert rules ----


def exported_names() -> set[str]:
    """Every sample name the bot's registry exports, and Prometheus's own ``up``."""
    names = {"up"}
    for family in Metrics().registry.collect():
        if family.type == "counter":
            names.add(family.name + "_total")
        elif family.type == "histogram":
            names |= {family.name + end for end in ("_bucket", "_count", "_sum")}
        else:
            names.add(family.name)
    return names


def named(expr: str) -> set[str]:
    """The metrics an expression asks for."""
    up = {"up"} if re.search(r"\bup\{", expr) else set()
    return set(re.findall(r"\blowball_\w+", expr)) | up


def alert_rules() -> dict[str, str]:
    """docs/alerts.yml's alerts and their expressions (each on one line there)."""
    text = (ROOT / "docs" / "alerts.yml").read_text()
    return dict(re.findall(r"- alert: (\w+)\n(?:\s*#.*\n)*\s*expr: (.+)", text))


def test_the_dashboard_and_the_alerts_ask_only_for_exported_metrics():
    exported = exported_names()
    dashboard = json.loads((ROOT / "docs" / "grafana-dashboard.json").read_text())
    exprs = [t["expr"] for p in dashboard["panels"] for t in p.get("targets", [])]
    rules = alert_rules()
    assert len(exprs) >= 15 and len(rules) >= 3
    for expr in [*exprs, *rules.values()]:
        assert named(expr), expr
        assert named(expr) <= exported, f"{expr}: {named(expr) - exported} not exported"
    on_panels = {name for expr in exprs for name in named(expr)}
    for family in Metrics().registry.collect():  # each metric is on some panel
        assert any(name.startswith(family.name) for name in on_panels), family.name


#: where the logs say ALERT, and the metric its alert rule watches
ALERTS = {
    "bot/tables/deadlines.py": "lowball_timeout_failures_total",
    "bot/practice/driver.py": "lowball_computer_player_failures_total",
    "bot/ui/budget.py": "lowball_rest_failed_recent",
    "bot/tables/supervise.py": "lowball_background_failures_total",
}


def test_every_alert_line_of_the_logs_has_an_alert_rule():
    logged = {
        str(path.relative_to(ROOT))
        for path in (ROOT / "bot").rglob("*.py")
        if re.search(r"\"ALERT\b", path.read_text())
    }
    assert logged == set(ALERTS)
    watched = {name for expr in alert_rules().values() for name in named(expr)}
    assert set(ALERTS.values()) <= watched


# --------------------------------------------------------- guilds lost (PostgreSQL) ----


@pytest.mark.skipif(not PG_URL, reason=SKIP_REASON)
async def test_a_guild_taken_while_the_session_was_lost_is_counted_lost():
    lost = METRICS.registry.get_sample_value("lowball_guilds_lost_total") or 0.0
    reconnects = METRICS.registry.get_sample_value("lowball_db_reconnects_total") or 0.0
    url = new_schema()
    async with (
        await Store.open(url, on_guilds_lost=lambda guilds: None) as store,
        await Store.open(url) as other,
    ):
        assert await store.ownership.claim_guild(4242) and await store.ownership.claim_guild(4343)
        assert store.ownership.guilds == {4242, 4343}
        await _terminate(store)
        assert await other.ownership.claim_guild(4242)  # taken while the session was gone
        await store.ping()  # a new session: 4343 re-claimed, 4242 lost
        assert store.ownership.guilds == {4343}
    assert METRICS.registry.get_sample_value("lowball_guilds_lost_total") == lost + 1
    assert METRICS.registry.get_sample_value("lowball_db_reconnects_total") == reconnects + 1
