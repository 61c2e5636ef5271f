"""Push or fold: how every level plays a short stack in a tournament hand (RULES.md §8).

A player dealt in with fewer than ``SHORT_BIG_BETS`` big bets (its stack plus what
it has put in this hand, counted in the hand's largest bet: ``big_bet``, Abyssinia's
``bet``) stops playing its level's game in the first betting round: it **pushes**
(raises whenever a raise is legal, else bets, else calls: as much as fixed limit lets
it put in) or **folds** (checks when that is free), by one rule per game on its
cards (``pushes``); under ``DESPERATE_BIG_BETS`` the rule loosens. After the first
round, a player with at least as many chips in the pot as behind is committed and
keeps pushing; any other goes back to its level's play, which prices every call by
what it costs and what it can win.

Every move is taken from the decision's legal actions, so a short stack never makes
the raises RULES.md §8.3 forbids (one it cannot cover the call for, one at the cap,
one after only incomplete all-ins): the engine does not offer them.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.engine import Action, ActionKind
from bot.engine.cards import Card
from bot.engine.stakes import Stakes
from bot.engine.variants import Phase

from .lowball import low
from .observation import Observation

SHORT_BIG_BETS = 10  # under this many big bets at the deal: push or fold
DESPERATE_BIG_BETS = 4  # under this many: the looser rule


def big_bet(variant: str, stakes: Stakes) -> int:
    """The hand's largest bet of a round: a stack's depth is counted in it."""
    return stakes.bet if variant == "abyssinia" else stakes.big_bet


def depth(obs: Observation) -> float | None:
    """The seat's chips at the deal in big bets; None outside a tournament hand."""
    public = obs.public
    if not public.tournament or public.stakes is None:
        return None
    me = public.seats[obs.seat]
    bet = big_bet(public.variant, public.stakes)
    return (me.stack + me.in_pot) / bet if bet > 0 else None


def pushes(variant: str, cards: Sequence[Card], desperate: bool) -> bool:
    """The rule per game (ranks ace-low, distinct ranks only):
    - ``a6-draw``, ``a5-draw``: four different ranks of 8 or lower (a one-card draw to
      an eight, or better); desperate: three of 7 or lower;
    - ``a5-triple``: three different ranks of 7 or lower; desperate: two of 6 or lower;
    - ``abyssinia`` (one open card in the first round): an ace, a 2 to 5 or a king;
      desperate: any card."""
    ranks = {low(c) for c in cards}
    if variant == "abyssinia":
        return desperate or any(r <= 5 or r == 13 for r in ranks)
    if variant == "a5-triple":
        need, most = (2, 6) if desperate else (3, 7)
    else:
        need, most = (3, 7) if desperate else (4, 8)
    return sum(1 for r in ranks if r <= most) >= need


def push(obs: Observation) -> Action:
    """As much as the rules let it put in now."""
    legal = obs.decision.legal
    most = (ActionKind.RAISE, ActionKind.BET, ActionKind.CALL, ActionKind.CHECK)
    action = next(a for a in most if a in legal)
    return Action(obs.player, action)


def fold(obs: Observation) -> Action:
    """Out, unless staying in is free."""
    check = ActionKind.CHECK
    return Action(obs.player, check if check in obs.decision.legal else ActionKind.FOLD)


def decide(obs: Observation) -> Action | None:
    """The push-or-fold move of a short stack in a betting round; None: not short, or
    past the first round and not committed (its level decides)."""
    if obs.decision.phase != Phase.BET:
        return None
    deep = depth(obs)
    if deep is None or deep >= SHORT_BIG_BETS:
        return None
    if obs.public.round == 1:
        if pushes(obs.public.variant, obs.cards, deep < DESPERATE_BIG_BETS):
            return push(obs)
        return fold(obs)
    me = obs.public.seats[obs.seat]
    return push(obs) if me.in_pot >= me.stack else None
