"""The documentation holds together: every relative link and image in README.md and docs/ resolves.

A link to a file must name a file of the repository; a ``#fragment`` must name a heading of
the page it points to, as GitHub makes anchors of headings. A file of the repository named
in code (```tests/app/test_docs.py```) must exist too, so a moved file is not left behind in
the text. The README stays short and links every page of docs/.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support.paths import ROOT

PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

FENCE = re.compile(r"^(```|~~~).*?^\1[ \t]*$", re.M | re.S)
CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1", re.S)
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
HEADING = re.compile(r"^#{1,6}[ \t]+(.+?)[ \t]*#*[ \t]*$", re.M)


def _prose(text: str) -> str:
    """The text without code blocks and code spans: a link in code is not a link."""
    return CODE_SPAN.sub("", FENCE.sub("", text))


#: a path of this repository written in code: ``bot/client.py``, ``tests/support/``
REPO_PATH = re.compile(r"`((?:bot|cogs|tests|bench|scripts|docs|\.ci)/[\w./-]*)`")


def links(text: str) -> list[str]:
    return LINK.findall(_prose(text))


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link keeps its text
    text = text.replace("`", "").strip().lower()
    text = "".join(c for c in text if c.isalnum() or c in " -_")
    return text.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    found: set[str] = set()
    for heading in HEADING.findall(FENCE.sub("", page.read_text(encoding="utf-8"))):
        base = slug(heading)
        name, n = base, 0
        while name in found:  # GitHub numbers repeated headings: name, name-1, name-2
            n += 1
            name = f"{base}-{n}"
        found.add(name)
    return found


def broken(page: Path, root: Path = ROOT) -> list[str]:
    """Every relative link or image of ``page`` that does not resolve, with why."""
    problems = []
    for target in links(page.read_text(encoding="utf-8")):
        if re.match(r"[a-z][a-z0-9+.-]*:", target, re.I):  # https:, mailto: …
            continue
        path, _, fragment = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        if not file.is_file():
            problems.append(f"{target}: no file {file}")
        elif not file.is_relative_to(root):
            problems.append(f"{target}: outside the repository")
        elif fragment and file.suffix == ".md" and fragment not in anchors(file):
            problems.append(f"{target}: no heading #{fragment} in {file.name}")
    return problems


@pytest.mark.parametrize("page", PAGES, ids=[p.relative_to(ROOT).as_posix() for p in PAGES])
def test_every_relative_link_and_image_resolves(page):
    assert links(page.read_text(encoding="utf-8")), f"{page.name} links nothing"
    assert broken(page) == []


def named_paths(text: str) -> list[str]:
    """Files and folders of the repository that the text names in code (no patterns)."""
    names = REPO_PATH.findall(FENCE.sub("", text))
    return [n for n in names if not any(c in n for c in "*<>…")]


@pytest.mark.parametrize("page", PAGES, ids=[p.relative_to(ROOT).as_posix() for p in PAGES])
def test_every_file_named_in_code_exists(page):
    named = named_paths(page.read_text(encoding="utf-8"))
    assert named, f"{page.name} names no file"
    assert [n for n in named if not (ROOT / n).exists()] == []


def test_the_readme_is_short_and_links_every_page_of_docs():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 300
    linked = {(ROOT / t.partition("#")[0]).resolve() for t in links(readme)}
    pages = set((ROOT / "docs").glob("*.md"))
    assert {p.name for p in pages} >= {
        "architecture.md",
        "benchmarks.md",
        "operations.md",
        "translating.md",
        "hand-records.md",
    }
    # docs/pending-<branch>.md: a section waiting to be folded into its page, not a page
    unlinked = [p.name for p in pages if p.resolve() not in linked]
    assert sorted(n for n in unlinked if not n.startswith("pending-")) == []


def test_a_broken_link_an_unknown_heading_and_a_missing_image_are_found(tmp_path):
    (tmp_path / "there.md").write_text("# Set up\n\n## Set up\n", encoding="utf-8")
    page = tmp_path / "page.md"
    page.write_text(
        "[ok](there.md#set-up) [again](there.md#set-up-1) [web](https://example.com/x)\n"
        "[gone](nothere.md) [no heading](there.md#nowhere) ![img](images/none.png)\n"
        "`[in code](nothere.md)`\n\n```\n[in a block](nothere.md)\n```\n",
        encoding="utf-8",
    )
    found = broken(page, root=tmp_path)
    assert [p.split(":")[0] for p in found] == [
        "nothere.md",
        "there.md#nowhere",
        "images/none.png",
    ]


def test_anchors_are_made_as_github_makes_them():
    assert slug("Rankings against PokerKit's fastest path (`bench/rankings_bench.py`)") == (
        "rankings-against-pokerkits-fastest-path-benchrankings_benchpy"
    )
    assert slug("Hand records and `python -m bot.engine replay`") == (
        "hand-records-and-python--m-botengine-replay"
    )
    assert slug("Several processes (shards)") == "several-processes-shards"
