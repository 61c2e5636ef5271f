"""The UI has no import circle, counting lazy and TYPE_CHECKING imports, and no
``type: ignore`` on ``interaction.client`` (issue 22, item 6)."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.support.paths import ROOT


def module_of(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports(path: Path, name: str) -> set[str]:
    """Every bot module this file imports, wherever the import stands."""
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            found.add(base)
            found |= {f"{base}.{a.name}" for a in node.names}
    return found


def graph() -> dict[str, set[str]]:
    files = {module_of(p): p for p in (ROOT / "bot").rglob("*.py")}
    return {name: imports(path, name) & set(files) - {name} for name, path in files.items()}


def cycle_through(edges: dict[str, set[str]], start: str) -> list[str] | None:
    stack: list[tuple[str, list[str]]] = [(start, [start])]
    seen: set[str] = set()
    while stack:
        node, trail = stack.pop()
        for nxt in edges.get(node, ()):
            if nxt == start:
                return [*trail, start]
            if nxt not in seen:
                seen.add(nxt)
                stack.append((nxt, [*trail, nxt]))
    return None


def test_the_ui_and_the_client_are_in_no_import_circle():
    edges = graph()
    ui = sorted(m for m in edges if m.startswith("bot.ui") or m == "bot.client")
    assert "bot.ui.components" in edges["bot.ui.handlers"]  # the graph sees imports
    circles = {m: c for m in ui if (c := cycle_through(edges, m))}
    assert circles == {}


def test_no_type_ignore_on_interaction_client():
    for path in [*(ROOT / "bot" / "ui").glob("*.py"), ROOT / "bot" / "client.py"]:
        for line in path.read_text().splitlines():
            assert not ("interaction.client" in line and "type: ignore" in line), (path, line)


def test_the_cogs_reach_the_bots_services_typed():
    """Cogs are built with the typed PokerBot: no ``type: ignore`` on what they read of it."""
    for path in (ROOT / "cogs").glob("*.py"):
        for line in path.read_text().splitlines():
            reads = "self.bot." in line or "interaction.client" in line
            assert not (reads and "type: ignore" in line), (path, line)
