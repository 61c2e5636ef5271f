"""The PostgreSQL time bounds as an operator sets them (issue 34, item 4): defaults, one
clear line for a bad value, and the values reaching the bot's own session."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from bot.client import PokerBot
from bot.settings import Settings, SettingsError, load_settings
from bot.storage.postgres import PgConnection
from fakediscord.harness import DiscordHarness
from tests.support.databases import PG_URL, SKIP_REASON, new_schema
from tests.support.manager_helpers import Clock
from tests.support.moderated_server import CHANNELS, GUILD, MEMBERS

NAMES = ("DATABASE_STATEMENT_TIMEOUT", "DATABASE_CONNECT_TIMEOUT")


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in NAMES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)  # no .env here


def test_defaults_and_overrides(monkeypatch: pytest.MonkeyPatch) -> None:
    settings = load_settings()
    assert (settings.database_statement_timeout, settings.database_connect_timeout) == (10, 10)
    monkeypatch.setenv("DATABASE_STATEMENT_TIMEOUT", "2.5")
    monkeypatch.setenv("DATABASE_CONNECT_TIMEOUT", "600")
    settings = load_settings()
    assert (settings.database_statement_timeout, settings.database_connect_timeout) == (2.5, 600)


@pytest.mark.parametrize(
    ("name", "value", "reason"),
    [
        ("DATABASE_STATEMENT_TIMEOUT", "0", "must be a number of seconds from 1 to 3600"),
        ("DATABASE_STATEMENT_TIMEOUT", "-3", "must be a number of seconds from 1 to 3600"),
        ("DATABASE_STATEMENT_TIMEOUT", "ten", "must be a number of seconds from 1 to 3600"),
        ("DATABASE_STATEMENT_TIMEOUT", "inf", "must be a number of seconds from 1 to 3600"),
        ("DATABASE_CONNECT_TIMEOUT", "0.5", "must be a number of seconds from 1 to 600"),
        ("DATABASE_CONNECT_TIMEOUT", "601", "must be a number of seconds from 1 to 600"),
    ],
)
def test_a_bad_value_stops_start_up_with_one_clear_line(
    monkeypatch: pytest.MonkeyPatch, name: str, value: str, reason: str
) -> None:
    monkeypatch.setenv(name, value)
    with pytest.raises(SettingsError) as caught:
        load_settings()
    message = str(caught.value)
    assert message.startswith(f"invalid setting {name}: {reason}")
    assert "\n" not in message and len(message) < 200


@pytest.mark.skipif(not PG_URL, reason=SKIP_REASON)
async def test_the_bot_session_has_the_configured_bounds() -> None:
    settings = Settings(
        _env_file=None,  # type: ignore[call-arg]
        database_url=new_schema(),
        database_statement_timeout=2,
        database_connect_timeout=3,
    )
    async with DiscordHarness(PokerBot(settings, rng=random.Random(1), clock=Clock())) as h:
        await h.connect(GUILD, CHANNELS, MEMBERS)
        conn = h.bot.store.db.conn  # type: ignore[attr-defined]
        assert isinstance(conn, PgConnection)
        assert await conn.raw.fetchval("SHOW statement_timeout") == "2s"
        assert await conn.raw.fetchval("SHOW idle_in_transaction_session_timeout") == "3s"
        assert conn.timeouts is not None and conn.timeouts.connect == 3
