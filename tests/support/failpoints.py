"""Failing the Store's COMMITs on purpose, as a full disk would, through its failpoint."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from bot.storage import database as store_module


class InjectedFailure(OSError):
    """What the failpoint raises in place of a COMMIT (as a full disk would)."""


@contextmanager
def failing_commits(step_name: str, times: int) -> Iterator[list[str]]:
    """The next ``times`` COMMITs of ``step_name`` fail (rolled back); yields the failures."""
    failed: list[str] = []

    def hook(step: str, moment: str) -> None:
        if step == step_name and moment == "before" and len(failed) < times:
            failed.append(step)
            raise InjectedFailure(f"injected failure of {step}")

    store_module.commit_hook = hook
    try:
        yield failed
    finally:
        store_module.commit_hook = None
