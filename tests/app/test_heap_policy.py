"""bot/heap.py: the survivors of each full collection are frozen, and once a sweep the
whole heap is given back to the collector."""

from __future__ import annotations

import gc

from bot import heap


class Cycle:
    def __init__(self) -> None:
        self.me = self


def test_a_full_collection_freezes_its_survivors_and_the_sweep_gives_them_back():
    now = [0.0]
    policy = heap._Policy(clock=lambda: now[0])
    gc.callbacks.append(policy)
    frozen = gc.get_freeze_count()
    try:
        kept = Cycle()
        gc.collect()
        assert gc.get_freeze_count() > frozen  # the survivors, ``kept`` among them
        assert not any(o is kept for o in gc.get_objects())  # no longer walked
        newer = Cycle()
        gc.collect(1)  # a younger generation's pass freezes nothing
        assert any(o is newer for o in gc.get_objects())
        now[0] = heap.SWEEP  # an hour on: the whole heap goes back to the collector
        gc.collect()
        assert gc.get_freeze_count() == 0
        assert any(o is kept for o in gc.get_objects())
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
