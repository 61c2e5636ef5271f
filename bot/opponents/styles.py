"""The levels' parameters: each level's ``Style`` and the tuning constants its decisions
read (``strategies``); their figures are in docs/benchmarks.md, "Computer players"."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Style:
    bet_edge: float  # equity above a fair share (1 / players in) needed to bet
    raise_edge: float  # … needed to raise
    call_factor: float  # multiplies the pot odds a call needs (below 1: loose)
    respect: float  # equity kept for each bet or raise by others this round
    bluff: float  # chance to bet a weak hand on the last round when checked to
    mistakes: float  # chance of a plain mistake at a decision
    samples: int  # simulation budget per decision (0: reference tables only)
    snow: float  # chance to stand pat on a hopeless hand heads-up at the last draw
    ranges: bool = False  # draw games: equity against ranges read from the betting
    steal: float = 0.0  # chance to bet a weak hand first in before the (first) draw
    adapt: bool = False  # read each player's tendencies from earlier hands (obs.profiles)
    implied: float = 0.0  # Abyssinia: share of the others' looseness off a call's pot odds
    thin: float = 0.0  # Abyssinia: share of the others' stickiness off a bet's edge


STYLES = {
    "easy": Style(0.30, 0.45, 0.45, 1.0, 0.0, 0.3, 0, 0.0),
    "normal": Style(0.10, 0.22, 1.0, 0.85, 0.06, 0.0, 0, 0.0, adapt=True, implied=0.25),
    "hard": Style(
        0.04,
        0.16,
        1.0,
        0.70,
        0.10,
        0.0,
        240,
        0.15,
        ranges=True,
        steal=0.35,
        adapt=True,
        implied=0.8,
        thin=1.0,
    ),
}
# Range play (hard): the equity a call needs above the pot odds, by draws still to come
# (this round's draw included): future bets are paid with a hand that is often behind.
CALL_MARGIN = {0: 0.0, 1: 0.02, 2: 0.06, 3: 0.14}
# Triple draw at three or more seats, the big blind's option over limpers: the equity a
# raise needs above the raise edge, per limper (each can call and outdraw it three times).
LIMPER_RAISE_EDGE = 0.04
ABYSSINIA_SAMPLES = 160  # simulation budget per Abyssinia decision, at most
RANGE_SAMPLES = 600  # opponent hands sampled per decision, shared among the opponents
# Triple draw, a draw facing a bet before the second draw: next draws sampled to price
# the call by what the big-bet round after it does with each (``_pays_to_the_big_bets``).
NEXT_DRAW_SAMPLES = 48
MANIAC_LOOSE = 0.9  # a player this loose bets and raises with anything (profiles.Tendency)
# Triple draw at three or more seats, calling a raise before the first draw out of position
# for the rounds after the draws (someone still in acts after us): the equity a call needs
# above the pot odds (such a call realizes less than its showdown equity).
OUT_OF_POSITION_MARGIN = 0.10
# Triple draw heads-up between two draws, nothing owed and ahead on the draw (fewer cards
# to take than the other took last, or pat on an eight or better): the equity below a fair
# share still bet (paired at six seats against td-pro: +0.43 +- 0.30 bb/100 over 24,000).
AHEAD_ON_THE_DRAW_BET = 0.05
# Triple draw heads-up, the ahead-on-the-draw bet and the last round's six-or-better raise
# read a sound player's ranges: they apply while the others read at most this loose
# (against the maniac, raising its last bets with a seven or an eight and check-raising won).
SOUND_LOOSE = 0.25
