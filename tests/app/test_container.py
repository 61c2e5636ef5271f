"""The container files, read as text: what the image runs, what it downloads, who it runs as.

CI has no Docker engine, so the image is never built here (docs/operations.md says what
that leaves unchecked). These tests read the Dockerfile, docker-compose.yml, .dockerignore
and .env.example as Docker and Compose would, and hold them to what was found wrong when
the image was built and run for real: the copied source shadowing the installed wheel, a
rebuild downloading the build backend, a non-numeric USER, the same image built twice, and
an example .env that moved the image's database.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pytest

from bot.settings import Settings, load_settings
from tests.support.paths import ROOT


@dataclass
class Instruction:
    stage: str
    keyword: str
    args: str


def dockerfile() -> list[Instruction]:
    """The Dockerfile's instructions, continuation lines joined and comments dropped."""
    instructions: list[Instruction] = []
    stage, pending = "", ""
    for line in (ROOT / "Dockerfile").read_text().splitlines():
        if line.lstrip().startswith("#") or not line.strip():
            continue  # comments may sit between continuation lines too
        pending += line.strip()
        if pending.endswith("\\"):
            pending = pending[:-1].rstrip() + " "
            continue
        keyword, _, args = pending.partition(" ")
        if keyword.upper() == "FROM":
            stage = args.split(" AS ")[-1].strip() if " AS " in args else args
        instructions.append(Instruction(stage, keyword.upper(), args.strip()))
        pending = ""
    return instructions


def stages() -> dict[str, list[Instruction]]:
    out: dict[str, list[Instruction]] = {}
    for ins in dockerfile():
        out.setdefault(ins.stage, []).append(ins)
    return out


def final_stage() -> list[Instruction]:
    *_, last = stages().values()
    return last


def index(instructions: list[Instruction], keyword: str, contains: str) -> int:
    found = [i for i, x in enumerate(instructions) if x.keyword == keyword and contains in x.args]
    assert len(found) == 1, f"want one {keyword} with {contains!r}, found {len(found)}"
    return found[0]


def copy_sources(ins: Instruction) -> list[str]:
    return [a for a in ins.args.split() if not a.startswith("--")][:-1]


def test_the_image_runs_the_installed_wheel_and_no_copied_source():
    built, runtime = list(stages())[-2:]
    final = final_stage()
    assert len(stages()) >= 2 and built != runtime, "the wheel is built in a stage of its own"
    for ins in (x for x in final if x.keyword in ("COPY", "ADD")):
        if "--from=" in ins.args:
            assert f"--from={built}" in ins.args and copy_sources(ins) == ["/wheels"], ins
        else:  # only the two files the dependency layer reads, into a folder it removes
            assert copy_sources(ins) == ["pyproject.toml", "constraints.txt"], ins
            assert ins.args.split()[-1] == "/tmp/deps/"
    install = final[index(final, "RUN", "/tmp/wheels/*.whl")].args
    assert "--no-deps" in install and "--no-index" in install and "pip check" in install
    assert "rm -r /tmp/wheels" in install  # no wheel left behind in the image
    assert "rm -r /tmp/deps" in final[index(final, "RUN", "-r /tmp/deps/requirements.txt")].args
    # python -m bot would import a bot/ in the working folder first: there is none, and
    # PYTHONSAFEPATH keeps the working folder off sys.path anyway.
    (workdir,) = [x.args for x in final if x.keyword == "WORKDIR"]
    assert not workdir.startswith(("/app", "/src"))
    env = " ".join(x.args for x in final if x.keyword == "ENV")
    assert re.search(r"\bPYTHONSAFEPATH=1\b", env)
    assert [x.args for x in final if x.keyword == "CMD"] == ['["python", "-m", "bot"]']


def test_the_build_stage_makes_the_wheel_offline_with_a_pinned_backend():
    build = list(stages().values())[-2]
    backend = index(build, "RUN", "['build-system']['requires']")
    wheel = index(build, "RUN", "pip wheel")
    first_code = min(i for i, x in enumerate(build) if x.keyword == "COPY" and "bot" in x.args)
    # The backend's layer depends on pyproject.toml and constraints.txt alone, so a change
    # to the code reuses it: no setuptools download on a code-only rebuild.
    assert index(build, "COPY", "pyproject.toml constraints.txt") < backend < first_code < wheel
    assert "-c constraints.txt" in build[backend].args
    for flag in ("--no-build-isolation", "--no-index", "--no-deps", "--wheel-dir /wheels"):
        assert flag in build[wheel].args
    copied = {s for x in build if x.keyword == "COPY" for s in copy_sources(x)}
    assert {"bot", "cogs", "setup.py", "pyproject.toml", "README.md", "LICENSE"} <= copied
    assert "setuptools" in " ".join(tomllib.loads((ROOT / "pyproject.toml").read_text())
                                    ["build-system"]["requires"])  # fmt: skip
    assert re.search(r"^setuptools==", (ROOT / "constraints.txt").read_text(), re.M)


def test_runtime_dependencies_are_a_layer_of_their_own_before_the_bot():
    final = final_stage()
    deps = index(final, "RUN", "['project']['dependencies']")
    assert "-c /tmp/deps/constraints.txt" in final[deps].args
    assert index(final, "COPY", "pyproject.toml constraints.txt") < deps
    assert deps < index(final, "COPY", "--from=")


def test_the_user_is_a_number_that_owns_the_volume():
    final = final_stage()
    (user,) = [x.args for x in final if x.keyword == "USER"]
    match = re.fullmatch(r"(\d+):(\d+)", user)  # hadolint DL3066: numeric, so it resolves
    assert match, user
    uid, gid = match.groups()
    setup = final[index(final, "RUN", "useradd")].args
    assert f"--uid {uid}" in setup and f"--gid {gid}" in setup
    assert f"chown {uid}:{gid} /data" in setup
    assert uid != "0"
    assert index(final, "RUN", "useradd") < index(final, "USER", uid)
    assert [x.args for x in final if x.keyword == "VOLUME"] == ['["/data"]']


def test_every_copied_file_is_in_the_build_context():
    allowed = [
        line.removeprefix("!").rstrip("/")
        for line in (ROOT / ".dockerignore").read_text().splitlines()
        if line.startswith("!")
    ]
    copies = [i for i in dockerfile() if i.keyword == "COPY" and "--from=" not in i.args]
    assert copies, "the Dockerfile copies nothing from the build context"
    for ins in copies:
        for source in copy_sources(ins):
            assert source in allowed, f"{source} is excluded by .dockerignore"
            assert (ROOT / source).exists()


@pytest.mark.skipif(not shutil.which("hadolint"), reason="hadolint is not installed")
def test_hadolint_finds_nothing():
    proc = subprocess.run(
        ["hadolint", "Dockerfile"], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


# ------------------------------------------------------------------------ .env.example ----


def env_file(path: Path) -> dict[str, str]:
    """The variables ``docker run --env-file`` sets from ``path``: KEY=VALUE lines, as written."""
    out = {}
    for line in path.read_text().splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            key, _, value = line.partition("=")
            out[key.strip()] = value
    return out


def image_env() -> dict[str, str]:
    env = " ".join(x.args for x in final_stage() if x.keyword == "ENV")
    return dict(re.findall(r"(\w+)=(\S+)", env))


def _clear_settings_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in Settings.model_fields:
        monkeypatch.delenv(name.upper(), raising=False)


def test_env_example_keeps_the_images_database_path(monkeypatch, tmp_path):
    # docker run --env-file .env: the image's ENV, then the file's lines over it.
    _clear_settings_env(monkeypatch)
    env = image_env() | env_file(ROOT / ".env.example") | {"DISCORD_TOKEN": "a.b.c"}
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    monkeypatch.chdir(tmp_path)  # no .env here: the environment alone
    settings = load_settings()
    assert settings.database == Path("/data/poker.db")
    assert settings.require_token() == "a.b.c"


def test_env_example_copied_to_env_runs_from_a_checkout(monkeypatch, tmp_path):
    _clear_settings_env(monkeypatch)
    text = (ROOT / ".env.example").read_text().replace("DISCORD_TOKEN=\n", "DISCORD_TOKEN=a.b.c\n")
    (tmp_path / ".env").write_text(text)
    monkeypatch.chdir(tmp_path)
    settings = load_settings()
    assert settings.database == Path("data/poker.db")  # the default, beside the checkout
    assert settings.require_token() == "a.b.c"


# ---------------------------------------------------------------------- docker-compose ----


def compose_services() -> dict[str, dict[str, str]]:
    """Each service's own keys (scalars as written, nested blocks as ""), with ``<<: *x``
    merges of top-level anchors resolved: the little of YAML that docker-compose.yml uses."""
    anchors: dict[str, dict[str, str]] = {}
    services: dict[str, dict[str, str]] = {}
    block: dict[str, str] | None = None
    in_services = False
    for line in (ROOT / "docker-compose.yml").read_text().splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        indent = len(line) - len(line.lstrip())
        key, _, value = line.strip().partition(":")
        value = value.strip()
        if indent == 0:
            in_services = key == "services"
            block = None
            if value.startswith("&"):
                block = anchors.setdefault(value[1:], {})
        elif indent == 2 and in_services:
            block = services.setdefault(key, {})
        elif (indent == 2 and not in_services) or (indent == 4 and in_services):
            if block is None:
                continue
            if key == "<<":
                block.update({k: v for k, v in anchors[value.removeprefix("*")].items()})
            else:
                block[key] = "" if value.startswith("&") else value
    return services


def test_compose_builds_the_bot_image_once_and_both_bots_run_it():
    services = compose_services()
    bots = {name: s for name, s in services.items() if name.startswith("bot-")}
    assert len(bots) == 2
    images = {s.get("image") for s in bots.values()}
    assert len(images) == 1 and None not in images, images
    builders = [name for name, s in bots.items() if "build" in s]
    assert len(builders) == 1, builders
    runners = {name: s for name, s in bots.items() if name not in builders}
    assert runners, "only one bot service: nothing runs the image the other built"
    for name, s in runners.items():  # the tag is ours, built here: never pulled from a registry
        assert s.get("pull_policy") == "never", name
    assert "build" not in services["postgres"]
