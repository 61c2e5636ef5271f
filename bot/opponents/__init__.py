"""Computer players for practice tables: pure and synchronous like the engine.

A strategy sees only an ``Observation`` (built by ``observe`` from the seat's own
view and the public history) and returns an engine ``Action``.
"""

from .advice import Advice, Review, advise, review
from .observation import Observation, PublicAction, observe
from .strategies import BASELINES, KINDS, LEVELS, Strategy

__all__ = [
    "BASELINES",
    "KINDS",
    "LEVELS",
    "Advice",
    "Observation",
    "PublicAction",
    "Review",
    "Strategy",
    "advise",
    "observe",
    "review",
]
