"""Computer players for practice tables: pure and synchronous like the engine.

A strategy sees only an ``Observation`` (built by ``observe`` from the seat's own
view and the public history) and returns an engine ``Action``.
"""

from . import lowball, ranges
from .actions import PublicAction
from .advice import Advice, Review, advise, review
from .observation import Observation, observe, public_history
from .profiles import Profile, Tendency, record, tendency
from .strategies import BASELINES, KINDS, LEVELS, Strategy


def warm_up() -> None:
    """Build the reference tables every level reads, so no decision builds them: call it
    once at start-up, on a thread (what it costs: docs/benchmarks.md)."""
    lowball.warm_up()
    ranges.warm_up()


def cache_sizes() -> dict[str, int]:
    """How many entries each reference table and range pool cache holds."""
    return {**lowball.cache_sizes(), **ranges.cache_sizes()}


__all__ = [
    "BASELINES",
    "KINDS",
    "LEVELS",
    "Advice",
    "Observation",
    "Profile",
    "PublicAction",
    "Review",
    "Strategy",
    "Tendency",
    "advise",
    "cache_sizes",
    "observe",
    "public_history",
    "record",
    "review",
    "tendency",
    "warm_up",
]
