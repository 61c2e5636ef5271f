"""The tests' own hygiene: no assert a test can skip without anyone noticing.

An ``if`` inside a test function whose body asserts and which has no ``else`` tests
nothing whenever its condition happens to be false (a new seed, a new strategy), and
still passes. Assert the precondition instead, or give the ``if`` an ``else`` that
asserts what the other case must show.
"""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]


def _asserts(nodes: list[ast.stmt]) -> bool:
    return any(isinstance(node, ast.Assert) for stmt in nodes for node in ast.walk(stmt))


def vacuous_ifs(source: str) -> list[tuple[int, str]]:
    """(line, test name) of each ``if`` in a test function that asserts and has no ``else``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        if not node.name.startswith("test_"):
            continue
        for inner in ast.walk(node):
            if isinstance(inner, ast.If) and not inner.orelse and _asserts(inner.body):
                found.append((inner.lineno, node.name))
    return sorted(set(found))


def test_the_scan_finds_an_if_that_asserts_without_else() -> None:
    source = (
        "def test_a(x):\n"
        "    if x:\n"
        "        assert x > 1\n"
        "def test_b(x):\n"
        "    if x:\n"
        "        assert x > 1\n"
        "    else:\n"
        "        assert x == 0\n"
        "def test_c(xs):\n"
        "    for x in xs:\n"
        "        if x is None:\n"
        "            continue\n"
        "        assert x\n"
        "def helper(x):\n"
        "    if x:\n"
        "        assert x\n"
        "async def test_d(x):\n"
        "    async def inner():\n"
        "        if x:\n"
        "            assert x\n"
    )
    assert vacuous_ifs(source) == [(2, "test_a"), (19, "test_d")]


def test_no_test_asserts_only_under_an_if_without_else() -> None:
    files = sorted(TESTS.rglob("*.py"))
    assert len(files) > 50  # the scan reads the real tests
    found = [
        f"{path.relative_to(TESTS.parent)}:{line} ({name})"
        for path in files
        for line, name in vacuous_ifs(path.read_text(encoding="utf-8"))
    ]
    assert found == [], "asserts a changed seed could skip: " + ", ".join(found)
