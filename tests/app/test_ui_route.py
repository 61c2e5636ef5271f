"""One typed route from UI code to the services (issue 35 item 2): cogs read
``self.bot.app``, code discord.py calls with an interaction only reads
``app_of(interaction)``; no other lookup on the client, and no ``type: ignore``."""

from __future__ import annotations

import re
from pathlib import Path

from tests.support.paths import ROOT

# Another way to the services than App: an untyped look on the client or the bot, the
# old per-service accessors, a bot attribute other than ``app`` read by a cog, or a
# silenced type error.
OTHER_ROUTES = re.compile(
    r"getattr\((?:interaction\.client|self\.bot|self\.client|client)\b"
    r"|\b(?:controller_of|limiter_of|manager_of|presenter_of|sitngo_of|mtt_of)\("
    # discord.py's own client methods, and the bot's clock (injected in tests), are no service
    r"|self\.bot\.(?!app\b|clock\(|add_|get_|fetch_|user\b|latency\b|loop\b|tree\b)\w+"
    r"|interaction\.client\.(?!get_|user\b|fetch_)\w+"
    r"|type:\s*ignore"
)

# (file, the line's text) still allowed, each with its reason: none now.
ALLOWED: set[tuple[str, str]] = set()


def other_routes(root: Path) -> set[tuple[str, str]]:
    """(file, line) of every other route in ``bot/ui`` and ``cogs`` under ``root``."""
    found = set()
    for path in [*(root / "bot" / "ui").rglob("*.py"), *(root / "cogs").rglob("*.py")]:
        for line in path.read_text(encoding="utf-8").splitlines():
            if OTHER_ROUTES.search(line):
                code = line.split("  #", 1)[0].strip()
                found.add((path.relative_to(root).as_posix(), code))
    return found


def test_the_scan_sees_each_kind_of_other_route(tmp_path: Path) -> None:
    (tmp_path / "bot" / "ui").mkdir(parents=True)
    (tmp_path / "cogs").mkdir()
    lines = [
        'x = getattr(interaction.client, "manager", None)',
        "c = controller_of(interaction)",
        "return self.bot.sitngo",
        "m = interaction.client.manager  # type: ignore[attr-defined]",
        "app = self.bot.app",  # the one route: not found
        "app = app_of(interaction)",
    ]
    (tmp_path / "cogs" / "x.py").write_text("\n".join(lines), encoding="utf-8")
    assert other_routes(tmp_path) == {("cogs/x.py", line) for line in lines[:3]} | {
        ("cogs/x.py", "m = interaction.client.manager")
    }


def test_ui_code_and_cogs_reach_the_services_only_through_the_app() -> None:
    found = other_routes(ROOT)
    assert sorted(found - ALLOWED) == []
    assert sorted(ALLOWED - found) == []  # one is gone: drop it from ALLOWED
