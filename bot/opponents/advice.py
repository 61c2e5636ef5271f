"""Learning aids: what a level would do at a player's decision, now or looking back.

Advice is computed by the same strategies from the same ``observe`` door, so it can
only use what that player could see: a hint never reveals a hidden card. Its random
choices are seeded by the decision itself, so asking twice gives the same hint.
"""

from __future__ import annotations

import dataclasses
import random
from dataclasses import dataclass

from bot.engine import Action, ActionKind, Hand, HandRecord

from .observation import observe
from .strategies import LEVELS, Strategy


@dataclass(frozen=True)
class Advice:
    level: str
    action: Action  # what that level would do; a discard names only the player's own cards
    kept: tuple[int, ...] = ()  # a discard: the cards it keeps


@dataclass(frozen=True)
class Review:
    index: int  # the action's index in the hand record
    played: Action
    advice: Advice

    @property
    def same(self) -> bool:
        return self.played == self.advice.action or (
            self.played.action == ActionKind.DISCARD
            and self.advice.action.action == ActionKind.DISCARD
            and set(self.played.cards or ()) == set(self.advice.action.cards or ())
        )


def advise(hand: Hand, player: str, level: str) -> Advice:
    """What ``level`` would do now in ``player``'s place (it must be their turn)."""
    if level not in LEVELS:
        raise ValueError(f"unknown level {level!r}")
    obs = observe(hand, player)
    rng = random.Random(f"advice/{level}/{player}/{len(obs.history)}")
    action = Strategy(level, rng).decide(obs)
    kept = tuple(c for c in obs.cards if c not in (action.cards or ()))
    return Advice(level, action, kept if action.action == ActionKind.DISCARD else ())


def review(record: HandRecord, player: str, level: str) -> list[Review]:
    """Every decision ``player`` made in the hand, next to what ``level`` would have done."""
    hand = Hand(dataclasses.replace(record, actions=[]))
    out = []
    for index, action in enumerate(record.actions):
        if action.player == player:
            out.append(Review(index, action, advise(hand, player, level)))
        hand.apply(action)
    return out
