"""What each player has shown at this table: betting tendencies counted from public history.

Every seat sees the betting of earlier hands, so a profile built from it keeps the
``observe`` rule (nothing hidden reaches a strategy). ``record`` folds one finished
hand's public actions into the profiles; a table keeps them in memory and starts
over when its seats change. Counts start from a sound player's prior, so a player
seen for a few hands only reads as sound, and ``tendency`` turns a profile into the
few numbers a strategy adjusts by (all zero for a player who looks sound).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from bot.engine.cards import Card
from bot.engine.record import ActionKind

from .actions import AGGRESSIVE, BETTING, PublicAction
from .lowball import PAT_TOP, low, top

# A sound fixed-limit player's rates, and how many actions the prior weighs.
PRIOR_AGGRESSION = 0.3  # bets and raises among betting actions
PRIOR_FOLDS = 0.35  # folds among the times a bet was faced
PRIOR_WEIGHT = 8
# Draw games: among hands shown down after standing pat at the last draw, the share with a
# top card above ten (a sound player stands pat on a ten at worst), and its prior's weight.
PRIOR_ROUGH_PATS = 0.05
PRIOR_PAT_WEIGHT = 3
ROUGH = 11  # a jack
# Draw games: among hands shown down by the last round's last bettor or raiser, the share
# that were no made hand or a ten or worse (bluffs and thin bets), and its prior's weight.
PRIOR_WEAK_BETS = 0.25
PRIOR_BET_WEIGHT = 4
WEAK_BET = 10  # a ten
SOUND_PAT_TOP = PAT_TOP[1]  # the roughest hand a sound player stands pat on, one draw left
CAP = 4  # bets and raises a betting round allows (RULES.md §3)
# The betting actions that answer a bet: what a player facing one may do.
_FACING = frozenset((ActionKind.CALL, ActionKind.RAISE, ActionKind.FOLD))


@dataclass(frozen=True)
class Profile:
    actions: int = 0  # betting actions where a bet or raise was open (the round not capped)
    aggressive: int = 0  # bets and raises among them
    faced: int = 0  # actions facing a bet (call, raise, fold)
    folds: int = 0
    pats_shown: int = 0  # hands shown down after standing pat at the last draw
    rough_pats: int = 0  # … with a top card of a jack or worse
    roughest_pat: int = 0  # the highest top card among them (lowball rank, ace 1)
    bets_shown: int = 0  # draw games: hands shown down after making the last round's last bet
    weak_bets_shown: int = 0  # … that were no made hand, or a ten or worse

    @property
    def aggression(self) -> float:
        return (self.aggressive + PRIOR_AGGRESSION * PRIOR_WEIGHT) / (self.actions + PRIOR_WEIGHT)

    @property
    def fold_rate(self) -> float:
        return (self.folds + PRIOR_FOLDS * PRIOR_WEIGHT) / (self.faced + PRIOR_WEIGHT)

    @property
    def rough_pat_rate(self) -> float:
        rough = self.rough_pats + PRIOR_ROUGH_PATS * PRIOR_PAT_WEIGHT
        return rough / (self.pats_shown + PRIOR_PAT_WEIGHT)

    @property
    def weak_bet_rate(self) -> float:
        weak = self.weak_bets_shown + PRIOR_WEAK_BETS * PRIOR_BET_WEIGHT
        return weak / (self.bets_shown + PRIOR_BET_WEIGHT)


@dataclass(frozen=True)
class Tendency:
    """How far a player departs from a sound one, each from 0 (sound) to 1.

    ``loose``: bets and raises with anything, so aggression says little about the hand;
    ``sticky``: rarely folds to a bet, so a call says little and a bluff rarely works;
    ``passive``: rarely bets, so a check does not deny a strong hand; ``rough_pat``:
    stands pat on hands rougher than ten (seen at showdowns, more often than a slip),
    ``pat_top`` the roughest top card they have shown down standing pat (ten for a
    sound player); ``honest``: the last round's bets shown down were value bets, hardly
    ever a bluff, so such a bet is read as a made hand."""

    loose: float = 0.0
    sticky: float = 0.0
    passive: float = 0.0
    rough_pat: bool = False
    pat_top: int = SOUND_PAT_TOP
    honest: float = 0.0

    @property
    def bluffable(self) -> float:
        """What a bluff's chance is multiplied by against this player."""
        return 1.0 - self.sticky


SOUND = Tendency()
EMPTY: Mapping[str, Profile] = {}


def _scale(x: float, start: float, full: float) -> float:
    """0 at ``start``, 1 at ``full`` (either direction), clamped."""
    t = (x - start) / (full - start)
    return min(1.0, max(0.0, t))


def tendency(profile: Profile | None) -> Tendency:
    if profile is None:
        return SOUND
    return Tendency(
        loose=_scale(profile.aggression, 0.45, 0.8),
        sticky=_scale(profile.fold_rate, 0.22, 0.06),
        passive=_scale(profile.aggression, 0.15, 0.05),
        rough_pat=profile.rough_pat_rate >= 0.3,
        # A sound player never stands pat on a jack with one draw left: one such hand
        # shown says how rough they stand pat, if not yet how often.
        pat_top=max(SOUND_PAT_TOP, profile.roughest_pat),
        honest=_scale(profile.weak_bet_rate, 0.25, 0.1),
    )


def record(
    profiles: Mapping[str, Profile],
    history: Sequence[PublicAction],
    shown: Mapping[str, Sequence[Card]] | None = None,
) -> dict[str, Profile]:
    """The profiles after one more hand whose public actions are ``history`` and whose
    showdown showed ``shown`` (player: cards; ``PublicView.shown``)."""
    out = dict(profiles)
    last_draw: dict[str, int] = {}
    raised = 0  # bets and raises so far in this betting round
    bettor: str | None = None  # the last bettor or raiser of the latest betting round
    bought = False  # Abyssinia: its shown cards say nothing of a lowball bet
    for a in history:
        if a.action == ActionKind.DISCARD and a.drew is not None:
            last_draw[a.player] = a.drew
        if a.action not in BETTING:
            raised = 0  # a draw or a buy: the next action opens a new betting round
            bettor = None
            bought = bought or a.action == ActionKind.BUY
            continue
        if a.action in AGGRESSIVE:
            bettor = a.player
        p = out.get(a.player, Profile())
        # Once a round is capped (a bet and three raises) a call is all a player may do:
        # it says nothing of how aggressive they are.
        open_ = raised < CAP
        raised += a.action in AGGRESSIVE
        out[a.player] = replace(
            p,
            actions=p.actions + open_,
            aggressive=p.aggressive + (a.action in AGGRESSIVE),
            faced=p.faced + (a.action in _FACING),
            folds=p.folds + (a.action == ActionKind.FOLD),
        )
    for player, cards in (shown or {}).items():
        if player == bettor and not bought and len(cards) == 5:
            p = out.get(player, Profile())
            weak = len({low(c) for c in cards}) < 5 or top(cards) >= WEAK_BET
            out[player] = replace(
                p, bets_shown=p.bets_shown + 1, weak_bets_shown=p.weak_bets_shown + weak
            )
        if last_draw.get(player) == 0 and cards:
            p = out.get(player, Profile())
            out[player] = replace(
                p,
                pats_shown=p.pats_shown + 1,
                rough_pats=p.rough_pats + (top(cards) >= ROUGH),
                roughest_pat=max(p.roughest_pat, top(cards)),
            )
    return out
