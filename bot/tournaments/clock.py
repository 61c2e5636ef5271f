"""The level clock: which level a tournament is at and the time to the next, on an
injected clock, from the elapsed time the tournament keeps (so a restart resumes at
the same level with the same time left: time while the bot was down does not count)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

Clock = Callable[[], float]


@dataclass(frozen=True)
class LevelState:
    """Where the clock stands: level ``number`` (1-based), seconds to the next level."""

    number: int
    seconds_left: float
    elapsed: float


class LevelClock:
    """Counts play time from ``elapsed`` (seconds already played) on ``clock``."""

    def __init__(self, level_seconds: float, elapsed: float, clock: Clock) -> None:
        if level_seconds <= 0:
            raise ValueError(f"level_seconds must be > 0, got {level_seconds}")
        self.level_seconds = level_seconds
        self._clock = clock
        self._base = elapsed
        self._since = clock()

    def elapsed(self) -> float:
        """Seconds of play so far (what the tournament stores)."""
        return self._base + max(0.0, self._clock() - self._since)

    def state(self) -> LevelState:
        elapsed = self.elapsed()
        done = int(elapsed // self.level_seconds)
        left = self.level_seconds * (done + 1) - elapsed
        return LevelState(done + 1, left, elapsed)
