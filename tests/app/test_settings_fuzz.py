"""Fuzzing the settings: any environment or ``.env`` gives valid Settings or one clear line.

Thousands of generated values per variable: either the settings load and every number is
within ``BOUNDS`` (what the program and SQLite can hold), or ``SettingsError`` says, on one
line, which variable is wrong and the allowed range. Never another exception, never the token.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.settings import BOUNDS, SettingsError, load_settings

TOKEN = "MTIzNDU2.fuzz-secret.Zx9-never-shown"
NUMERIC = ("STARTING_GRANT", "TURN_TIMEOUT", "NEXT_HAND_DELAY", "DEV_GUILD_ID")
NAMES = (*NUMERIC, "LOG_LEVEL", "DATABASE_PATH", "DATABASE_URL", "SHARD_COUNT", "SHARD_IDS")
SECRETS = ("DISCORD_TOKEN", "DATABASE_URL")
FUZZ = settings(
    max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)

# Environment values are text without NUL; lone surrogates only as undecodable bytes.
ENV_CHAR = st.characters(codec="utf-8", exclude_characters="\x00")
NUMBERISH = st.one_of(
    st.integers().map(str),
    st.integers(-10, 5000).map(str),
    st.sampled_from([2**31, 2**53 + 1, 2**63 - 1, 2**63, 2**64, 10**9, 10**9 + 1]).map(str),
    st.floats().map(str),
    st.floats(-10, 4000).map(lambda f: f"{f:.3f}"),
    st.sampled_from(["1e30", "1e3", "-0", "+7", "5.0", "0x10", "1_000", " 60 ", "nan", "-inf"]),
    st.sampled_from(["", " ", "٣", "²", "1e400", "9" * 5000, "١٢", "60\n", "\t5"]),
)
VALUES = st.one_of(
    NUMBERISH,
    st.text(ENV_CHAR, max_size=30),
    st.lists(st.integers(-2, 70000).map(str), max_size=4).map(",".join),  # SHARD_IDS
)


@contextlib.contextmanager
def environment(values: dict[str, str]) -> Iterator[None]:
    saved = {name: os.environ.get(name) for name in (*NAMES, *SECRETS)}
    try:
        for name in saved:
            os.environ.pop(name, None)
        os.environ.update(values)
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def check(*, env_file: Path | None) -> None:
    try:
        loaded = load_settings(env_file=env_file)
    except SettingsError as exc:
        message = str(exc)
        assert "\n" not in message and "\r" not in message and len(message) < 300
        assert TOKEN not in message and "fuzz-secret" not in message
        if message.startswith("cannot read "):  # the .env file itself
            assert env_file is not None and str(env_file) in message
            return
        assert message.startswith("invalid setting ")
        name = message.removeprefix("invalid setting ").split(":")[0]
        assert name in NAMES or name in SECRETS
        if name in NUMERIC:
            low, high = BOUNDS[name.lower()]
            assert f"from {low} to {high}" in message
    else:
        for field, (low, high) in BOUNDS.items():
            value = getattr(loaded, field)
            assert value is None or low <= value <= high
        assert loaded.require_token() == TOKEN
        assert "fuzz-secret" not in repr(loaded)


DATABASE_URLS = st.one_of(
    VALUES,
    st.text(ENV_CHAR, max_size=20).map(lambda rest: f"postgresql://u:{TOKEN}@{rest}"),
    st.text(ENV_CHAR, max_size=20).map(lambda rest: f"mysql://u:{TOKEN}@{rest}"),
)


@FUZZ
@given(st.dictionaries(st.sampled_from(NAMES), VALUES, min_size=1), DATABASE_URLS)
def test_any_environment_loads_or_is_one_clear_line(values, url):
    # The database URL may hold a password: like the token, it is never shown.
    with environment({**values, "DATABASE_URL": url, "DISCORD_TOKEN": TOKEN}):
        check(env_file=None)


@FUZZ
@given(st.sampled_from(NUMERIC), NUMBERISH)
def test_numbers_load_only_within_bounds(name, value):
    with environment({name: value, "DISCORD_TOKEN": TOKEN}):
        check(env_file=None)


@settings(max_examples=1000, deadline=None)
@given(st.one_of(st.binary(max_size=120), st.text(ENV_CHAR, max_size=80).map(str.encode)))
def test_any_dotenv_file_loads_or_is_one_clear_line(content):
    with tempfile.TemporaryDirectory() as folder, environment({"DISCORD_TOKEN": TOKEN}):
        path = Path(folder) / ".env"
        path.write_bytes(b"STARTING_GRANT=7\n" + content)
        check(env_file=path)
