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
        ("TURN_TIMEOUT", "-1", "must be greater than 0"),
        ("TURN_TIMEOUT", "0", "must be greater than 0"),
        ("TURN_TIMEOUT", "inf", "must be a finite number"),
        ("STARTING_GRANT", "abc", "must be a valid integer"),
        ("STARTING_GRANT", "0", "must be greater than 0"),
        ("NEXT_HAND_DELAY", "-0.5", "must be greater than or equal to 0"),
        ("DEV_GUILD_ID", "guild", "must be a valid integer"),
        ("LOG_LEVEL", "loud", "must be one of"),
    ],
)
def test_bad_value_is_one_clear_line(
    monkeypatch: pytest.MonkeyPatch, name: str, value: str, reason: str
) -> None:
    monkeypatch.setenv(name, value)
    with pytest.raises(SettingsError) as caught:
        load_settings()
    message = str(caught.value)
    assert message.startswith(f"invalid setting {name}: {reason}")
    assert "\n" not in message
    assert caught.value.__cause__ is None and caught.value.__suppress_context__


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
