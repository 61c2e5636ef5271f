"""Abyssinia knowledge: what a bought card is worth, the chance to win each half, and the
bet when every card is open.

Every card is open except the stub's, so a seat's equity is a simulation over the
cards nobody has seen: each player still in completes their five from them, and
the seat's share of the pot is counted (half for high, half for low, ties split).
The market's two cards and the blind card are compared on the same samples
(common random numbers), so the choice is not lost in sampling noise.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from bot.engine.cards import FULL_DECK, Card, rank_of
from bot.engine.rankings import a5_value, high_value
from bot.engine.record import ActionKind, BuySource
from bot.engine.stakes import Stakes
from bot.engine.variants import Phase, buy_price

from .observation import Observation


@dataclass(frozen=True)
class Table:
    """The open cards of a hand, seen from one seat."""

    mine: tuple[Card, ...]
    others: tuple[tuple[Card, ...], ...]  # open cards of each opponent still in
    unseen: tuple[Card, ...]  # cards in nobody's hand and not in the market
    market: dict[str, Card]  # left/right card on offer
    pot: int
    bets_left: int  # betting rounds still to come, this one included
    prices: tuple[int, int, int] = (2, 1, 4)  # the hand's stakes: 2–5, 6–K, ace

    @property
    def known(self) -> bool:
        """Every hand still in is complete and open: nothing is hidden any more."""
        return len(self.mine) == 5 and all(len(o) == 5 for o in self.others)


def read_table(obs: Observation) -> Table:
    pub = obs.public
    me = obs.seat
    seen = {c for s in pub.seats for c in s.open_cards}
    market: dict[str, Card] = {o.source: o.card for o in pub.market if o.card is not None}
    seen.update(market.values())
    others = tuple(s.open_cards for i, s in enumerate(pub.seats) if i != me and not s.folded)
    # One buy precedes each of the five betting rounds.
    bought = len(obs.cards)
    bets_left = 5 - bought + (1 if pub.phase == Phase.BET else 0)
    return Table(
        tuple(obs.cards),
        others,
        tuple(c for c in FULL_DECK if c not in seen),
        market,
        pub.pot,
        bets_left,
        (pub.stakes.prices if pub.stakes else None) or (2, 1, 4),
    )


_PRICE = {c: buy_price(rank_of(c)) for c in FULL_DECK}


@lru_cache(maxsize=32)
def _prices(prices: tuple[int, int, int]) -> dict[Card, int]:
    """Each card's price at these stakes (the cash table's: ``_PRICE``)."""
    stakes = Stakes(prices=prices)
    return {c: stakes.price(rank_of(c)) for c in FULL_DECK}


def _share_of(mine: list[Card], others: list[tuple[int, int]]) -> float:
    """Our share of the pot at showdown against the others' (high, low) values."""
    h = high_value(mine)
    lo = a5_value(mine)
    hi_best = lo_best = True
    hi_ties = lo_ties = 1
    for oh, ol in others:
        if oh > h:
            hi_best = False
        elif oh == h:
            hi_ties += 1
        if ol > lo:
            lo_best = False
        elif ol == lo:
            lo_ties += 1
    return (hi_best / hi_ties + lo_best / lo_ties) / 2


def _share(mine: list[Card], others: list[list[Card]]) -> float:
    """Our share of the pot at showdown: half for high, half for low, ties split."""
    h = high_value(mine)
    lo = a5_value(mine)
    hi_best = lo_best = True
    hi_ties = lo_ties = 1
    for cards in others:
        oh = high_value(cards)
        if oh > h:
            hi_best = False
        elif oh == h:
            hi_ties += 1
        ol = a5_value(cards)
        if ol > lo:
            lo_best = False
        elif ol == lo:
            lo_ties += 1
    return (hi_best / hi_ties + lo_best / lo_ties) / 2


def _partial_shuffle(pool: list[Card], k: int, rng: random.Random) -> None:
    """Make the first ``k`` cards of ``pool`` a uniform random sample of it, in place."""
    n = len(pool)
    draw = rng.random
    for i in range(min(k, n)):
        j = i + int(draw() * (n - i))
        pool[i], pool[j] = pool[j], pool[i]


def option_values(
    table: Table, options: Sequence[str], samples: int, rng: random.Random, bet_per_round: float
) -> dict[str, float]:
    """Expected chips back minus chips paid from now on, for each buying option
    (``left``, ``right``, ``blind``, or ``none`` when not buying now)."""
    price = _PRICE if table.prices == (2, 1, 4) else _prices(table.prices)
    pool = list(table.unseen)
    n_players = 1 + len(table.others)
    bets = bet_per_round * table.bets_left * n_players
    totals = dict.fromkeys(options, 0.0)
    # The blind card runs through the unseen cards in turn (stratified), so its value is
    # the expectation over them rather than the luck of a few draws.
    blinds = list(table.unseen)
    rng.shuffle(blinds)
    need_all = 5 - len(table.mine) + sum(5 - len(cards) for cards in table.others)
    for i in range(samples):
        _partial_shuffle(pool, need_all + 1, rng)
        blind = blinds[i % len(blinds)]
        rest = [c for c in pool[: need_all + 1] if c != blind][:need_all]
        # The others' completions come first, so they are the same for every option.
        pos = 0
        others_paid = 0
        values = []
        for cards in table.others:
            need = 5 - len(cards)
            drawn = rest[pos : pos + need]
            pos += need
            others_paid += sum(price[c] for c in drawn)
            full = [*cards, *drawn]
            values.append((high_value(full), a5_value(full)))
        for option in options:
            if option == "none":
                first: list[Card] = []
            else:
                first = [blind if option == BuySource.BLIND else table.market[option]]
            new_cards = [*first, *rest[pos : pos + 5 - len(table.mine) - len(first)]]
            paid = sum(price[c] for c in new_cards)
            pot = table.pot + paid + others_paid + bets
            totals[option] += _share_of([*table.mine, *new_cards], values) * pot - paid
    return {k: v / samples for k, v in totals.items()}


def share_now(table: Table, samples: int, rng: random.Random) -> float:
    """Our expected share of the pot if every hand still in is completed at random."""
    pool = list(table.unseen)
    need_all = 5 - len(table.mine) + sum(5 - len(cards) for cards in table.others)
    total = 0.0
    for _ in range(samples):
        _partial_shuffle(pool, need_all, rng)
        need = 5 - len(table.mine)
        mine = [*table.mine, *pool[:need]]
        pos = need
        others = []
        for cards in table.others:
            need = 5 - len(cards)
            others.append([*cards, *pool[pos : pos + need]])
            pos += need
        total += _share(mine, others)
    return total / samples


def known_result_move(obs: Observation, share: float, winnable: int | None = None) -> str:
    """Betting when every card is open and ``share`` of the pot is certain: bet or raise
    only with more than half (a split or worse gains nothing from a bet), call by the
    pot odds (``winnable``: the chips a call can win, its cost included; the whole pot
    by default), else check or fold."""
    d = obs.decision
    if share > 0.5:
        for aggressive in (ActionKind.BET, ActionKind.RAISE):
            if aggressive in d.legal:
                return aggressive
    if d.to_call == 0:
        return ActionKind.CHECK
    cost = d.costs.get(ActionKind.CALL, d.to_call)  # a short stack calls all-in for less
    total = obs.public.pot + d.to_call if winnable is None else winnable
    return ActionKind.CALL if share > 0 and share * total >= cost else ActionKind.FOLD
