"""The garbage collector's policy: what start-up and each full collection leave alive is frozen.

A full collection walks every tracked object it can see with the event loop stopped, and
on this machine the walk costs about a microsecond per object (a cache miss or two each,
over a heap spread across memory; docs/benchmarks.md). Almost all of what a full pass
sees has been alive for minutes and will stay (the tables, their lanes, discord.py's
caches), and almost nothing it frees is a cycle (the bot breaks its cycles at their source,
``bot/ui/cycles.py``). So after each full pass its survivors are frozen (``gc.freeze``): the
next full pass walks only what is newer.

Frozen objects still die by reference counting; only a reference cycle among them would
stay. ``tests/discord/test_heap.py`` checks that a click leaves no cycle and that a closed
table's objects die while frozen; and once every ``SWEEP`` seconds the survivors are not
frozen but all of the heap is given back to the collector (``gc.unfreeze``), so the next
full pass walks everything once and frees whatever cycles were frozen meanwhile.
"""

from __future__ import annotations

import gc
import time
from typing import Any

#: seconds between the full passes that walk the whole heap (see the module's docstring)
SWEEP = 3600.0


class _Policy:
    """The ``gc.callbacks`` hook: freeze after each full collection, unfreeze once per sweep."""

    def __init__(self, clock: Any = time.monotonic) -> None:
        self.clock = clock
        self.swept = clock()

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        if phase != "stop" or info["generation"] != 2:
            return
        if self.clock() - self.swept >= SWEEP:
            self.swept = self.clock()
            gc.unfreeze()  # the next full pass walks everything (and frees frozen cycles)
        else:
            gc.freeze()


_policy: _Policy | None = None


def freeze_heap() -> None:
    """Take what start-up made (libraries, catalogs, the restored tables) out of the garbage
    collector's sight, and from now on freeze what each full collection leaves alive."""
    gc.collect()
    gc.freeze()
    keep_frozen()


def keep_frozen() -> None:
    """Freeze the survivors of every full collection from now on (once per process)."""
    global _policy
    if _policy is None:
        _policy = _Policy()
        gc.callbacks.append(_policy)


def stop_freezing() -> None:
    """Back to the collector's defaults (tests); what is frozen stays frozen."""
    global _policy
    if _policy is not None:
        gc.callbacks.remove(_policy)
        _policy = None
