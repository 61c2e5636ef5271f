"""The ``python -m bot COMMAND`` database commands: parse the arguments, load the settings,
run ``bot.storage.ops`` and print its outcome for the operator."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Sequence
from pathlib import Path

import asyncpg

from bot.settings import SettingsError, load_settings
from bot.storage import ops, postgres
from bot.storage.sqlite import DatabaseProblem

COMMANDS = ops.COMMANDS


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m bot", description=__doc__.split("\n")[0] if __doc__ else None
    )
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("migrate", help="apply the database migrations")
    export = commands.add_parser("export", help="one server's ledger as JSON")
    export.add_argument("--guild", type=int, required=True, help="the server (guild) id")
    export.add_argument("--output", type=Path, help="write here instead of standard output")
    copy = commands.add_parser(
        "copy-sqlite-to-postgres", help="move the SQLite ledger into an empty PostgreSQL"
    )
    copy.add_argument("--sqlite", type=Path, help="the SQLite file (default DATABASE_PATH)")
    copy.add_argument("--url", help="the PostgreSQL URL (default DATABASE_URL)")
    return parser


def run(argv: Sequence[str]) -> int:
    """``python -m bot COMMAND ...``; returns the exit status."""
    args = _parser().parse_args(argv)
    try:
        settings = load_settings()
        if args.command == "migrate":
            version = asyncio.run(ops.migrate(settings.database))
            print(f"{ops.describe(settings.database)} is at schema version {version}")
        elif args.command == "export":
            data = json.dumps(
                asyncio.run(ops.export_guild(settings.database, args.guild)), indent=1
            )
            if args.output:
                args.output.write_text(data + "\n", encoding="utf-8")
            else:
                print(data)
        else:
            url = args.url or (
                settings.database_url.get_secret_value() if settings.database_url else None
            )
            if not url or not postgres.is_postgres_url(url):
                raise ops.OperationFailed("give the PostgreSQL database: DATABASE_URL or --url")
            path = args.sqlite or settings.database_path
            counts = asyncio.run(ops.copy_sqlite_to_postgres(path, url))
            print(
                f"copied {path} to PostgreSQL: {counts.get('accounts', 0)} accounts, "
                f"{counts.get('hands', 0)} hands, {counts.get('ledger', 0)} ledger entries; "
                "every balance verified"
            )
    except (SettingsError, ops.OperationFailed, DatabaseProblem) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except (OSError, asyncpg.PostgresError) as exc:  # never the URL: it may hold a password
        print(f"error: {args.command} failed: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    return 0
