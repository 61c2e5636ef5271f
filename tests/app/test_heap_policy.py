"""bot/heap.py: the survivors of each collection are frozen, and at most once a sweep, when
the frozen heap has grown, the whole heap is given back to the collector until a full pass
has walked it."""

from __future__ import annotations

import gc
import weakref

from bot import heap


class Cycle:
    def __init__(self) -> None:
        self.me = self


def walked(o: object) -> bool:
    return any(x is o for x in gc.get_objects())


def test_each_collection_freezes_its_survivors_and_the_sweep_gives_them_back():
    gc.unfreeze()  # nothing frozen yet: whatever is frozen from now on is growth
    now = [0.0]
    policy = heap._Policy(clock=lambda: now[0])
    gc.callbacks.append(policy)
    frozen = gc.get_freeze_count()
    try:
        kept = Cycle()
        gc.collect(0)  # a young pass: its survivors are frozen too
        assert gc.get_freeze_count() > frozen and not walked(kept)
        newer = Cycle()
        assert walked(newer)  # made since: the next pass walks it
        now[0] = heap.SWEEP  # an hour on: the heap goes back to the collector
        gc.collect(0)
        assert gc.get_freeze_count() == 0 and walked(kept)
        gc.collect(1)  # young passes freeze nothing until the sweep's full pass
        assert gc.get_freeze_count() == 0
        gone = weakref.ref(Cycle())
        gc.collect()
        assert gone() is None  # the full pass frees what cycles there were
        assert gc.get_freeze_count() > 0 and not walked(kept)  # and freezing resumes
    finally:
        gc.callbacks.remove(policy)
        gc.unfreeze()


def test_a_heap_that_did_not_grow_is_not_swept_and_one_that_grew_is():
    gc.unfreeze()
    gc.collect()
    gc.freeze()  # the start-up heap
    now = [0.0]
    policy = heap._Policy(clock=lambda: now[0])
    gc.callbacks.append(policy)
    try:
        now[0] = heap.SWEEP * 3  # hours on, but the frozen heap is what it was
        gc.collect(0)
        gc.collect(0)
        assert gc.get_freeze_count() > 0  # still frozen: no sweep, no full pass over it all
        assert policy.sweeps == 0
        # cycles nobody points at any more, frozen: a leak the sweep is there for
        leaked = [Cycle() for _ in range(int(policy.baseline * (heap.GROWTH - 1)) + 1)]
        gone = weakref.ref(leaked[0])
        gc.collect(0)  # frozen with the pass's other survivors
        del leaked
        assert gone() is not None  # frozen, a cycle stays
        gc.collect(0)
        assert gone() is not None  # grown, but the heap was looked at less than LOOK ago
        now[0] += heap.LOOK
        gc.collect(0)  # the frozen heap grew by GROWTH: this pass unfreezes it
        gc.collect()  # and the full pass frees the leak
        assert gone() is None and policy.sweeps == 1
        assert gc.get_freeze_count() > 0  # freezing resumes
        now[0] += heap.SWEEP / 2  # (and well past LOOK)
        more = [Cycle() for _ in range(int(policy.baseline * heap.GROWTH) + 1)]
        gc.collect(0)
        del more
        gc.collect(0)
        gc.collect()
        assert policy.sweeps == 1  # grown, but not a sweep's time since the last one
    finally:
        gc.callbacks.remove(policy)
        gc.unfreeze()


def test_keep_frozen_installs_one_hook_and_stop_freezing_removes_it():
    try:
        heap.keep_frozen()
        heap.keep_frozen()
        assert sum(isinstance(c, heap._Policy) for c in gc.callbacks) == 1
    finally:
        heap.stop_freezing()
        gc.unfreeze()
    assert not any(isinstance(c, heap._Policy) for c in gc.callbacks)
