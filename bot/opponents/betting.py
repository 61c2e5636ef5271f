"""What a hand's betting says to one seat: its rounds, who bet and raised, who acts after
whom, each opponent's read (``ranges.Read``), and the seat's own discards.

Pure functions of an ``Observation``, read by the computer players' decisions
(``strategies``).
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.engine.cards import Card
from bot.engine.record import ActionKind
from bot.engine.variants import Phase

from . import ranges
from .actions import AGGRESSIVE, BETTING
from .observation import Observation
from .profiles import Tendency, tendency


def own_discards(obs: Observation) -> list[Card]:
    """The cards this seat threw (no other seat saw them): none of the others holds them."""
    return [c for a in obs.history if a.player == obs.player and a.cards for c in a.cards]


def betting_rounds(obs: Observation) -> list[list[tuple[str, str]]]:
    """The betting actions (player, action) of each betting round so far, in order."""
    rounds: list[list[tuple[str, str]]] = [[]]
    for a in obs.history:
        if a.action in BETTING:
            rounds[-1].append((a.player, a.action))
        elif rounds[-1]:
            rounds.append([])
    return rounds


def current_round(obs: Observation) -> list[tuple[str, str]]:
    """The betting actions of the current betting round (empty at its start)."""
    if obs.history and obs.history[-1].action in BETTING:
        return betting_rounds(obs)[-1]
    return []


def opponent_reads(obs: Observation, adapt: bool = False) -> dict[str, ranges.Read]:
    """What each other player's betting says: this round's bets, raises, calls and
    checks, and their bets and raises in the round before it (with ``adapt``, weighed
    by what their earlier hands showed of them)."""
    rounds = [r for r in betting_rounds(obs) if r]
    current = current_round(obs)
    done = rounds[:-1] if current else rounds
    previous = done[-1] if done else []
    # What a player's shown last-round bets say counts in the last round only: earlier
    # bets also come from draws ahead on the count, which no showdown shows.
    last = obs.public.phase == Phase.BET and obs.public.round == obs.public.rounds
    out = {}
    opened_behind = _open_raisers_behind(obs) if len(rounds) <= 1 and current else {}
    for s in obs.public.seats:
        if s.player == obs.player:
            continue
        mine = [a for p, a in current if p == s.player]
        t = tendency(obs.profiles.get(s.player)) if adapt else Tendency()
        out[s.player] = ranges.Read(
            aggression=sum(1 for a in mine if a in AGGRESSIVE),
            called=ActionKind.CALL in mine,
            checked=bool(mine) and all(a == ActionKind.CHECK for a in mine),
            earlier=sum(1 for p, a in previous if p == s.player and a in AGGRESSIVE),
            opened=mine == [ActionKind.BET],
            loose=t.loose,
            sticky=t.sticky,
            passive=t.passive,
            rough_pat=t.rough_pat,
            pat_top=t.pat_top,
            honest=t.honest if last else 0.0,
            behind=opened_behind.get(s.player, 0),
        )
    return out


def _open_raisers_behind(obs: Observation) -> dict[str, int]:
    """Triple draw at three seats or more, the first betting round: the player who raised
    first in, and how many players were still to act after them then."""
    seats = obs.public.seats
    n = len(seats)
    if n < 3 or obs.public.rounds < 3 or obs.public.round != 1:
        return {}
    for p, a in current_round(obs):
        if a == ActionKind.RAISE:
            dealer = next((i for i, s in enumerate(seats) if s.dealer), 0)
            i = next(i for i, s in enumerate(seats) if s.player == p)
            return {p: n - 1 - (i - dealer - 3) % n}
    return {}


def acting_after_the_draw(obs: Observation) -> int:
    """How many of the other players still in act after us in a betting round after a
    draw, where the player left of the dealer acts first and the dealer last."""
    seats = obs.public.seats
    n = len(seats)
    dealer = next((i for i, s in enumerate(seats) if s.dealer), 0)

    def order(i: int) -> int:
        return (i - dealer - 1) % n

    me = order(obs.seat)
    return sum(1 for i, s in enumerate(seats) if i != obs.seat and not s.folded and order(i) > me)


def raisers_by_others(obs: Observation) -> list[str]:
    """Who made each bet and raise by other players in the current betting round."""
    current = current_round(obs)
    return [p for p, a in current if p != obs.player and a in AGGRESSIVE]


def last_aggressor(obs: Observation) -> str | None:
    """Who made the last bet or raise of the latest betting round that had one."""
    for actions in reversed(betting_rounds(obs)):
        for p, a in reversed(actions):
            if a in AGGRESSIVE:
                return p
    return None


@dataclass(frozen=True)
class PotShare:
    """One pot this seat can win if it calls now: its chips and the others contesting it."""

    amount: int
    opponents: tuple[str, ...]  # the other players still in eligible for it


def winnable_pots(obs: Observation) -> list[PotShare]:
    """The pots (RULES.md §8.5) this seat can win once it puts in what a call costs now
    (nothing when nothing is owed), main first. A cash hand has one: the whole pot, against
    everyone still in. Chips an all-in seat cannot win are left out."""
    seats = obs.public.seats
    me = obs.seat
    cost = obs.decision.costs.get(ActionKind.CALL, 0)
    put = [s.in_pot for s in seats]
    put[me] += cost
    all_in = [s.all_in for s in seats]
    all_in[me] = all_in[me] or (obs.public.tournament and cost >= seats[me].stack)
    still_in = [i for i, s in enumerate(seats) if not s.folded]
    caps = sorted({put[i] for i in still_in if all_in[i]})
    out: list[PotShare] = []
    below = 0
    for cap in [*caps, None]:
        amount = sum((c if cap is None else min(c, cap)) - min(c, below) for c in put)
        eligible = [i for i in still_in if not all_in[i] or (cap is not None and put[i] >= cap)]
        if cap is not None:
            below = cap
        if amount and me in eligible:
            names = tuple(seats[i].player for i in eligible if i != me)
            out.append(PotShare(amount, names))
    return out


def call_price(obs: Observation, pots: list[PotShare]) -> float:
    """The share of the chips it can win that a call costs (the pot odds); 0 when free."""
    cost = obs.decision.costs.get(ActionKind.CALL, 0)
    total = sum(p.amount for p in pots)
    return cost / total if total else 0.0
