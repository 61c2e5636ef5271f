"""The computer players: three levels and two baselines, all deciding from an Observation.

A strategy is a plain object with ``decide(obs) -> Action``. It is synchronous and
pure apart from its injected ``random.Random``; the work per decision is bounded
(sample counts shrink as the table grows), whatever the table size.

* ``easy``: loose and passive, calls too much, rarely bets, makes plain mistakes.
* ``normal``: sound heuristics: keeps the right low cards, bets by an equity read
  from reference tables (draw games) or a small simulation (Abyssinia).
* ``hard``: Monte Carlo equity over the unseen cards consistent with what it
  knows, more samples, bluffs where the draws say the others are weak, and snows.
* ``random``: a uniform legal action. ``station``: checks or calls, stands pat on
  made hands, buys the cheaper card.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from itertools import combinations

from bot.engine import VARIANTS, Action
from bot.engine.cards import FULL_DECK, Card
from bot.engine.rankings import VALUE

from . import abyssinia, lowball
from .observation import Observation

LEVELS = ("easy", "normal", "hard")
BASELINES = ("random", "station")
KINDS = LEVELS + BASELINES
_BETTING = ("check", "bet", "call", "raise", "fold")


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


STYLES = {
    "easy": Style(0.30, 0.45, 0.45, 1.0, 0.0, 0.3, 0, 0.0),
    "normal": Style(0.10, 0.22, 1.0, 0.85, 0.06, 0.0, 0, 0.0),
    "hard": Style(0.05, 0.20, 1.0, 0.70, 0.04, 0.0, 240, 0.15),
}


class Strategy:
    """One computer player's way of deciding; ``kind`` is a level or a baseline."""

    def __init__(self, kind: str, rng: random.Random, style: Style | None = None) -> None:
        if kind not in KINDS:
            raise ValueError(f"unknown strategy {kind!r}")
        self.kind = kind
        self.rng = rng
        self.style = style or STYLES.get(kind)

    def decide(self, obs: Observation) -> Action:
        if self.kind == "random":
            return random_move(obs, self.rng)
        if self.kind == "station":
            return station_move(obs)
        if VARIANTS[obs.public.variant].split:
            return self._abyssinia(obs)
        return self._lowball(obs)

    # ----- draw games ------------------------------------------------------------

    def _lowball(self, obs: Observation) -> Action:
        game = VARIANTS[obs.public.variant]
        ranking = game.ranking
        style = self.style
        assert style is not None
        rng = self.rng
        draws_left = game.draws - len(obs.public.seats[obs.seat].drawn)
        dead = own_discards(obs)
        in_hand = [s for i, s in enumerate(obs.public.seats) if i != obs.seat and not s.folded]
        opps = [s.drawn for s in in_hand]
        opp_names = [s.player for s in in_hand]
        signals: dict[str, str] | None = None
        keep = obs.cards
        if draws_left:
            keep = tuple(lowball.choose_keep(obs.cards, ranking, draws_left, dead))
        if obs.decision.phase == "draw":
            keep = self._adjust_keep(obs, keep, draws_left, opps)
            return Action(obs.player, "discard", cards=tuple(c for c in obs.cards if c not in keep))
        if style.samples:
            unseen = [c for c in FULL_DECK if c not in obs.cards and c not in dead]
            samples = max(40, style.samples // len(opps) // max(1, draws_left))
            # Once nobody has a draw left, the betting says something about their hands.
            signals = final_round_signals(obs) if draws_left == 0 else None
            equity = lowball.simulate_equity(
                ranking,
                game.draws,
                obs.cards,
                keep,
                draws_left,
                unseen,
                opps,
                samples,
                rng,
                [signals.get(p) for p in opp_names] if signals else (),
            )
        else:
            mine = (
                lowball.final_values(ranking, draws_left, tuple(sorted(keep)))
                if draws_left
                else (VALUE[ranking](obs.cards),)
            )
            equity = lowball.table_equity(ranking, game.draws, mine, opps)
        bluff = draws_left == 0 and rng.random() < self._bluff_chance(obs, equity, opps)
        return Action(obs.player, self._bet(obs, equity, bluff, read=bool(signals)))

    def _adjust_keep(
        self,
        obs: Observation,
        keep: tuple[Card, ...],
        draws_left: int,
        opps: list[tuple[int, ...]],
    ) -> tuple[Card, ...]:
        style = self.style
        assert style is not None
        rng = self.rng
        if style.mistakes and rng.random() < style.mistakes:
            # Plain mistakes: keep a high card or a pair, or throw one card too many.
            thrown = [c for c in obs.cards if c not in keep]
            if thrown and rng.random() < 0.6:
                return (*keep, rng.choice(thrown))
            if keep:
                return tuple(keep[:-1])
        hopeless = len(keep) <= 2
        if (
            style.snow
            and draws_left == 1
            and hopeless
            and len(opps) == 1
            and last_aggressor(obs) == obs.player
            and (len(opps[0]) < len(obs.public.seats[obs.seat].drawn) + 1 or opps[0][-1] >= 2)
            and rng.random() < style.snow
        ):
            return tuple(obs.cards)  # snow: stand pat on nothing, to bet it as a made hand
        return keep

    def _bluff_chance(self, obs: Observation, equity: float, opps: list[tuple[int, ...]]) -> float:
        style = self.style
        assert style is not None
        if obs.decision.to_call or not style.bluff or equity > 0.5:
            return 0.0
        if style.snow and obs.public.seats[obs.seat].drawn[-1:] == (0,):
            return 0.9  # we stood pat: keep telling the story
        if len(opps) == 1 and style.snow and opps[0][-1:] and opps[0][-1] >= 2:
            return 2 * style.bluff  # they drew two or more at the last draw: often missed
        return style.bluff if len(opps) == 1 else style.bluff / 3

    # ----- Abyssinia -------------------------------------------------------------

    def _abyssinia(self, obs: Observation) -> Action:
        style = self.style
        assert style is not None
        rng = self.rng
        table = abyssinia.read_table(obs)
        players = 1 + len(table.others)
        budget = style.samples or 120
        if obs.decision.phase == "buy":
            options = [o.source for o in obs.decision.market]
            if style.mistakes and rng.random() < style.mistakes:
                return Action(obs.player, "buy", source=rng.choice(options))
            samples = max(12, 2 * budget // players)
            values = abyssinia.option_values(table, options, samples, rng, 0.8)
            best = max(options, key=lambda o: values[o])
            return Action(obs.player, "buy", source=best)
        samples = max(20, 2 * budget // players)
        equity = abyssinia.share_now(table, samples, rng)
        last = table.bets_left == 1
        bluff = last and rng.random() < (style.bluff / 2 if players == 2 else 0.0)
        return Action(obs.player, self._bet(obs, equity, bluff))

    # ----- betting -------------------------------------------------------------------

    def _bet(self, obs: Observation, equity: float, bluff: bool, read: bool = False) -> str:
        """A betting action from the equity; ``read``: the equity already accounts for the
        others' bets this round (else it is discounted for each one)."""
        style = self.style
        assert style is not None
        d = obs.decision
        legal = d.legal
        aggressive = "bet" if "bet" in legal else "raise"
        players = sum(1 for s in obs.public.seats if not s.folded)
        fair = 1 / players
        if not read:
            equity *= style.respect ** raises_by_others(obs)
        if style.mistakes and self.rng.random() < style.mistakes / 2:
            return "call" if "call" in legal else "check"  # the passive player's default
        if d.to_call == 0:
            if aggressive in legal and (equity >= fair + style.bet_edge or bluff):
                return aggressive
            return "check"
        pot_odds = d.to_call / (obs.public.pot + d.to_call)
        if "raise" in legal and equity >= fair + style.raise_edge:
            return "raise"
        if equity >= pot_odds * style.call_factor:
            return "call"
        return "fold"


# ----- baselines and helpers ---------------------------------------------------------


def random_move(obs: Observation, rng: random.Random) -> Action:
    """A uniformly chosen legal action (a uniform count of cards, then a uniform subset)."""
    d = obs.decision
    if d.phase == "draw":
        held = d.discardable
        subsets = list(combinations(held, rng.randint(0, len(held))))
        return Action(obs.player, "discard", cards=rng.choice(subsets))
    if d.phase == "buy":
        return Action(obs.player, "buy", source=rng.choice(d.market).source)
    return Action(obs.player, rng.choice(d.legal))


def station_move(obs: Observation) -> Action:
    """Check or call; stand pat on a made hand (else keep the low cards); buy the cheaper."""
    d = obs.decision
    if d.phase == "draw":
        ranking = VARIANTS[obs.public.variant].ranking
        if lowball.is_made(obs.cards, ranking):
            return Action(obs.player, "discard", cards=())
        keep = [c for c in lowball.distinct_low(obs.cards) if lowball.low(c) <= lowball.CAP][:4]
        return Action(obs.player, "discard", cards=tuple(c for c in obs.cards if c not in keep))
    if d.phase == "buy":
        priced = [o for o in d.market if o.price is not None]
        return Action(obs.player, "buy", source=min(priced, key=lambda o: o.price or 0).source)
    return Action(obs.player, "check" if "check" in d.legal else "call")


def own_discards(obs: Observation) -> list[Card]:
    return [c for a in obs.history if a.player == obs.player and a.cards for c in a.cards]


def _betting_rounds(obs: Observation) -> list[list[tuple[str, str]]]:
    """The betting actions (player, action) of each betting round so far, in order."""
    rounds: list[list[tuple[str, str]]] = [[]]
    for a in obs.history:
        if a.action in _BETTING:
            rounds[-1].append((a.player, a.action))
        elif rounds[-1]:
            rounds.append([])
    return rounds


def raises_by_others(obs: Observation) -> int:
    """Bets and raises by other players in the current betting round."""
    current = _betting_rounds(obs)[-1] if obs.history and obs.history[-1].action in _BETTING else []
    return sum(1 for p, a in current if p != obs.player and a in ("bet", "raise"))


def final_round_signals(obs: Observation) -> dict[str, str]:
    """Each player's action so far in the current betting round: ``bet`` if they bet or
    raised in it, ``check`` if they only checked."""
    current = _betting_rounds(obs)[-1] if obs.history and obs.history[-1].action in _BETTING else []
    out: dict[str, str] = {}
    for p, a in current:
        if a in ("bet", "raise"):
            out[p] = "bet"
        elif a == "check":
            out.setdefault(p, "check")
    return out


def last_aggressor(obs: Observation) -> str | None:
    """Who made the last bet or raise of the latest betting round that had one."""
    for actions in reversed(_betting_rounds(obs)):
        for p, a in reversed(actions):
            if a in ("bet", "raise"):
                return p
    return None
