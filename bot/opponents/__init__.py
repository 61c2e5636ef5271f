"""Computer players for practice tables: pure and synchronous like the engine.

A strategy sees only an ``Observation`` (built by ``observe`` from the seat's own
view and the public history) and returns an engine ``Action``.
"""

from . import lowball
from .advice import Advice, Review, advise, review
from .observation import Observation, PublicAction, observe, public_history
from .profiles import Profile, Tendency, record, tendency
from .strategies import BASELINES, KINDS, LEVELS, Strategy


def warm_up() -> None:
    """Build the reference tables every level reads, so no decision builds them: call it
    once at start-up, on a thread (what it costs: docs/benchmarks.md)."""
    lowball.warm_up()


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
    "observe",
    "public_history",
    "record",
    "review",
    "tendency",
    "warm_up",
]
