"""No code matches an action kind or a phase by string literal (issue 35, item 5).

``ActionKind`` (and ``Phase``, whose ``bet`` and ``buy`` are spelled like two actions)
name these things: ``kind == ActionKind.FOLD`` fails at import on a typo, while
``kind == "fodl"`` is silently never true. The scan reads the packages that handle
actions and flags every comparison (``==``, ``!=``, ``in``, ``not in``, ``is``) with a
string constant, or a tuple, list or set of them, spelled like an action kind or a
phase, and every ``case`` pattern spelled so.
"""

from __future__ import annotations

import ast
from pathlib import Path

from bot.engine import ActionKind
from bot.engine.variants import Phase

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("bot/engine", "bot/tables", "bot/ui", "bot/practice", "bot/opponents", "bot/history")
WORDS = frozenset(ActionKind) | frozenset(Phase)

# Not an action or a phase, only spelled like one: the i18n tool's ``check`` command.
NOT_ACTIONS = frozenset({("bot/ui/i18n_build.py", "check")})
# Comparisons left in modules that other work owns (issue 35 item 5, first part): each
# (module, word) names one still there. Remove an entry with the literal it names; a
# stale entry fails the test below, so this list only shrinks.
KNOWN: frozenset[tuple[str, str]] = frozenset()


def _words(node: ast.expr) -> list[str]:
    """The action or phase words a compared operand spells out as constants."""
    items = node.elts if isinstance(node, ast.Tuple | ast.List | ast.Set) else [node]
    return [
        item.value
        for item in items
        if isinstance(item, ast.Constant) and isinstance(item.value, str) and item.value in WORDS
    ]


def literal_matches(source: str) -> list[tuple[int, str]]:
    """(line, word) of each comparison or ``case`` that spells an action or phase."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare):
            for operand in (node.left, *node.comparators):
                found.extend((node.lineno, word) for word in _words(operand))
        elif isinstance(node, ast.MatchValue):
            found.extend((node.lineno, word) for word in _words(node.value))
    return sorted(set(found))


def test_the_scan_finds_literal_comparisons_and_cases() -> None:
    source = (
        "if kind == 'fold': pass\n"
        "if 'check' in legal: pass\n"
        "if a.action not in ('bet', 'raise', 'other'): pass\n"
        "if phase != {'draw'}: pass\n"
        "match kind:\n"
        "    case 'call' | 'buy': pass\n"
        "    case 'other': pass\n"
        "if kind == ActionKind.FOLD or key == 'prices': pass\n"
        "weights = {'check': 4}\n"
    )
    assert literal_matches(source) == [
        (1, "fold"),
        (2, "check"),
        (3, "bet"),
        (3, "raise"),
        (4, "draw"),
        (6, "buy"),
        (6, "call"),
    ]


def _scan() -> dict[tuple[str, str], list[int]]:
    files = sorted(path for package in PACKAGES for path in (ROOT / package).rglob("*.py"))
    assert len(files) > 80  # the scan reads the real packages
    found: dict[tuple[str, str], list[int]] = {}
    for path in files:
        module = path.relative_to(ROOT).as_posix()
        for line, word in literal_matches(path.read_text(encoding="utf-8")):
            found.setdefault((module, word), []).append(line)
    return found


def test_no_action_or_phase_is_matched_by_string_literal() -> None:
    found = _scan()
    allowed = KNOWN | NOT_ACTIONS
    new = [
        f"{module}:{line} {word!r}"
        for (module, word), lines in found.items()
        if (module, word) not in allowed
        for line in lines
    ]
    assert new == [], "compare with ActionKind / Phase members, not literals: " + ", ".join(new)
    stale = sorted(KNOWN - found.keys())
    assert stale == [], f"these literals are gone: remove them from KNOWN: {stale}"
