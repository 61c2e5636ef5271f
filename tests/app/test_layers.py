"""The layers of docs/architecture.md, checked: no module of bot/ or cogs/ imports a layer
above its own (issue 35 item 7), counting lazy imports; TYPE_CHECKING imports only where
the table says so."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from tests.support.paths import ROOT

# The leaf every layer but the engine and the opponents may call: the metrics, the logs'
# format and the settings read from the environment.
LEAF = {"bot.logs", "bot.metrics", "bot.settings"}
BELOW_TABLES = {"bot.engine", "bot.opponents", "bot.storage", *LEAF}
WIRING = {
    "bot",
    "bot.__main__",
    "bot.client",
    "bot.extensions",
    "bot.heap",
    "bot.health",
    "bot.monitor",
    "bot.operations",
    "bot.run",
}
UI = {"bot.ui", "bot.rules_text"}

# Each layer of docs/architecture.md and the layers it may import (its own always).
MAY_IMPORT: dict[str, set[str]] = {
    "bot.engine": set(),
    "bot.opponents": {"bot.engine"},
    **{leaf: set(LEAF) for leaf in LEAF},
    # issue 35 item 4: the storage imports nothing of the bot (metrics are passed in)
    "bot.storage": set(),
    "bot.history": {"bot.engine", "bot.storage"},
    "bot.render": {"bot.engine"},
    # the table service computes a settled hand's /stats (bot.history.hand_stats.hand_stats)
    "bot.tables": {*BELOW_TABLES, "bot.history"},
    "bot.practice": {*BELOW_TABLES, "bot.tables"},
    # Tournaments sit above the tables, beside practice.
    "bot.tournaments": {*BELOW_TABLES, "bot.history", "bot.tables", "bot.practice"},
    **{
        ui: {*BELOW_TABLES, *UI, "bot.history", "bot.render", "bot.tables", "bot.practice"}
        | {"bot.tournaments"}
        for ui in UI
    },
}
MAY_IMPORT["cogs"] = MAY_IMPORT["bot.ui"] | UI
for wiring in WIRING:
    MAY_IMPORT[wiring] = set(MAY_IMPORT) | WIRING | {"cogs"}

# Imports that break the table, each with its reason; every one must still exist.
EXCEPTIONS = {
    # The manager hands practice reviews to the UI; coach is the one practice module the
    # table service may call (the table of docs/architecture.md says so).
    ("bot.tables.manager", "bot.practice"),
}
# TYPE_CHECKING-only imports: the cogs name the bot they are loaded into.
TYPE_ONLY = {("cogs", "bot.client")}


def module_of(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def layer_of(module: str) -> str:
    """A package of bot/ is one layer; so is each top-level module, and cogs/."""
    parts = module.split(".")
    if parts[0] == "cogs":
        return "cogs"
    if len(parts) > 2 or (len(parts) == 2 and (ROOT / "bot" / parts[1]).is_dir()):
        return ".".join(parts[:2])
    return module


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def imports(path: Path, name: str) -> list[tuple[str, bool]]:
    """Every module this file imports, wherever the import stands, and whether it stands
    under ``if TYPE_CHECKING:``."""
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found: list[tuple[str, bool]] = []

    def visit(node: ast.AST, typing_only: bool) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node):
            for child in node.body:
                visit(child, True)
            for child in node.orelse:
                visit(child, typing_only)
            return
        if isinstance(node, ast.Import):
            found.extend((a.name, typing_only) for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            found.append((base, typing_only))
            found.extend((f"{base}.{a.name}", typing_only) for a in node.names)
        for child in ast.iter_child_nodes(node):
            visit(child, typing_only)

    visit(ast.parse(path.read_text(encoding="utf-8")), False)
    return found


def modules() -> dict[str, Path]:
    paths = [*(ROOT / "bot").rglob("*.py"), *(ROOT / "cogs").rglob("*.py")]
    return {module_of(p): p for p in paths}


def crossings() -> set[tuple[str, str, bool]]:
    """(module, layer it imports, only under TYPE_CHECKING) for every import between layers."""
    files = modules()
    found: dict[tuple[str, str], bool] = {}
    for name, path in files.items():
        for target, typing_only in imports(path, name):
            if target not in files or layer_of(target) == layer_of(name):
                continue
            key = (name, layer_of(target))
            found[key] = found.get(key, True) and typing_only
    return {(module, layer, typing_only) for (module, layer), typing_only in found.items()}


def test_every_module_belongs_to_a_layer_of_the_table():
    assert "bot.tables" in {layer_of(m) for m in modules()}  # the walk sees the code
    unplaced = sorted({layer_of(m) for m in modules()} - set(MAY_IMPORT))
    assert unplaced == [], "add these to docs/architecture.md's layers and to MAY_IMPORT"


def test_no_module_imports_a_layer_above_its_own():
    found = crossings()
    assert ("bot.ui.handlers", "bot.tables", False) in found  # the walk sees imports
    upward = sorted(
        f"{module} imports {layer}" + (" (TYPE_CHECKING)" if typing_only else "")
        for module, layer, typing_only in found
        if layer not in MAY_IMPORT[layer_of(module)]
        and (module, layer) not in EXCEPTIONS
        and not (typing_only and (layer_of(module), layer) in TYPE_ONLY)
    )
    assert upward == []


def test_the_storage_imports_nothing_of_the_bot():
    """Issue 35 item 4: no module of bot/storage imports a module of the bot outside it,
    lazily, under TYPE_CHECKING or at the top, whatever the exceptions above say."""
    found = sorted(
        f"{name} imports {target}"
        for name, path in modules().items()
        if layer_of(name) == "bot.storage"
        for target, _ in imports(path, name)
        if (target == "bot" or target.startswith("bot."))
        and not (target == "bot.storage" or target.startswith("bot.storage."))
    )
    assert "bot.storage.hands" in modules()  # the walk sees the storage
    assert found == []


def test_every_recorded_exception_is_still_needed():
    found = {(module, layer) for module, layer, _ in crossings()}
    assert sorted(EXCEPTIONS - found) == []


def test_the_architecture_page_names_every_layer():
    doc = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = doc.split("## The layers", 1)[1].split("\n#", 1)[0]
    named = set()
    for row in (line for line in section.splitlines() if line.startswith("| `")):
        first = row.split("|")[1]
        for path in re.findall(r"`([^`]+)`", first):
            named.add(
                path.removesuffix("/")
                .removesuffix(".py")
                .removesuffix("/__init__")
                .replace("/", ".")
            )
    assert named == set(MAY_IMPORT)


# Test modules that still import another test module's helpers; they belong in
# tests/support/ (issue 35 item 8). No new entry: put a shared helper in tests/support/.
TEST_IMPORTS_LEFT = {
    ("tests.app.test_metrics", "tests.app.test_container"),
    ("tests.app.test_metrics", "tests.app.test_startup"),
    ("tests.app.test_metrics", "tests.app.test_startup_signals"),
    ("tests.app.test_metrics", "tests.storage.test_postgres_reconnect"),
    ("tests.discord.test_mixed_end_to_end", "tests.discord.test_practice_end_to_end"),
    ("tests.discord.test_mixed_end_to_end", "tests.discord.test_three_languages"),
}


def test_imports_between_test_modules():
    found = set()
    for path in (ROOT / "tests").rglob("*.py"):
        name = module_of(path)
        for target, _ in imports(path, name):
            if target.rsplit(".", 1)[-1].startswith("test_") and target != name:
                found.add((name, target))
    assert ("tests.app.test_metrics", "tests.app.test_startup") in found  # the walk sees them
    assert sorted(found - TEST_IMPORTS_LEFT) == []
    assert sorted(TEST_IMPORTS_LEFT - found) == []  # one moved: drop it from the list


def test_no_import_circle_in_bot_or_cogs():
    """No module reaches itself through imports, counting lazy and TYPE_CHECKING ones (the
    opponents' observation <-> profiles circle is gone, issue 35 item 7)."""
    files = modules()
    edges = {
        # a module's import of its own package stands for the submodule it names (``from .
        # import x``): not an edge to the package's __init__
        name: {
            target
            for target, _ in imports(path, name)
            if target in files and not name.startswith(target + ".")
        }
        - {name}
        for name, path in files.items()
    }
    assert "bot.opponents.profiles" in edges["bot.opponents.observation"]  # the walk sees it
    circles = []
    for start in sorted(edges):
        stack, seen = [(start, [start])], set()
        while stack:
            node, trail = stack.pop()
            for nxt in sorted(edges[node]):
                if nxt == start:
                    circles.append(" -> ".join([*trail, start]))
                    stack = []
                    break
                if nxt not in seen:
                    seen.add(nxt)
                    stack.append((nxt, [*trail, nxt]))
    assert circles == []
