"""The garbage collector's policy: what start-up and each collection leave alive is frozen.

A collection walks every tracked object of the generations it collects with the event loop
stopped, at a cost per object: each object and each object it points to is a cache miss in
a heap spread over memory (the figures: docs/benchmarks.md). Almost everything that
survives a collection lives on (tables, lanes, discord.py's caches) or dies by reference
counting (a request in flight), and almost no cycle survives one: the bot breaks its
cycles at their source (``bot/ui/cycles.py``). So after each collection its survivors are
frozen (``gc.freeze``): each pass walks only what was made since the last one, and no
pass walks the whole heap.

Frozen objects still die by reference counting; only a reference cycle among them would
stay. ``tests/discord/test_heap.py`` checks that a click leaves no cycle and that a closed
table's objects die while frozen. As a safety net the heap is swept: given back to the
collector (``gc.unfreeze``), with nothing frozen until the next full pass, which walks
everything once (the loop stopped meanwhile) and frees whatever cycles were frozen. It is
swept at most once every ``SWEEP`` seconds, and only when the frozen heap has grown by
``GROWTH`` since it was last swept (CPython's own rule for its full passes, with its
factor): what could have leaked is bounded by that growth, and a bot whose heap does not
grow never pauses for it.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable

#: at least this many seconds between the full passes that walk the whole heap
SWEEP = 3600.0
#: ... and only once the frozen heap is this many times what it was after the last one
GROWTH = 1.25
#: seconds between two looks at the frozen heap's size, which walk it (about 4 ms for
#: 250,000 objects)
LOOK = 60.0


class _Policy:
    """The ``gc.callbacks`` hook: freeze after each collection; once per sweep, unfreeze and
    let one full pass walk everything."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.swept = clock()
        self.sweeping = False
        self.baseline = gc.get_freeze_count()  # the frozen heap after the last sweep
        self.looked = self.swept
        self.sweeps = 0

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        if phase != "stop":
            return
        if self.sweeping:  # nothing frozen until the sweep's full pass is done
            if info["generation"] == 2:
                self.sweeping = False
                self.swept = self.clock()
                gc.freeze()
                self.baseline = gc.get_freeze_count()
                self.sweeps += 1
            return
        if self.due():
            self.sweeping = True
            gc.unfreeze()  # the next full pass walks everything (and frees frozen cycles)
            return
        gc.freeze()

    def due(self) -> bool:
        """Whether to sweep now: ``SWEEP`` seconds since the last, and the frozen heap grown
        by ``GROWTH`` (looked at once every ``LOOK`` seconds at most)."""
        now = self.clock()
        if now - self.swept < SWEEP or now - self.looked < LOOK:
            return False
        self.looked = now
        return gc.get_freeze_count() >= self.baseline * GROWTH


_policy: _Policy | None = None


def freeze_heap() -> None:
    """Take what start-up made (libraries, catalogs, the restored tables) out of the garbage
    collector's sight, and from now on freeze what each collection leaves alive."""
    gc.collect()
    gc.freeze()
    keep_frozen()


def keep_frozen() -> None:
    """Freeze the survivors of every collection from now on (once per process)."""
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
