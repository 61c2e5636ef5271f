"""A storage query is written once, in its repository: no facade restates its signature.

``Store`` composes the repositories (``store.hands``, ``store.ledger``, …) and has no
query of its own; no class above the storage layer (``bot/`` outside ``bot/storage``,
and ``cogs/``) has a method with a repository method's name and parameters that only
passes the call on, as the old ``Store``, ``api.Storage`` and ``TableManager``
pass-throughs did (issue 35 item 1).
"""

from __future__ import annotations

import ast
from pathlib import Path

from bot.storage.store import Store
from tests.support.paths import ROOT

# the modules of bot/storage whose classes hold the queries
REPOSITORIES = (
    "dm_channels",
    "exports",
    "hand_records",
    "hands",
    "ledger",
    "multi_table",
    "ownership",
    "people",
    "player_stats",
    "seasons",
    "server",
    "tables",
    "tournaments",
)


def methods(path: Path, delegating: bool = False) -> dict[tuple[str, tuple[str, ...]], str]:
    """Every public async method of the file's classes (``delegating``: only those that pass
    straight to a same-named method), by its name and parameter names."""
    found: dict[tuple[str, tuple[str, ...]], str] = {}
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.ClassDef):
            continue
        for item in node.body:
            if not isinstance(item, ast.AsyncFunctionDef):  # a query waits on the database
                continue
            if item.name.startswith("_"):
                continue
            if delegating and not passes_on(item):
                continue
            a = item.args
            names = [p.arg for p in (*a.posonlyargs, *a.args, *a.kwonlyargs)]
            params = tuple(n for n in names if n not in ("self", "cls"))
            found[(item.name, params)] = f"{path.relative_to(ROOT)}: {node.name}.{item.name}"
    return found


def passes_on(method: ast.AsyncFunctionDef) -> bool:
    """Is the method's body (its docstring aside) one statement calling a same-named
    method of something else: a pass-through?"""
    body = method.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    if len(body) != 1:
        return False
    return any(
        isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == method.name
        for n in ast.walk(body[0])
    )


def test_the_store_restates_no_query_of_its_repositories() -> None:
    own = {
        name
        for name, member in vars(Store).items()
        if callable(member) or isinstance(member, classmethod)
    }
    assert {name for name in own if not name.startswith("_")} == {"open", "close", "ping"}


def test_no_class_above_the_storage_restates_a_repository_query() -> None:
    queries: dict[tuple[str, tuple[str, ...]], str] = {}
    for name in REPOSITORIES:
        queries.update(methods(ROOT / "bot" / "storage" / f"{name}.py"))
    assert len(queries) > 50  # the repositories were read
    above = [
        path
        for folder in ("bot", "cogs")
        for path in sorted((ROOT / folder).rglob("*.py"))
        if "storage" not in path.relative_to(ROOT).parts
    ]
    restated = [
        f"{where} restates {queries[key]}"
        for path in above
        for key, where in methods(path, delegating=True).items()
        if key in queries
    ]
    assert restated == []
