"""Settings: defaults, environment and .env overrides, one-line errors, secret token."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.settings import Settings, SettingsError, load_settings

_VARS = (
    "DISCORD_TOKEN",
    "DATABASE_PATH",
    "STARTING_GRANT",
    "TURN_TIMEOUT",
    "NEXT_HAND_DELAY",
    "DEV_GUILD_ID",
    "LOG_LEVEL",
)


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No stray variables, and a cwd without a .env file."""
    for name in _VARS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)


def test_defaults() -> None:
    settings = load_settings()
    assert settings.discord_token is None
    assert settings.database_path == Path("data/poker.db")
    assert settings.starting_grant == 200
    assert settings.turn_timeout == 60
    assert settings.next_hand_delay == 5
    assert settings.dev_guild_id is None
    assert settings.log_level == "INFO"


def test_environment_overrides(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DATABASE_PATH", "/var/lib/poker/x.db")
    monkeypatch.setenv("STARTING_GRANT", "500")
    monkeypatch.setenv("TURN_TIMEOUT", "12.5")
    monkeypatch.setenv("NEXT_HAND_DELAY", "0")
    monkeypatch.setenv("DEV_GUILD_ID", "1234567890123")
    monkeypatch.setenv("LOG_LEVEL", "debug")
    settings = load_settings()
    assert settings.database_path == Path("/var/lib/poker/x.db")
    assert settings.starting_grant == 500
    assert settings.turn_timeout == 12.5
    assert settings.next_hand_delay == 0
    assert settings.dev_guild_id == 1234567890123
    assert settings.log_level == "DEBUG"


def test_dotenv_file_is_read_and_env_wins(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("STARTING_GRANT=300\nTURN_TIMEOUT=30\nOTHER_TOOL=x\n")
    monkeypatch.setenv("TURN_TIMEOUT", "45")
    settings = load_settings()
    assert settings.starting_grant == 300
    assert settings.turn_timeout == 45


@pytest.mark.parametrize(
    ("name", "value", "reason"),
    [
        ("TURN_TIMEOUT", "-1", "must be a number of seconds from 5 to 3600"),
        ("TURN_TIMEOUT", "0", "must be a number of seconds from 5 to 3600"),
        ("TURN_TIMEOUT", "4.9", "must be a number of seconds from 5 to 3600"),
        ("TURN_TIMEOUT", "1e9", "must be a number of seconds from 5 to 3600"),
        ("TURN_TIMEOUT", "inf", "must be a number of seconds from 5 to 3600"),
        ("TURN_TIMEOUT", "nan", "must be a number of seconds from 5 to 3600"),
        ("STARTING_GRANT", "abc", "must be a whole number of chips from 1 to 1000000000"),
        ("STARTING_GRANT", "0", "must be a whole number of chips from 1 to 1000000000"),
        # Issue 7 item 10: these were accepted, and the first join died in SQLite.
        ("STARTING_GRANT", "1e30", "must be a whole number of chips from 1 to 1000000000"),
        ("STARTING_GRANT", str(2**63), "must be a whole number of chips from 1 to 1000000000"),
        ("STARTING_GRANT", "1000000001", "must be a whole number of chips from 1 to 1000000000"),
        ("STARTING_GRANT", "9" * 5000, "must be a whole number of chips from 1 to 1000000000"),
        ("NEXT_HAND_DELAY", "-0.5", "must be a number of seconds from 0 to 3600"),
        ("NEXT_HAND_DELAY", "86400", "must be a number of seconds from 0 to 3600"),
        ("DEV_GUILD_ID", "guild", "must be a Discord server id (a whole number from 1 to"),
        ("DEV_GUILD_ID", str(2**63), "must be a Discord server id (a whole number from 1 to"),
        ("DEV_GUILD_ID", "-5", "must be a Discord server id (a whole number from 1 to"),
        ("LOG_LEVEL", "loud", "must be one of"),
        ("DATABASE_PATH", " ", "must be the path of the SQLite file"),
    ],
)
def test_bad_value_is_one_clear_line_with_the_allowed_range(
    monkeypatch: pytest.MonkeyPatch, name: str, value: str, reason: str
) -> None:
    monkeypatch.setenv(name, value)
    with pytest.raises(SettingsError) as caught:
        load_settings()
    message = str(caught.value)
    assert message.startswith(f"invalid setting {name}: {reason}")
    assert "\n" not in message and len(message) < 200
    assert caught.value.__cause__ is None and caught.value.__suppress_context__


@pytest.mark.parametrize(
    ("name", "value", "expected"),
    [
        ("STARTING_GRANT", "1", 1),
        ("STARTING_GRANT", " 1000000000 ", 10**9),
        ("TURN_TIMEOUT", "5", 5.0),
        ("TURN_TIMEOUT", "3600", 3600.0),
        ("NEXT_HAND_DELAY", "0", 0.0),
        ("NEXT_HAND_DELAY", "3600", 3600.0),
        ("DEV_GUILD_ID", str(2**63 - 1), 2**63 - 1),
        ("DEV_GUILD_ID", "", None),
    ],
)
def test_the_bounds_themselves_are_allowed(
    monkeypatch: pytest.MonkeyPatch, name: str, value: str, expected: object
) -> None:
    monkeypatch.setenv(name, value)
    assert getattr(load_settings(), name.lower()) == expected


def test_token_is_never_shown(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DISCORD_TOKEN", "very-secret-token")
    settings = load_settings()
    assert settings.require_token() == "very-secret-token"
    for text in (
        repr(settings),
        str(settings),
        repr(settings.discord_token),
        str(settings.model_dump()),
    ):
        assert "very-secret-token" not in text


def test_missing_token_is_reported_only_when_required() -> None:
    settings = load_settings()
    with pytest.raises(SettingsError, match="missing setting DISCORD_TOKEN"):
        settings.require_token()


def test_blank_token_counts_as_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DISCORD_TOKEN", "  ")
    assert load_settings().discord_token is None


def test_settings_are_immutable() -> None:
    settings = Settings()
    with pytest.raises(ValueError):
        settings.starting_grant = 1  # type: ignore[misc]
