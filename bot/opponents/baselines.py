"""The two plain baselines a strategy can be: ``random`` (a uniform legal action) and
``station`` (checks or calls, stands pat on made hands, buys the cheaper card)."""

from __future__ import annotations

import random
from itertools import combinations

from bot.engine import VARIANTS, Action, ActionKind, BuySource
from bot.engine.variants import Phase

from . import lowball
from .observation import Observation


def random_move(obs: Observation, rng: random.Random) -> Action:
    """A uniformly chosen legal action (a uniform count of cards, then a uniform subset)."""
    d = obs.decision
    if d.phase == Phase.DRAW:
        held = d.discardable
        subsets = list(combinations(held, rng.randint(0, len(held))))
        return Action(obs.player, ActionKind.DISCARD, cards=rng.choice(subsets))
    if d.phase == Phase.BUY:
        return Action(obs.player, ActionKind.BUY, source=rng.choice(d.market).source)
    return Action(obs.player, rng.choice(d.legal))


def station_move(obs: Observation) -> Action:
    """Check or call; stand pat on a made hand (else keep the low cards); buy the cheaper."""
    d = obs.decision
    if d.phase == Phase.DRAW:
        ranking = VARIANTS[obs.public.variant].ranking
        if lowball.is_made(obs.cards, ranking):
            return Action(obs.player, ActionKind.DISCARD, cards=())
        keep = [c for c in lowball.distinct_low(obs.cards) if lowball.low(c) <= lowball.CAP][:4]
        return Action(
            obs.player, ActionKind.DISCARD, cards=tuple(c for c in obs.cards if c not in keep)
        )
    if d.phase == Phase.BUY:
        priced = [o for o in d.market if o.price is not None]
        if not priced:  # all-in: only the free blind card (RULES.md §8.4)
            return Action(obs.player, ActionKind.BUY, source=BuySource.BLIND)
        return Action(
            obs.player, ActionKind.BUY, source=min(priced, key=lambda o: o.price or 0).source
        )
    check = ActionKind.CHECK
    return Action(obs.player, check if check in d.legal else ActionKind.CALL)
