"""Shared fixtures: every storage and manager test runs on SQLite and on PostgreSQL.

``databases`` is parametrised by backend: a test that takes it (or ``db_path``,
one fresh target of it) runs once on a SQLite file and once on a schema of a
real PostgreSQL server. Without ``TEST_DATABASE_URL`` the PostgreSQL half is
skipped with the reason; with ``CI=true`` it is required instead.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.metrics import METRICS
from bot.storage import database
from tests.support.databases import BACKENDS, PG_URL, SKIP_REASON, Databases, Target


def pytest_configure(config: pytest.Config) -> None:
    # Every store a test opens counts into the bot's metrics, as the bot's own store does
    # (bot/client.py passes them; the storage imports nothing of the bot).
    database.default_metrics = METRICS
    if os.environ.get("CI", "").lower() == "true" and not PG_URL:
        raise pytest.UsageError(
            "CI=true but TEST_DATABASE_URL is not set: CI must run the PostgreSQL tests "
            "(wrap the test command in scripts/with-postgres.sh)"
        )


@pytest.fixture(params=BACKENDS)
def databases(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Databases]:
    if request.param == "postgres" and not PG_URL:
        pytest.skip(SKIP_REASON)
    made = Databases(request.param, tmp_path)
    yield made
    made.cleanup()


@pytest.fixture
def db_path(databases: Databases) -> Target:
    """A fresh database target: a SQLite file path or a PostgreSQL URL."""
    return databases.new()
