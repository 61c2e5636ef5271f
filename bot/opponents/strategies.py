"""The computer players: three levels and two baselines, all deciding from an Observation.

A strategy is a plain object with ``decide(obs) -> Action``. It is synchronous and
pure apart from its injected ``random.Random``; the work per decision is bounded
(sample counts shrink as the table grows), whatever the table size.

* ``easy``: loose and passive, calls too much, rarely bets, makes plain mistakes.
* ``normal``: sound heuristics: keeps the right low cards, bets by an equity read
  from reference tables (draw games) or a small simulation (Abyssinia).
* ``hard``: in the draw games, equity against ranges read from the betting (each
  opponent's hands weighted by how likely their actions are with them) and a fixed-limit
  player's thresholds per round and position; in Abyssinia, more samples and thin value
  bets into players who never fold; bluffs where the draws say the others are weak, and
  snows.
* ``random``: a uniform legal action. ``station``: checks or calls, stands pat on
  made hands, buys the cheaper card.

In a tournament hand (RULES.md §8) every level prices a call by what it really costs
(a short stack's whole stack) against the chips it can win (``betting.winnable_pots``);
``hard`` weighs its equity pot by pot, against the players contesting each one; a
short stack (under ``push_fold.SHORT_BIG_BETS`` big bets) pushes or folds at every level.
"""

from __future__ import annotations

import random
import zlib
from collections.abc import Callable
from dataclasses import replace

from bot.engine import VARIANTS, Action, ActionKind, BuySource, SeatInfo, Stakes
from bot.engine.cards import FULL_DECK, Card
from bot.engine.variants import Phase

from . import abyssinia, lowball, push_fold, ranges
from .actions import AGGRESSIVE
from .baselines import random_move, station_move
from .betting import (
    PotShare,
    acting_after_the_draw,
    call_price,
    current_round,
    last_aggressor,
    opponent_reads,
    own_discards,
    raisers_by_others,
    winnable_pots,
)
from .observation import Observation
from .profiles import Tendency, tendency
from .styles import (
    ABYSSINIA_SAMPLES,
    AHEAD_ON_THE_DRAW_BET,
    CALL_MARGIN,
    LIMPER_RAISE_EDGE,
    MANIAC_LOOSE,
    NEXT_DRAW_SAMPLES,
    OUT_OF_POSITION_MARGIN,
    RANGE_SAMPLES,
    SOUND_LOOSE,
    STYLES,
    Style,
)

LEVELS = ("easy", "normal", "hard")
BASELINES = ("random", "station")
KINDS = LEVELS + BASELINES
# The betting actions that put chips in of a player's own will.
_VOLUNTARY = frozenset((ActionKind.BET, ActionKind.RAISE, ActionKind.CALL))


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
        short = push_fold.decide(obs)  # a short tournament stack: push or fold
        if short is not None:
            return short
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
        keep = obs.cards
        if draws_left:
            keep = tuple(lowball.choose_keep(obs.cards, ranking, draws_left, dead))
        if obs.decision.phase == Phase.DRAW:
            if style.ranges and draws_left == 1:
                keep = self._pat_when_it_wins_more(obs, keep, in_hand, dead)
                keep = self._break_against_a_pat_bettor(obs, keep, in_hand, dead)
                keep = self._break_a_rough_pat_hand(obs, keep, in_hand, dead)
            if style.ranges and draws_left == 2 and game.draws > 1:
                keep = self._break_a_nine_with_two_draws_left(obs, keep, in_hand)
            keep = self._adjust_keep(obs, keep, draws_left, opps)
            return Action(
                obs.player, ActionKind.DISCARD, cards=tuple(c for c in obs.cards if c not in keep)
            )
        if style.ranges and draws_left == 1:
            # Priced as it will be drawn: a rough pat hand it would break is a draw now.
            keep = self._break_a_rough_pat_hand(obs, keep, in_hand, dead)
        mine = lowball.finals_of(obs.cards, ranking, draws_left, keep)
        if style.ranges:
            equity = self._equity_per_pot(
                obs, lambda them: self._read_equity(obs, mine, them, dead), in_hand
            )
            return Action(obs.player, self._range_bet(obs, equity, keep, draws_left, opps))
        equity = lowball.table_equity(ranking, game.draws, mine, opps)
        bluff = draws_left == 0 and rng.random() < self._bluff_chance(obs, equity, opps)
        # In the draw games every level that reads the players bets thinner into those
        # who rarely fold; in Abyssinia that is hard's alone (Style.thin).
        return Action(obs.player, self._bet(obs, equity, bluff, thin=1.0))

    def _equity_per_pot(
        self,
        obs: Observation,
        equity_against: Callable[[list[SeatInfo]], float],
        in_hand: list[SeatInfo],
    ) -> float:
        """The equity over the chips this seat can win: each pot's equity against the
        players contesting it (1 when nobody else is), weighed by its chips. With one pot
        against everyone still in (a cash hand) it is ``equity_against(in_hand)``."""
        pots = winnable_pots(obs)
        if len(pots) == 1 and len(pots[0].opponents) == len(in_hand):
            return equity_against(in_hand)
        total = sum(p.amount for p in pots)
        if not total:
            return equity_against(in_hand)
        by_name = {s.player: s for s in in_hand}
        found: dict[tuple[str, ...], float] = {}
        weighted = 0.0
        for pot in pots:
            if pot.opponents not in found:
                them = [by_name[name] for name in pot.opponents]
                found[pot.opponents] = equity_against(them) if them else 1.0
            weighted += pot.amount * found[pot.opponents]
        return weighted / total

    def _read_equity(
        self, obs: Observation, mine: tuple[int, ...], in_hand: list[SeatInfo], dead: list[Card]
    ) -> float:
        """Equity of our final values ``mine`` against the ranges the others' betting and
        draws say they hold."""
        game = VARIANTS[obs.public.variant]
        style = self.style
        assert style is not None
        reads = opponent_reads(obs, style.adapt)
        equity = ranges.range_equity(
            game.ranking,
            game.draws,
            mine,
            [*obs.cards, *dead],
            [(s.drawn, reads[s.player]) for s in in_hand],
            max(60, RANGE_SAMPLES // len(in_hand)),
            self.rng,
        )
        # A fully loose player's betting says nothing of their hand: then the range
        # is every hand their draws allow, which the reference (6,000 hands) knows
        # more finely than a range pool (600): the reference of a player who stands
        # pat as rough as the roughest pat hand they have shown down.
        blind = min(reads[s.player].loose for s in in_hand)
        if blind:
            loosen = [lowball.loosen_of(reads[s.player].pat_top) for s in in_hand]
            opps = [s.drawn for s in in_hand]
            table = lowball.table_equity(game.ranking, game.draws, mine, opps, loosen)
            equity = blind * table + (1.0 - blind) * equity
        return equity

    def _break_a_nine_with_two_draws_left(
        self, obs: Observation, keep: tuple[Card, ...], in_hand: list[SeatInfo]
    ) -> tuple[Card, ...]:
        """Triple draw, two draws left, heads-up: a pat nine (the rule keeps it) is broken
        to its best four against a pat hand or a one-card draw, as published pat-or-break
        play has it (stand pat on an eight; a nine only against two cards or more)."""
        if len(keep) < 5 or len(in_hand) != 1 or in_hand[0].drawn[-1:] not in ((0,), (1,)):
            return keep
        lows = [c for c in lowball.distinct_low(obs.cards) if lowball.low(c) <= lowball.CAP]
        if lowball.top(obs.cards) < 9 or len(lows) < 4:
            return keep
        return tuple(lows[:4])

    def _break_against_a_pat_bettor(
        self, obs: Observation, keep: tuple[Card, ...], in_hand: list[SeatInfo], dead: list[Card]
    ) -> tuple[Card, ...]:
        """Triple draw, the last draw, heads-up: a pat hand the rule keeps (a nine or a
        ten) against a player who stood pat and made the last bet or raise is broken to
        its best four when the draw wins more against what that betting says they hold
        (published pat-or-break play: a rough pat hand is beaten by a pat bettor's)."""
        game = VARIANTS[obs.public.variant]
        if game.draws == 1 or len(keep) < 5 or len(in_hand) != 1:
            return keep
        them = in_hand[0]
        if them.drawn[-1:] != (0,) or last_aggressor(obs) != them.player:
            return keep
        return self._broken_if_the_draw_wins_more(obs, keep, in_hand, dead)

    def _break_a_rough_pat_hand(
        self, obs: Observation, keep: tuple[Card, ...], in_hand: list[SeatInfo], dead: list[Card]
    ) -> tuple[Card, ...]:
        """Triple draw, one draw to come, at the draw and in the betting before it: a pat
        nine or ten (the rule keeps it) is broken to its best four when the draw wins more
        against what the others' draws and betting say they hold, however many are still
        in (published pat-or-break play: with one draw left an eight stands pat, a nine
        only against draws, a ten is broken against a pat hand or a one-card draw). Priced
        as a pat hand, a ten facing a bet from a player who stood pat had no equity and
        folded what the draw would have called: at six seats the most common fold after
        the second draw (--diagnose)."""
        game = VARIANTS[obs.public.variant]
        if game.draws == 1 or len(keep) < 5 or lowball.top(obs.cards) < 9:
            return keep
        return self._broken_if_the_draw_wins_more(obs, keep, in_hand, dead)

    def _broken_if_the_draw_wins_more(
        self, obs: Observation, keep: tuple[Card, ...], in_hand: list[SeatInfo], dead: list[Card]
    ) -> tuple[Card, ...]:
        """The pat hand broken to its best four low cards when drawing one to them wins more
        against what the others' draws and betting say they hold; else ``keep``."""
        ranking = VARIANTS[obs.public.variant].ranking
        lows = [c for c in lowball.distinct_low(obs.cards) if lowball.low(c) <= lowball.CAP]
        if len(lows) < 4:
            return keep
        four = tuple(lows[:4])
        pat = lowball.finals_of(obs.cards, ranking, 0)
        drawing = lowball.finals_of(obs.cards, ranking, 1, four)
        if self._read_equity(obs, drawing, in_hand, dead) > self._read_equity(
            obs, pat, in_hand, dead
        ):
            return four
        return keep

    def _pat_when_it_wins_more(
        self, obs: Observation, keep: tuple[Card, ...], in_hand: list[SeatInfo], dead: list[Card]
    ) -> tuple[Card, ...]:
        """At the last draw: stand pat on a made hand the rule would break (a jack or
        worse) when that wins more against what the others take (a pat jack beats most
        two-card draws). In the single-draw games, once everyone still in has drawn, by
        the chance to win; heads-up against a player who bets and raises anything, by the
        chips the last round's betting brings too, over the draws they may take."""
        style = self.style
        assert style is not None
        game = VARIANTS[obs.public.variant]
        ranking = game.ranking
        if not lowball.is_made(obs.cards, ranking):
            return keep
        mine_drawn = len(obs.public.seats[obs.seat].drawn)
        them = tendency(obs.profiles.get(in_hand[0].player)) if style.adapt else Tendency()
        if len(in_hand) == 1 and them.loose >= MANIAC_LOOSE:
            # Their bets come with anything: the last round is capped while we win more
            # than half, called while the pot pays, folded otherwise. A draw's misses
            # fold cheaply and its hits cap, which a pat hand's one chance does not.
            ref = lowball.reference(ranking, game.draws, lowball.loosen_of(them.pat_top))
            drawn = in_hand[0].drawn
            if len(drawn) > mine_drawn:
                buckets = [ref.values(len(drawn) - 1, drawn[-1])]
            else:  # they draw after us: each count they may take, as often as it comes
                buckets = [v for n in range(4) if (v := ref.by_draw.get((mine_drawn, n)))]
            pot, bet = obs.public.pot, max(_bet_sizes(obs))
            candidates = [keep]
            if len(keep) == 5:  # the rule stands pat: weigh breaking to the best four too
                lows = [c for c in lowball.distinct_low(obs.cards) if lowball.low(c) <= lowball.CAP]
                if len(lows) >= 4:
                    candidates.append(tuple(lows[:4]))
            else:
                candidates.append(tuple(obs.cards))

            def value(kept: tuple[Card, ...]) -> float:
                finals = lowball.finals_of(obs.cards, ranking, 1, kept)
                return sum(len(t) * lowball.last_round_value(finals, t, pot, bet) for t in buckets)

            return max(candidates, key=value)
        # In triple draw the last draw's pat hands were measured to win less this way
        # (against the calling station), so there the rule keeps its say.
        if len(keep) == 5 or game.draws > 1 or any(len(s.drawn) <= mine_drawn for s in in_hand):
            return keep
        pat = lowball.finals_of(obs.cards, ranking, 0)
        drawing = lowball.finals_of(obs.cards, ranking, 1, keep)
        if self._read_equity(obs, pat, in_hand, dead) > self._read_equity(
            obs, drawing, in_hand, dead
        ):
            return tuple(obs.cards)
        return keep

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
            and rng.random() < style.snow * self._tendencies(obs).bluffable
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

    def _range_bet(
        self,
        obs: Observation,
        equity: float,
        keep: tuple[Card, ...],
        draws_left: int,
        opps: list[tuple[int, ...]],
    ) -> str:
        """A fixed-limit player's betting from the equity against the others' ranges:
        value-bet and raise made and drawing hands by their edge over a fair share, call
        by pot odds plus a margin for the draws to come, bet first in before the draw,
        and bluff the last round where the draw counts tell a story."""
        style = self.style
        assert style is not None
        rng = self.rng
        d = obs.decision
        legal = d.legal
        aggressive = ActionKind.BET if ActionKind.BET in legal else ActionKind.RAISE
        players = 1 + len(opps)
        fair = 1 / players
        current = current_round(obs)
        voluntary = [a for p, a in current if a in _VOLUNTARY]
        first_in = not any(a in AGGRESSIVE for _, a in current)
        in_position = {p for p, _ in current} >= {
            s.player for i, s in enumerate(obs.public.seats) if i != obs.seat and not s.folded
        }
        # Triple draw multiway: the rounds to come are played in the order after the draw
        # (the dealer last), so that position is what the first round's decisions weigh.
        game = VARIANTS[obs.public.variant]
        multiway_triple = game.draws > 1 and players >= 3
        if multiway_triple and draws_left == game.draws:
            in_position = acting_after_the_draw(obs) == 0
        made = len(keep) == 5
        # Against players who never fold, bet and raise thinner for value and bluff less;
        # against players who bet anything, raise thinner (their range is wide, they pay).
        them = self._tendencies(obs)
        if d.to_call == 0 or (first_in and not voluntary and aggressive in legal):
            # Nothing owed, or only the blinds in: the opening bet or raise.
            edge = (style.bet_edge - (0.04 if in_position else 0.0)) * (1.0 - them.sticky)
            limpers = sum(1 for _, a in current if a == ActionKind.CALL)
            if multiway_triple and aggressive == ActionKind.RAISE and limpers:
                # The big blind's option: a raise into limpers is a raise, not an opening bet.
                edge = (style.raise_edge + LIMPER_RAISE_EDGE * limpers) * (1.0 - them.sticky)
            if aggressive in legal and equity >= fair + edge:
                return aggressive
            if (
                d.to_call == 0
                and aggressive in legal
                and equity >= fair - AHEAD_ON_THE_DRAW_BET
                and them.loose < SOUND_LOOSE
                and self._ahead_on_the_draw(obs, keep, draws_left, opps)
            ):
                # Published heads-up triple-draw play: the player ahead on the draw bets
                # when first in or checked to; its edge is the draws, beyond the equity.
                return aggressive
            if (
                aggressive in legal
                and self._bluffs(obs, equity, draws_left, opps, made)
                and rng.random() < them.bluffable
            ):
                return aggressive
            if d.to_call == 0:
                return ActionKind.CHECK
        pot_odds = call_price(obs, winnable_pots(obs))
        raises = sum(1 for _, a in current if a in AGGRESSIVE)
        # A player who bets anything re-raises anything too: each raise then puts in a
        # bet of theirs for one of ours, which pays as soon as we win more than half.
        loose = them.loose if them.loose >= MANIAC_LOOSE else 0.75 * them.loose
        raise_edge = style.raise_edge * (1.0 - max(loose, 0.75 * them.sticky))
        escalation = 0.05 * max(0, raises - 1) * (1.0 - them.loose)
        if (
            ActionKind.RAISE in legal
            and equity >= fair + raise_edge + escalation
            and not (them.loose < SOUND_LOOSE and self._too_rough_to_raise(obs, keep, draws_left))
        ):
            return ActionKind.RAISE
        # The margin pays for later bets made with a hand that is often behind: several
        # players still in pay them too, and a loose player's bets come with any hand.
        margin = CALL_MARGIN[min(draws_left, 3)] * (1.0 - them.loose) / len(opps)
        if multiway_triple:
            # Measured (docs/benchmarks.md): at six seats the margin folded hands whose
            # calls won, as every player still in pays the later bets too; before the
            # first draw one raise is called a little below the pot odds, more by them.
            margin = -0.03 if draws_left == 3 and raises <= 1 else 0.0
        if multiway_triple and draws_left == game.draws and raises and acting_after_the_draw(obs):
            # Measured (docs/benchmarks.md, --diagnose): a blind calling a raise multiway
            # acts before a player still in after every draw, for three rounds: it pays
            # their bets when it misses and is checked behind when it gets there, so its
            # equity comes in short of a showdown's. The blinds' calls lost most there.
            margin = OUT_OF_POSITION_MARGIN
        if draws_left == 1 and not made and len(keep) == 4:
            margin = -0.02  # a good one-card draw late: the big bets it wins pay for it
        behind = all(o and 5 - len(keep) > o[-1] for o in opps)
        if (
            game.draws > 1
            and draws_left == 2
            and not made
            and len(keep) <= 3
            and behind
            and not self._pays_to_the_big_bets(obs, equity, keep, opps)
        ):
            # Two cards or more to draw against players who drew fewer, before the second
            # draw: the next round's bet is a big one, which the draw folds when it misses.
            return ActionKind.FOLD
        if equity >= pot_odds + margin:
            return ActionKind.CALL
        hero = 0.04 * (1.0 - them.honest)  # … against a player who bluffs at all
        if draws_left == 0 and players == 2 and rng.random() < hero and pot_odds < 0.2:
            return ActionKind.CALL  # a rare hero call keeps bluffs against us from being free
        return ActionKind.FOLD

    def _ahead_on_the_draw(
        self, obs: Observation, keep: tuple[Card, ...], draws_left: int, opps: list[tuple[int, ...]]
    ) -> bool:
        """Triple draw heads-up, between two draws: whether this seat is ahead on the draw,
        as published triple-draw strategy counts it: it will take fewer cards at the next
        draw than the opponent took at the last one, or it stands pat on an eight or better."""
        game = VARIANTS[obs.public.variant]
        if game.draws == 1 or not 0 < draws_left < game.draws or len(opps) != 1 or not opps[0]:
            return False
        need = 5 - len(keep)
        return need < opps[0][-1] or need == 0 and lowball.top(keep) <= 8

    def _too_rough_to_raise(
        self, obs: Observation, keep: tuple[Card, ...], draws_left: int
    ) -> bool:
        """Triple draw heads-up after the last draw, facing a bet or a raise: published play
        raises it with a six or better only and calls with a seven or an eight (a sound
        bettor's range after three draws is sevens and eights and better, so a raise is
        called by the hands that beat it and re-raised by the sixes). Priced by equity
        alone, hard raised eights and sevens: at six seats its heads-up raises there lost
        0.7 big bets a hand where td-pro's won 3.7 (--diagnose)."""
        game = VARIANTS[obs.public.variant]
        in_hand = sum(1 for s in obs.public.seats if not s.folded)
        if game.draws == 1 or draws_left or in_hand != 2:
            return False
        return lowball.top(keep) > 6

    def _pays_to_the_big_bets(
        self,
        obs: Observation,
        equity: float,
        keep: tuple[Card, ...],
        opps: list[tuple[int, ...]],
    ) -> bool:
        """Triple draw, a draw facing a bet before the second draw: whether the call pays
        once the next draw is dealt. Over sampled next draws, each resulting hand goes on
        to the big-bet round only when its equity there pays a big bet's pot odds (else it
        folds, and the call now bought nothing); one that goes on wins its share of the
        pot with a big bet from each player still in and pays one. The equity of each
        sampled hand is the reference's, scaled to the range read of now (``equity``)."""
        game = VARIANTS[obs.public.variant]
        ranking = game.ranking
        cost = obs.decision.costs.get(ActionKind.CALL, 0)
        pot = obs.public.pot + cost
        big = max(_bet_sizes(obs))
        players = 1 + len(opps)
        now = lowball.table_equity(
            ranking, game.draws, lowball.finals_of(obs.cards, ranking, 2, keep), opps
        )
        scale = equity / now if now > 0 else 1.0
        later_pot = pot + players * big
        threshold = big / later_pot + CALL_MARGIN[1]
        final_pot = later_pot + players * big  # a hand that goes on sees the last round too
        seen = {*obs.cards, *own_discards(obs)}
        unseen = [c for c in FULL_DECK if c not in seen]
        need = 5 - len(keep)
        # The same draws for the same spot (seeded by it): the decision does not flip
        # with sampling noise, and the injected random stays for the others.
        draws = random.Random(zlib.crc32(repr((keep, sorted(seen), opps)).encode()))
        gained = 0.0
        for _ in range(NEXT_DRAW_SAMPLES):
            hand = (*keep, *draws.sample(unseen, need))
            mine = lowball.finals_of(hand, ranking, 1)
            share = min(1.0, scale * lowball.table_equity(ranking, game.draws, mine, opps))
            if share >= threshold:
                gained += share * final_pot - 2 * big
        return gained / NEXT_DRAW_SAMPLES >= cost

    def _bluffs(
        self,
        obs: Observation,
        equity: float,
        draws_left: int,
        opps: list[tuple[int, ...]],
        made: bool,
    ) -> bool:
        """Whether to bet a weak hand: steal first in before a single draw, keep telling
        a pat story, or bet the last round when the others drew more than we did."""
        style = self.style
        assert style is not None
        rng = self.rng
        game = VARIANTS[obs.public.variant]
        if draws_left == game.draws and game.draws == 1:
            return rng.random() < style.steal / len(opps)
        if draws_left:
            return False
        mine = obs.public.seats[obs.seat].drawn
        if mine[-1:] == (0,) and equity < 0.5:
            return rng.random() < 0.85  # snowed: the pat story needs a bet
        if len(opps) == 1 and opps[0][-1:] and mine[-1:] and opps[0][-1] > mine[-1]:
            return rng.random() < 2.5 * style.bluff
        return rng.random() < (style.bluff if len(opps) == 1 else style.bluff / 4)

    # ----- Abyssinia -------------------------------------------------------------

    def _abyssinia(self, obs: Observation) -> Action:
        style = self.style
        assert style is not None
        rng = self.rng
        table = abyssinia.read_table(obs)
        players = 1 + len(table.others)
        budget = min(style.samples, ABYSSINIA_SAMPLES) or 120
        if obs.decision.phase == Phase.BUY:
            options = [o.source for o in obs.decision.market]
            if options == [BuySource.BLIND]:  # all-in: the stub's top card, free (RULES.md §8.4)
                return Action(obs.player, ActionKind.BUY, source=BuySource.BLIND)
            if style.mistakes and rng.random() < style.mistakes:
                return Action(obs.player, ActionKind.BUY, source=rng.choice(options))
            samples = max(12, 2 * budget // players)
            bet = obs.public.stakes.bet if obs.public.stakes else 1
            values = abyssinia.option_values(table, options, samples, rng, 0.8 * bet)
            best = max(options, key=lambda o: values[o])
            return Action(obs.player, ActionKind.BUY, source=best)
        if table.known:
            # Every card is open: the share is certain and the others see it too, so a
            # bet gains only with more than half, and a call needs only the pot odds.
            pots = winnable_pots(obs)
            share = _share_per_pot(obs, table, pots, 1, rng)
            winnable = sum(p.amount for p in pots)
            return Action(obs.player, abyssinia.known_result_move(obs, share, winnable))
        # hard bets and raises thinner, so its share must be finer: at eight seats 40
        # samples left a standard error of about 0.05, more than its edge.
        floor = 3 * budget // 4 if style.samples else 20
        samples = max(floor, 2 * budget // players)
        if self.kind == "hard":  # its share pot by pot, against those contesting each
            equity = _share_per_pot(obs, table, winnable_pots(obs), samples, rng)
        else:
            equity = abyssinia.share_now(table, samples, rng)
        # Bluff only while something is hidden (the stub's cards still to come).
        late = table.bets_left == 2
        chance = style.bluff / 2 if players == 2 else 0.0
        bluff = late and rng.random() < chance * self._tendencies(obs).bluffable
        # Implied odds: a player who bets anything goes on betting in the rounds to come,
        # so a call wins more than this round's pot when the hand comes in.
        # Against players who call every bet, any share above a fair one gains from a bet:
        # hard bets it (thin), normal keeps its edge (the levels' order, target 4.3).
        move = self._bet(obs, equity, bluff, implied=style.implied, thin=style.thin)
        return Action(obs.player, move)

    def _tendencies(self, obs: Observation) -> Tendency:
        """The tendencies of the others still in, as one: the least bluffable and the
        loosest of them set it (a bluff must get through everyone; one maniac's bets
        say little). Sound for every player when the style does not adapt."""
        style = self.style
        assert style is not None
        if not style.adapt:
            return Tendency()
        ts = [
            tendency(obs.profiles.get(s.player))
            for i, s in enumerate(obs.public.seats)
            if i != obs.seat and not s.folded
        ]
        if not ts:
            return Tendency()
        return Tendency(
            loose=max(t.loose for t in ts),
            sticky=max(t.sticky for t in ts),
            passive=min(t.passive for t in ts),
            honest=min(t.honest for t in ts),
        )

    # ----- betting -------------------------------------------------------------------

    def _bet(
        self, obs: Observation, equity: float, bluff: bool, implied: float = 0.0, thin: float = 0.0
    ) -> str:
        """A betting action from the equity, discounted for each bet or raise by others
        this round; ``implied`` and ``thin``: the shares of the others' looseness off a
        call's pot odds and of their stickiness off a bet's edge."""
        style = self.style
        assert style is not None
        d = obs.decision
        legal = d.legal
        aggressive = ActionKind.BET if ActionKind.BET in legal else ActionKind.RAISE
        players = sum(1 for s in obs.public.seats if not s.folded)
        fair = 1 / players
        them = self._tendencies(obs)
        for raiser in raisers_by_others(obs):
            # A bet or raise costs equity, less so from a player who bets anything.
            loose = tendency(obs.profiles.get(raiser)).loose if style.adapt else 0.0
            equity *= style.respect + (1.0 - style.respect) * loose
        if style.mistakes and self.rng.random() < style.mistakes / 2:
            # The passive player's default.
            return ActionKind.CALL if ActionKind.CALL in legal else ActionKind.CHECK
        if d.to_call == 0:
            edge = style.bet_edge * (1.0 - thin * them.sticky)
            if aggressive in legal and (equity >= fair + edge or bluff):
                return aggressive
            return ActionKind.CHECK
        pot_odds = call_price(obs, winnable_pots(obs))
        raise_edge = style.raise_edge * (1.0 - 0.75 * max(them.loose, them.sticky))
        if ActionKind.RAISE in legal and equity >= fair + raise_edge:
            return ActionKind.RAISE
        if equity >= pot_odds * style.call_factor * (1.0 - implied * them.loose):
            return ActionKind.CALL
        return ActionKind.FOLD


def _bet_sizes(obs: Observation) -> tuple[int, ...]:
    """The hand's bet size of each betting round (its stakes; the cash table's if unknown)."""
    variant = obs.public.variant
    stakes = obs.public.stakes or Stakes.cash(variant)
    return stakes.bet_sizes(variant)


def _share_per_pot(
    obs: Observation, table: abyssinia.Table, pots: list[PotShare], samples: int, rng: random.Random
) -> float:
    """Abyssinia: the expected share over the chips this seat can win, pot by pot against
    the open cards of those contesting each (one pot against everyone: ``share_now``)."""
    others = [s for i, s in enumerate(obs.public.seats) if i != obs.seat and not s.folded]
    total = sum(p.amount for p in pots)
    if not total or (len(pots) == 1 and len(pots[0].opponents) == len(others)):
        return abyssinia.share_now(table, samples, rng)
    cards = {s.player: s.open_cards for s in others}
    weighted = 0.0
    for pot in pots:
        if not pot.opponents:
            weighted += pot.amount  # nobody else may win it: it comes back
            continue
        mine = replace(table, others=tuple(cards[name] for name in pot.opponents))
        weighted += pot.amount * abyssinia.share_now(mine, samples, rng)
    return weighted / total
