"""The build: what installing the project puts into site-packages, and CI against the README.

Installing must add one importable package, ``bot``, with the repository's ``cogs/`` inside
it as ``bot.cogs``: a top-level ``cogs`` would clash with any other project's. And CI must
run exactly the commands the README gives a developer, so the two cannot drift apart.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import sysconfig
from pathlib import Path

from tests.support.paths import ROOT

CHILD = """
import asyncio, importlib.metadata, importlib.util, json, sys
from bot.client import PokerBot
from bot.ui.extensions import EXTENSIONS
from bot.extensions import COGS_PACKAGE
from bot.settings import Settings

async def sync(*args, **kwargs):  # the one network call of setup_hook: not here
    return []

async def load():
    bot = PokerBot(Settings(_env_file=None, database_path=sys.argv[1]))
    bot.tree.sync = sync
    await bot.setup_hook()  # the real one: storage, tables, then every extension
    loaded = sorted(bot.extensions)
    cogs = sorted(bot.cogs)
    files = {m.__file__ for m in map(sys.modules.get, loaded)}
    await bot.close()
    return loaded, cogs, sorted(files)

loaded, cogs, files = asyncio.run(load())
dist = importlib.metadata.distribution("lowball-bot")
print(json.dumps({
    "package": COGS_PACKAGE,
    "loaded": loaded,
    "cogs": cogs,
    "files": files,
    "top_level": sorted({f.parts[0] for f in dist.files if not f.parts[0].endswith("-info")}),
    "cogs_importable": importlib.util.find_spec("cogs") is not None,
}))
"""


def test_installing_adds_only_bot_and_its_extensions_load(tmp_path):
    # Build the wheel offline with this environment's setuptools (the dev extra pins it),
    # then install the project alone into a fresh venv; its dependencies come from this
    # test run's environment through a .pth line. Nothing is downloaded.
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
         "--no-index", "-w", tmp_path / "dist", ROOT],
        check=True, timeout=300, capture_output=True,
    )  # fmt: skip
    (wheel,) = (tmp_path / "dist").glob("lowball_bot-*.whl")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", venv], check=True, timeout=120)
    python = venv / "bin" / "python"
    subprocess.run(
        [python, "-m", "pip", "install", "-q", "--no-deps", "--no-index", wheel],
        check=True, timeout=300, capture_output=True,
    )  # fmt: skip
    site = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True, capture_output=True, text=True,
    ).stdout.strip()  # fmt: skip
    (Path(site) / "zz_test_deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    assert not (Path(site) / "cogs").exists()
    proc = subprocess.run(
        [python, "-c", CHILD, str(tmp_path / "poker.db")],
        cwd=tmp_path,  # not the checkout: only what was installed can be imported
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["top_level"] == ["bot"]
    assert not out["cogs_importable"]
    assert out["package"] == "bot.cogs"
    assert out["loaded"] == sorted(f"bot.cogs.{n.removeprefix('cogs.')}" for n in _extensions())
    assert len(out["cogs"]) == len(out["loaded"])
    assert all(f.startswith(site) for f in out["files"])


def _extensions() -> list[str]:
    from bot.ui.extensions import EXTENSIONS

    return list(EXTENSIONS)


def _readme_test_commands() -> list[str]:
    readme = (ROOT / "README.md").read_text()
    block = re.search(r"Run the tests.*?```sh\n(.*?)```", readme, re.S)
    assert block, "the README has no test command block"
    return [line for line in block.group(1).splitlines() if line.strip()]


def test_ci_runs_exactly_the_readme_commands_then_lints():
    ci = [line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines()]
    commands = _readme_test_commands()
    assert commands[0] in ci, "CI does not install as the README says"
    assert any(line.startswith(commands[-1]) for line in ci), "CI does not test as the README"
    install = ci.index(commands[0])
    test = next(i for i, line in enumerate(ci) if line.startswith(commands[-1]))
    between = ci[install + 1 : test]
    assert ".venv/bin/ruff check ." in between and ".venv/bin/ruff format --check ." in between
    assert "-c constraints.txt" in commands[0]  # the pinned versions
    readme = (ROOT / "README.md").read_text()
    assert "pip install -c constraints.txt ." in readme  # the run command too
