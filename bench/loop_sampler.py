"""Where the event loop's long stalls go: each callback timed, and long ones sampled.

``LoopSampler`` wraps asyncio's ``Handle._run`` (one callback of the loop: a task's step,
a timer, an I/O callback) while installed. It times every callback in wall and thread CPU
time and keeps the longest, each with what ran (a task's name and the coroutines it was
awaiting when it gave the loop back). A sampling thread looks at the loop thread every
``every`` seconds; while one callback has run longer than ``after`` seconds it records the
loop thread's stack (the innermost frames in this repository or discord.py), so a stall
is attributed to the code that held the loop, sample by sample (each sample is about
``every`` of stall). Callbacks of the benchmark's own scripted players (their
coroutines' ``__qualname__`` is in ``players``) are counted apart: they run on the bot's
loop only because the benchmark puts them there.

Both are benchmark instruments: wrapping an asyncio internal is fine here, never in the
bot. The sampler costs a thread waking every ``every`` seconds and, per callback, two
clock reads.
"""

from __future__ import annotations

import asyncio
import asyncio.events
import gc
import sys
import threading
import time
import traceback
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = str(Path(__file__).resolve().parent.parent)


@dataclass(order=True)
class Slow:
    """One long callback: its wall and CPU time, what it was, whose."""

    wall: float
    cpu: float = field(compare=False)
    what: str = field(compare=False)
    players: bool = field(compare=False)
    gc: float = field(compare=False, default=0.0)  # of it, the garbage collector's pauses


def _coro_chain(coro: Any) -> list[str]:
    """The coroutines a task awaits, outermost first (where it gave the loop back)."""
    chain: list[str] = []
    while coro is not None and len(chain) < 12:
        name = getattr(coro, "__qualname__", type(coro).__name__)
        frame = getattr(coro, "cr_frame", None) or getattr(coro, "gi_frame", None)
        chain.append(f"{name}:{frame.f_lineno}" if frame is not None else name)
        coro = getattr(coro, "cr_await", None) or getattr(coro, "gi_yieldfrom", None)
    return chain


def owner(handle: asyncio.Handle) -> asyncio.Task[Any] | None:
    """The task whose step (or wake-up) the callback is, if it is one."""
    task = getattr(getattr(handle, "_callback", None), "__self__", None)
    return task if isinstance(task, asyncio.Task) else None


def describe(handle: asyncio.Handle, task: asyncio.Task[Any] | None) -> str:
    """What the callback is: a task's name and where it now waits, or the function."""
    if task is not None:
        return f"task {task.get_name()}: " + " > ".join(_coro_chain(task.get_coro()))
    callback = getattr(handle, "_callback", None)
    return f"callback {getattr(callback, '__qualname__', repr(callback))}"


def _frames(frame: Any, depth: int) -> str:
    """The innermost ``depth`` frames of ours or discord.py's, innermost last."""
    kept: list[str] = []
    for summary in reversed(traceback.extract_stack(frame)):
        path = summary.filename
        if path == __file__:
            continue  # the wrapper itself
        if path.startswith(ROOT) or "/discord/" in path or "/aiosqlite/" in path:
            short = (
                path[len(ROOT) + 1 :] if path.startswith(ROOT) else path.split("site-packages/")[-1]
            )
            kept.append(f"{short}:{summary.lineno} {summary.name}")
            if len(kept) == depth:
                break
    return " < ".join(kept) or "(outside our code: asyncio, the GC, C)"


class LoopSampler:
    """Time every callback of the running loop; sample the long ones' stacks."""

    def __init__(
        self,
        players: frozenset[str] = frozenset(),
        after: float = 0.020,
        every: float = 0.005,
        keep: int = 12,
        depth: int = 5,
    ) -> None:
        self.players, self.after, self.every, self.keep, self.depth = (
            players, after, every, keep, depth,
        )  # fmt: skip
        self.slowest: list[Slow] = []  # the longest callbacks (the bot's and the players')
        self.samples: Counter[str] = Counter()  # stacks seen during long bot callbacks
        self.longest_bot = 0.0  # the longest callback not the players'
        self.longest_bot_cpu = 0.0  # its thread CPU time
        self.callbacks = 0
        self.players_part = 0.0  # the players' callbacks' wall time so far (s)
        self.gc_total = 0.0  # the garbage collector's pauses in all (s)
        self.gc_longest = 0.0
        self._gc_start = 0.0
        self._current: tuple[float, bool] | None = None  # (started, players') now running
        self._saved: Any = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._loop_thread = 0

    def install(self) -> None:
        self._loop_thread = threading.get_ident()
        run = asyncio.events.Handle._run
        self._saved = run
        sampler = self

        def timed_run(handle: asyncio.Handle) -> None:
            task = owner(handle)
            coro = task.get_coro() if task is not None else None
            players = getattr(coro, "__qualname__", "") in sampler.players
            start, cpu, collected = time.perf_counter(), time.thread_time(), sampler.gc_total
            sampler._current = (start, players)
            try:
                run(handle)
            finally:
                sampler._current = None
                spent = time.perf_counter() - start
                sampler.callbacks += 1
                if players:
                    sampler.players_part += spent
                elif spent > sampler.longest_bot:
                    sampler.longest_bot = spent
                    sampler.longest_bot_cpu = time.thread_time() - cpu
                if spent > sampler.after:
                    used = time.thread_time() - cpu
                    paused = sampler.gc_total - collected
                    sampler._note(Slow(spent, used, describe(handle, task), players, paused))

        asyncio.events.Handle._run = timed_run  # type: ignore[method-assign]
        gc.callbacks.append(self._on_gc)
        self._thread = threading.Thread(target=self._sample, name="loop-sampler", daemon=True)
        self._thread.start()

    def _on_gc(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._gc_start = time.perf_counter()
        else:
            paused = time.perf_counter() - self._gc_start
            self.gc_total += paused
            self.gc_longest = max(self.gc_longest, paused)

    def _note(self, slow: Slow) -> None:
        self.slowest.append(slow)
        self.slowest.sort(reverse=True)
        del self.slowest[self.keep :]

    def _sample(self) -> None:
        while not self._stop.wait(self.every):
            current = self._current
            if current is None or current[1]:
                continue  # idle, or the players' own callback
            if time.perf_counter() - current[0] < self.after:
                continue
            frame = sys._current_frames().get(self._loop_thread)
            if frame is not None:
                self.samples[_frames(frame, self.depth)] += 1

    def remove(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        if self._on_gc in gc.callbacks:
            gc.callbacks.remove(self._on_gc)
        if self._saved is not None:
            asyncio.events.Handle._run = self._saved  # type: ignore[method-assign]
            self._saved = None

    def report(self, top: int = 10) -> list[str]:
        """Lines: the longest callbacks, then the most sampled stacks of the bot's."""
        lines = [
            f"loop callbacks timed: {self.callbacks:,}; the bot's longest: "
            f"{self.longest_bot * 1000:.1f} ms wall, {self.longest_bot_cpu * 1000:.1f} ms CPU",
            f"garbage collector: longest pause {self.gc_longest * 1000:.1f} ms, "
            f"{self.gc_total:.1f} s in all",
            "longest callbacks (wall / thread CPU / of it GC; players' = the benchmark's "
            "scripted players):",
        ]
        for s in self.slowest:
            whose = "players'" if s.players else "bot's"
            lines.append(
                f"  {s.wall * 1000:7.1f} / {s.cpu * 1000:6.1f} ms {whose:8} {s.what[:160]}"
            )
        total = sum(self.samples.values())
        lines.append(
            f"stacks of the bot's callbacks past {self.after * 1000:.0f} ms, sampled every "
            f"{self.every * 1000:.0f} ms ({total:,} samples):"
        )
        for stack, n in self.samples.most_common(top):
            lines.append(f"  {n:6,} {stack[:220]}")
        return lines
