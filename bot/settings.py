"""Configuration from environment variables and an optional ``.env`` file.

``load_settings()`` turns pydantic's multi-line validation report into one
line naming the variable, so an operator sees at once what to fix.
"""

from __future__ import annotations

import contextlib
import ipaddress
import logging
import math
import re
from pathlib import Path
from typing import Annotated
from urllib.parse import urlsplit

from pydantic import SecretStr, ValidationError, ValidationInfo, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from bot.logs import LogFormat

_LOG_LEVELS = ("CRITICAL", "ERROR", "WARNING", "INFO", "DEBUG")


class SettingsError(Exception):
    """A missing or invalid setting; the message is one line naming the variable."""


# What the program and SQLite can hold, and what makes sense to an operator. SQLite's
# INTEGER is signed 64-bit, so chip counts stay far below 2**63 even summed over a table;
# the turn timeout is what /open allows a table; a Discord id is a positive 64-bit snowflake.
BOUNDS: dict[str, tuple[int, int]] = {
    "starting_grant": (1, 10**9),
    "turn_timeout": (5, 3600),
    "next_hand_delay": (0, 3600),
    "bot_pause": (0, 60),
    "max_tables_per_server": (1, 10_000),
    "idle_close_hours": (0, 24 * 365),
    "dev_guild_id": (1, 2**63 - 1),
    "database_statement_timeout": (1, 3600),
    "database_connect_timeout": (1, 600),
}
_RULE = {
    "starting_grant": "must be a whole number of chips from {low} to {high}",
    "turn_timeout": "must be a number of seconds from {low} to {high}",
    "next_hand_delay": "must be a number of seconds from {low} to {high} (0 turns auto-deal off)",
    "bot_pause": "must be a number of seconds from {low} to {high}",
    "max_tables_per_server": "must be a whole number of tables from {low} to {high}",
    "idle_close_hours": "must be a number of hours from {low} to {high} (0: never)",
    "dev_guild_id": "must be a Discord server id (a whole number from {low} to {high}) or empty",
    "database_statement_timeout": "must be a number of seconds from {low} to {high}",
    "database_connect_timeout": "must be a number of seconds from {low} to {high}",
}


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
    database_url: SecretStr | None = None  # its password must never reach a log or repr
    # PostgreSQL only: the server cancels a statement after this many seconds, and a
    # session silent for 1.5 times as long is replaced (bot/storage/postgres.py, Timeouts).
    database_statement_timeout: float = 10.0
    database_connect_timeout: float = 10.0  # seconds to open a PostgreSQL session
    starting_grant: int = 200
    turn_timeout: float = 60.0
    next_hand_delay: float = 5.0  # 0 disables auto-deal
    bot_pause: float = 1.5  # seconds a computer player waits before acting (practice tables)
    max_tables_per_server: int = 25  # open tables (threads included) a server may have at once
    idle_close_hours: float = 24.0  # a table with no step for this long closes; 0: never
    dev_guild_id: int | None = None
    log_level: str = "INFO"
    # Sharded processes (docs/operations.md): this process runs shards SHARD_IDS ("0,1")
    # of SHARD_COUNT; unset, one process runs every shard.
    shard_count: int | None = None
    shard_ids: Annotated[tuple[int, ...] | None, NoDecode] = None
    # Requests per second this process may make on routes under Discord's global limit (50
    # per token, all processes together): by default its shards' part of 45.
    rest_share: float | None = None
    # Operators (docs/operations.md, "Metrics and health"): the Prometheus and health
    # endpoint's port (unset: off), the address it binds, and the log lines' format.
    metrics_port: int | None = None
    metrics_host: str = "127.0.0.1"
    log_format: LogFormat = LogFormat.TEXT

    @field_validator("metrics_port", mode="before")
    @classmethod
    def _check_metrics_port(cls, value: object) -> object:
        if value is None or isinstance(value, str) and not value.strip():
            return None
        number = _number(value, whole=True)
        if number is None or not 1 <= number <= 65535:
            raise ValueError("must be a TCP port from 1 to 65535, or empty (no endpoint)")
        return number

    @field_validator("metrics_host", mode="before")
    @classmethod
    def _check_metrics_host(cls, value: object) -> str:
        text = str(value).strip()
        try:
            return str(ipaddress.ip_address(text))
        except ValueError:
            raise ValueError("must be an IP address to bind, e.g. 127.0.0.1 or 0.0.0.0") from None

    @field_validator("log_format", mode="before")
    @classmethod
    def _check_log_format(cls, value: object) -> object:
        text = str(value).strip().lower()
        if text not in tuple(LogFormat):
            raise ValueError(f"must be one of {', '.join(LogFormat)}")
        return LogFormat(text)

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
        if self.database_url is not None:
            return self.database_url.get_secret_value()
        return self.database_path

    @field_validator(
        "starting_grant",
        "turn_timeout",
        "next_hand_delay",
        "bot_pause",
        "max_tables_per_server",
        "idle_close_hours",
        "dev_guild_id",
        "database_statement_timeout",
        "database_connect_timeout",
        mode="before",
    )
    @classmethod
    def _check_bounds(cls, value: object, info: ValidationInfo) -> object:
        """Parse a number and check it against BOUNDS; the error says the allowed range."""
        name = info.field_name or ""
        if name == "dev_guild_id" and (
            value is None or isinstance(value, str) and not value.strip()
        ):
            return None
        whole = name in ("starting_grant", "dev_guild_id")
        number = _number(value, whole)
        low, high = BOUNDS[name]
        if number is None or not low <= number <= high:
            raise ValueError(_RULE[name].format(low=low, high=high))
        return number

    @field_validator("rest_share", mode="before")
    @classmethod
    def _check_rest_share(cls, value: object) -> object:
        if value is None or isinstance(value, str) and not value.strip():
            return None
        number = _number(value, whole=False)
        if number is None or not 1 <= number <= 50:
            raise ValueError("must be a number of requests per second from 1 to 50, or empty")
        return number

    @field_validator("shard_count", mode="before")
    @classmethod
    def _check_shard_count(cls, value: object) -> object:
        if value is None or isinstance(value, str) and not value.strip():
            return None
        number = _number(value, whole=True)
        if number is None or not 1 <= number <= 65536:
            raise ValueError("must be a whole number of shards from 1 to 65536, or empty")
        return number

    @field_validator("shard_ids", mode="before")
    @classmethod
    def _check_shard_ids(cls, value: object, info: ValidationInfo) -> object:
        """'0,2' -> (0, 2): which shards of SHARD_COUNT this process runs."""
        if value is None or isinstance(value, str) and not value.strip():
            return None
        count = info.data.get("shard_count")
        if count is None:
            raise ValueError("needs SHARD_COUNT, the total number of shards")
        parts = value.split(",") if isinstance(value, str) else value
        if not isinstance(parts, list | tuple):
            parts = [parts]
        ids = [_number(part, whole=True) for part in parts]
        if any(i is None or not 0 <= i < count for i in ids) or len(set(ids)) != len(ids):
            raise ValueError(f"must be distinct shard numbers from 0 to {count - 1}, e.g. 0,1")
        if len(ids) < count and not info.data.get("database_url"):
            raise ValueError("processes that split the shards share one database: set DATABASE_URL")
        return tuple(sorted(int(i) for i in ids if i is not None))

    @field_validator("database_path", mode="before")
    @classmethod
    def _check_path(cls, value: object) -> object:
        if isinstance(value, str) and (not value.strip() or "\0" in value):
            raise ValueError("must be the path of the SQLite file, e.g. ./data/poker.db")
        return value

    def require_token(self) -> str:
        """The bot token, or SettingsError if it is not configured."""
        if self.discord_token is None:
            raise SettingsError("missing setting DISCORD_TOKEN: set it in the environment or .env")
        return self.discord_token.get_secret_value()

    @property
    def log_level_number(self) -> int:
        return logging.getLevelNamesMapping()[self.log_level]

    @property
    def secrets(self) -> tuple[str, ...]:
        """What no log line may show: the token, the database URL and its password."""
        found = [self.discord_token.get_secret_value()] if self.discord_token else []
        if self.database_url is not None:
            url = self.database_url.get_secret_value()
            found.append(url)
            with contextlib.suppress(ValueError):
                found.extend(p for p in [urlsplit(url).password] if p)
        return tuple(found)


def _number(value: object, whole: bool) -> int | float | None:
    """``value`` (text from the environment, or a number from code) as a finite number, or None.

    Whole numbers are written in digits only ("1e3" and "5.0" are refused): what an operator
    types is what the bot uses, and no float rounding can turn 2**63 into something else.
    """
    if isinstance(value, bool):
        return None
    if isinstance(value, str):
        text = value.strip()
        if len(text) > 40:  # far beyond any bound; also spares int() a huge string
            return None
        if whole:
            return int(text) if re.fullmatch(r"[+-]?[0-9]+", text) else None
        try:
            value = float(text)
        except ValueError:
            return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and math.isfinite(value):
        return int(value) if whole and value.is_integer() else (None if whole else value)
    return None


def _one_line(error: ValidationError) -> str:
    """First error only, as 'invalid setting NAME: reason (got VALUE)'."""
    first = error.errors()[0]
    name = str(first["loc"][0]).upper() if first["loc"] else "?"
    reason = first["msg"].removeprefix("Value error, ")
    reason = reason.replace("Input should be", "must be", 1)
    if name not in ("DISCORD_TOKEN", "DATABASE_URL"):  # never echo a secret
        reason += f" (got {_shown(first.get('input'))})"
    return " ".join(f"invalid setting {name}: {reason}".split())


def _shown(value: object) -> str:
    """The offending value, short and on one line."""
    text = repr(value)
    return text if len(text) <= 40 else text[:40] + "…"


def load_settings(env_file: str | Path | None = ".env") -> Settings:
    """Read settings; raise SettingsError with a one-line message if invalid."""
    try:
        return Settings(_env_file=env_file)  # type: ignore[call-arg]
    except ValidationError as error:
        raise SettingsError(_one_line(error)) from None
    except UnicodeDecodeError as error:  # only the .env file is decoded here
        raise SettingsError(
            f"cannot read {env_file}: it is not UTF-8 text (byte {error.start})"
        ) from None
    except OSError as error:  # e.g. a .env that is a directory or unreadable
        raise SettingsError(f"cannot read {env_file}: {error.strerror or error}") from None
