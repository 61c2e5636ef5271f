"""Configuration from environment variables and an optional ``.env`` file.

``load_settings()`` turns pydantic's multi-line validation report into one
line naming the variable, so an operator sees at once what to fix.
"""

from __future__ import annotations

import logging
from pathlib import Path

from pydantic import Field, SecretStr, ValidationError, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

_LOG_LEVELS = ("CRITICAL", "ERROR", "WARNING", "INFO", "DEBUG")


class SettingsError(Exception):
    """A missing or invalid setting; the message is one line naming the variable."""


class Settings(BaseSettings):
    """All tunables of the bot. Field ``x`` is read from env var ``X``."""

    model_config = SettingsConfigDict(
        env_file=".env", env_file_encoding="utf-8", extra="ignore", frozen=True
    )

    # Optional here so tests and tools can load settings without a token;
    # the bot's entry point calls require_token().
    discord_token: SecretStr | None = None
    database_path: Path = Path("./data/poker.db")
    # postgresql://user:password@host:port/db: use PostgreSQL instead of the SQLite file.
    database_url: str | None = None
    starting_grant: int = Field(default=200, gt=0)
    turn_timeout: float = Field(default=60.0, gt=0, allow_inf_nan=False)
    next_hand_delay: float = Field(default=5.0, ge=0, allow_inf_nan=False)  # 0 disables auto-deal
    dev_guild_id: int | None = None
    log_level: str = "INFO"

    @field_validator("log_level", mode="before")
    @classmethod
    def _check_log_level(cls, value: object) -> str:
        level = str(value).strip().upper()
        if level not in _LOG_LEVELS:
            raise ValueError(f"must be one of {', '.join(_LOG_LEVELS)}")
        return level

    @field_validator("discord_token", mode="before")
    @classmethod
    def _blank_token_is_none(cls, value: object) -> object:
        # DISCORD_TOKEN= (empty) in a .env template means "not set".
        return None if isinstance(value, str) and not value.strip() else value

    @field_validator("database_url", mode="before")
    @classmethod
    def _check_database_url(cls, value: object) -> object:
        if isinstance(value, str) and not value.strip():
            return None
        if isinstance(value, str) and not value.startswith(("postgresql://", "postgres://")):
            raise ValueError("must be a postgresql:// URL")  # never echo a password
        return value

    @property
    def database(self) -> str | Path:
        """Where the Store keeps everything: the PostgreSQL URL, else the SQLite file."""
        return self.database_url or self.database_path

    @field_validator("dev_guild_id", mode="before")
    @classmethod
    def _blank_guild_is_none(cls, value: object) -> object:
        return None if isinstance(value, str) and not value.strip() else value

    def require_token(self) -> str:
        """The bot token, or SettingsError if it is not configured."""
        if self.discord_token is None:
            raise SettingsError("missing setting DISCORD_TOKEN: set it in the environment or .env")
        return self.discord_token.get_secret_value()

    @property
    def log_level_number(self) -> int:
        return logging.getLevelNamesMapping()[self.log_level]


def _one_line(error: ValidationError) -> str:
    """First error only, as 'invalid setting NAME: reason'."""
    first = error.errors()[0]
    name = str(first["loc"][0]).upper() if first["loc"] else "?"
    reason = first["msg"].removeprefix("Value error, ")
    reason = reason.replace("Input should be", "must be", 1)
    if name not in ("DISCORD_TOKEN", "DATABASE_URL"):  # never echo a secret
        reason += f" (got {first.get('input')!r})"
    return f"invalid setting {name}: {reason}".replace("\n", " ")


def load_settings(env_file: str | Path | None = ".env") -> Settings:
    """Read settings; raise SettingsError with a one-line message if invalid."""
    try:
        return Settings(_env_file=env_file)  # type: ignore[call-arg]
    except ValidationError as error:
        raise SettingsError(_one_line(error)) from None
