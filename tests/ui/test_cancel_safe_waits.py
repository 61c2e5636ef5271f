"""A cancelled worker stops, even when its request answers in the same moment: the bot's
timed waits use ``asyncio.timeout``, never ``asyncio.wait_for``, which on Python 3.11
swallows such a cancellation (the 1,000-entrant benchmark's shutdown then waited for ever
on one table's edit worker, cancelled as its edit completed, that went back to waiting
for work)."""

from __future__ import annotations

import ast
import asyncio
from pathlib import Path
from types import SimpleNamespace

import pytest

from bot.ui.sends import timed

ROOT = Path(__file__).resolve().parents[2]


async def test_a_request_answered_as_its_worker_is_cancelled_still_cancels_the_worker() -> None:
    loop = asyncio.get_running_loop()
    answer: asyncio.Future[str] = loop.create_future()
    host = SimpleNamespace(request_timeout=30.0)
    worker = asyncio.create_task(timed(host, answer))  # type: ignore[arg-type]
    await asyncio.sleep(0)  # the worker waits for the answer
    answer.set_result("edited")  # Discord answers ...
    worker.cancel()  # ... in the same pass as the close cancels the worker
    with pytest.raises(asyncio.CancelledError):
        await worker
    assert worker.cancelled()


async def test_a_request_past_its_timeout_is_given_up_as_a_timeout() -> None:
    host = SimpleNamespace(request_timeout=0.05)
    never: asyncio.Future[str] = asyncio.get_running_loop().create_future()
    with pytest.raises(TimeoutError):
        await timed(host, never)  # type: ignore[arg-type]
    assert never.cancelled()


def test_the_bot_never_waits_with_wait_for() -> None:
    calls = []
    for path in sorted([*ROOT.glob("bot/**/*.py"), *ROOT.glob("cogs/**/*.py")]):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "wait_for"
                and isinstance(node.func.value, ast.Name)
                and node.func.value.id == "asyncio"
            ):
                calls.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert calls == []
