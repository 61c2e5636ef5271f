"""One hand of any of the four tables as an explicit state machine.

A hand starts from its record header (seats, dealer, deck, reshuffles, stakes) and
moves only through ``apply(action)``. Every action is checked completely
before anything changes, so a refused action leaves the hand exactly as it was.

A cash hand never runs short (the table minimum sees to it), so stacks are tracked only
in a tournament hand (``header.allin``, RULES.md §8): there forced bets, bets and
purchases are capped by the stack, all-in players stop betting, and the chips are
divided into a main pot and side pots at the showdown.
"""

from __future__ import annotations

import random
from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache
from typing import NoReturn

from .cards import FULL_DECK, Card, format_card, format_cards, rank_of
from .rankings import VALUE, Ranking, describe
from .record import BUY_SOURCES, Action, ActionKind, BuySource, HandRecord, RecordError, new_header
from .stakes import Stakes
from .variants import MAX_BETS_PER_ROUND, VARIANTS, Phase, Variant

SLOTS = (BuySource.LEFT, BuySource.RIGHT)

# The members as module globals: the betting turns compare and build these on every
# action, and a global is cheaper to read than ``ActionKind.CALL`` (a class attribute).
CHECK, BET, CALL = ActionKind.CHECK, ActionKind.BET, ActionKind.CALL
RAISE, FOLD = ActionKind.RAISE, ActionKind.FOLD
DISCARD, BUY, BLIND = ActionKind.DISCARD, ActionKind.BUY, BuySource.BLIND
BETTING, DRAW, BUYING = Phase.BET, Phase.DRAW, Phase.BUY
DEAL, SHOWDOWN, COMPLETE = Phase.DEAL, Phase.SHOWDOWN, Phase.COMPLETE
_HIGH, _LOW = Ranking.HIGH, Ranking.A5  # the rankings of Abyssinia's high and low halves
# What a betting turn may do, by situation (``_legal_from``, ``_bet_turn``).
_CHECK_ONLY: tuple[ActionKind, ...] = (CHECK,)
_CHECK_BET: tuple[ActionKind, ...] = (CHECK, BET)
_CHECK_RAISE: tuple[ActionKind, ...] = (CHECK, RAISE)
_CALL_FOLD: tuple[ActionKind, ...] = (CALL, FOLD)
_CALL_RAISE_FOLD: tuple[ActionKind, ...] = (CALL, RAISE, FOLD)
_DISCARD_ONLY: tuple[ActionKind, ...] = (DISCARD,)
_BUY_ONLY: tuple[ActionKind, ...] = (BUY,)
_AGGRESSIVE = frozenset((BET, RAISE))
_FREE = frozenset((CHECK, FOLD))  # the betting actions that put no chips in


class Refusal(StrEnum):
    """Why the hand refused an action (``IllegalAction.code``)."""

    ILLEGAL = "illegal"  # any other reason: the message says it
    HAND_COMPLETE = "hand_complete"
    NOT_IN_HAND = "not_in_hand"
    NOT_YOUR_TURN = "not_your_turn"
    WRONG_PHASE = "wrong_phase"  # not an action of this street
    NOTHING_OWED = "nothing_owed"  # a fold when nothing is owed
    OWES = "owes"  # a check when a bet is owed
    NO_BET = "no_bet"  # a call or raise with no bet to answer
    BET_EXISTS = "bet_exists"  # a bet when there is one already
    CAPPED = "capped"  # a raise past the cap (one bet and three raises)
    SHORT = "short"  # RULES.md §8.3: cannot cover more than the call
    NOT_REOPENED = "not_reopened"  # only an incomplete all-in raise since this player acted
    OTHERS_ALL_IN = "others_all_in"  # nobody could answer a bet
    NOT_HELD = "not_held"  # a discard of a card not held
    NAMED_TWICE = "named_twice"  # a discard naming a card twice
    BAD_SOURCE = "bad_source"  # a buy from a place not on offer
    ALL_IN_BUYS_BLIND = "all_in_buys_blind"  # RULES.md §8.4


# Why a tournament player may not bet or raise (RULES.md §8.3), by refusal code.
_BLOCKS = {
    Refusal.SHORT: "you cannot cover more than the call: call all-in or fold",
    Refusal.NOT_REOPENED: "only an incomplete all-in raise came since you acted: call or fold",
    Refusal.OTHERS_ALL_IN: "every other player still in is all-in, so nobody could answer",
}


class IllegalAction(ValueError):
    """An action the rules do not allow now.

    The message (for the replay CLI and logs) says why and what is legal; ``code`` and
    ``params`` say the same as data, for callers that word it themselves.
    """

    def __init__(self, message: str, code: Refusal = Refusal.ILLEGAL, **params: object) -> None:
        super().__init__(message)
        self.code = code
        self.params = params


@dataclass(frozen=True)
class MarketOffer:
    source: BuySource
    card: Card | None  # None for the blind (unknown) card
    price: int | None  # None for the blind card: charged after it is turned


@dataclass(frozen=True)
class Decision:
    """What the player to act may do now."""

    player: str
    seat: int
    phase: Phase  # BET, DRAW or BUY
    legal: tuple[ActionKind, ...]
    to_call: int  # chips owed to stay in (betting)
    bet_size: int  # the round's fixed bet size (betting)
    raises_left: int
    costs: dict[str, int]  # chips each legal betting action puts in
    discardable: tuple[Card, ...]  # draw: the cards the player may throw
    market: tuple[MarketOffer, ...]  # buy: the two market cards and the blind


class AwardLabel(StrEnum):
    """What an award pays: a whole pot, or Abyssinia's high or low half of one."""

    POT = "pot"
    HIGH = "high"
    LOW = "low"


POT, HIGH_HALF, LOW_HALF = AwardLabel.POT, AwardLabel.HIGH, AwardLabel.LOW  # as above


@dataclass(frozen=True)
class Award:
    """One pot or half paid out: who won it, with what, and how much each got."""

    label: AwardLabel
    amount: int
    shares: dict[str, int]
    hand_names: dict[str, str]  # winners' hand names (empty when uncontested)
    pot: int = 0  # which pot it pays: 0 the main pot, 1 the first side pot, …


@dataclass(frozen=True)
class Pot:
    """One pot of RULES.md §8.5: its chips, who may win it, and (once complete) who did.

    A cash hand, or a tournament hand with nobody all-in, has exactly one pot. In
    Abyssinia ``high`` and ``low`` name each half's winners and ``winners`` is both, in
    seat order; in the other games ``high`` and ``low`` stay empty.
    """

    amount: int
    players: tuple[str, ...]  # eligible, in seat order
    winners: tuple[str, ...] = ()
    high: tuple[str, ...] = ()
    low: tuple[str, ...] = ()


# describe() by (ranking, value): equal values are the same hand, so the same name. Naming
# costs more than a whole betting round, and there are only ~7,500 values per ranking.
_NAMES: dict[tuple[str, int], str] = {}


def _hand_name(ranking: str, value: int, cards: list[Card]) -> str:
    name = _NAMES.get((ranking, value))
    if name is None:
        name = _NAMES[ranking, value] = describe(ranking, cards)
    return name


@lru_cache(maxsize=64)
def _price_table(prices: tuple[int, int, int] | None) -> dict[Card, int]:
    """Each card's price at these stakes (the cash table's when None), for every hand."""
    stakes = Stakes(prices=prices)
    return {card: stakes.price(rank_of(card)) for card in FULL_DECK}


class Hand:
    """The state of one hand; build it with ``Hand.start`` or ``Hand.replay``."""

    def __init__(self, header: HandRecord, rng: random.Random | None = None) -> None:
        variant = VARIANTS[header.variant]
        self.variant: Variant = variant
        self.header = header
        self.stakes: Stakes = header.hand_stakes
        self.bet_sizes = self.stakes.bet_sizes(variant.id)
        self._prices = _price_table(self.stakes.prices)  # Abyssinia: each card's price
        self.allin = header.allin  # a tournament hand: stacks can run out (RULES.md §8)
        self.stack0 = [s.stack for s in header.seats]
        self.players: tuple[str, ...] = tuple(s.player for s in header.seats)
        self.n = len(self.players)
        self.dealer = header.dealer
        self.rng = rng  # only for live tables: shuffles a stub the record does not hold yet
        self.actions: list[Action] = []
        self.reshuffles: list[list[Card]] = [list(r) for r in header.reshuffles]
        self.reshuffles_used = 0
        self.stub: list[Card] = list(header.deck)
        self.stub_pos = 0
        self.dead: list[Card] = []
        self.holdings: list[list[Card]] = [[] for _ in range(self.n)]
        self.folded = [False] * self.n
        self.in_seats = tuple(range(self.n))  # seats not folded, in seat order (updated on fold)
        self.contributed = [0] * self.n
        self.drawn: list[list[int]] = [[] for _ in range(self.n)]  # cards taken per draw
        self.market: list[Card | None] = [None, None]
        self.street = -1
        self.bet_round = -1
        self.phase = DEAL
        self.to_act: int | None = None
        self.queue: list[int] = []  # draw / buy order
        self.round_bets = [0] * self.n
        self.current_bet = 0  # the level: the most anyone must have put in this round
        self.full_bet = 0  # the level set by the last full bet or raise (RULES.md §8.3)
        self.bet_count = 0  # full bets and raises this round (the big blind counts as one)
        self.acted_at: list[int | None] = [None] * self.n  # the level at each seat's last action
        self.is_all_in = [False] * self.n
        self.with_chips = self.n  # players still in who are not all-in
        self._owed_now = 0  # what the player to act owes (worked out with ``_legal``)
        self.pending: set[int] = set()
        self.first_bettor: int | None = None  # of the first betting round
        # What the player to act may do, worked out once when the turn passes (agents
        # and ``apply`` both read it) and only then, so a refused action leaves it as is.
        self._legal: tuple[ActionKind, ...] = ()
        self.awards: list[Award] = []
        self.payouts: list[int] | None = None
        self.showdown = False
        self._start()

    # ----- construction -------------------------------------------------

    @classmethod
    def start(
        cls,
        variant: str,
        seats: Sequence[tuple[str, int]],
        dealer: int,
        deck: Sequence[Card],
        rng: random.Random | None = None,
        *,
        stakes: Stakes | None = None,
        allin: bool = False,
    ) -> Hand:
        """A new live hand; the header is validated exactly as a record's would be."""
        return cls(new_header(variant, seats, dealer, deck, stakes=stakes, allin=allin), rng)

    @classmethod
    def replay(cls, record: HandRecord, rng: random.Random | None = None) -> Hand:
        """Apply a record's actions one by one; raise RecordError at the first bad one."""
        hand = cls(record, rng)
        for index, action in enumerate(record.actions):
            try:
                hand.apply(action)
            except IllegalAction as exc:
                raise RecordError(index, str(exc)) from None
        return hand

    def _start(self) -> None:
        ante = self.stakes.ante
        self.contributed = [ante] * self.n
        if self.allin:  # a stack at or below the ante posts all of it and is all-in
            self.contributed = [min(ante, stack) for stack in self.stack0]
            self.is_all_in = [stack <= ante for stack in self.stack0]
            self.with_chips = self.is_all_in.count(False)
        if self.variant.streets[0] != BUYING:
            # Five cards each, one at a time clockwise from the dealer's left: the
            # i-th seat in that order gets stub cards i, i + n, i + 2n, …
            order = self._clockwise(self.dealer + 1)
            n = len(order)
            for i, seat in enumerate(order):
                self.holdings[seat] = self.stub[i : 5 * n : n]
            self.stub_pos = 5 * n
        else:
            self.market = [self._take(), self._take()]
        self._next_street()

    # ----- queries ------------------------------------------------------

    @property
    def complete(self) -> bool:
        return self.payouts is not None

    @property
    def pot(self) -> int:
        return sum(self.contributed)

    @property
    def active(self) -> list[int]:
        return list(self.in_seats)

    @property
    def all_in(self) -> tuple[str, ...]:
        """The players who are all-in, in seat order (never anyone in a cash hand)."""
        return tuple(p for p, flag in zip(self.players, self.is_all_in, strict=True) if flag)

    def chips_left(self, seat: int) -> int:
        """What ``seat`` has behind: its header stack less everything it has put in."""
        return self.stack0[seat] - self.contributed[seat]

    def legal_actions(self) -> tuple[ActionKind, ...]:
        """The action names the player to act may use now (``Decision.legal``); () when complete."""
        return self._legal

    def buy_sources(self) -> tuple[BuySource, ...]:
        """Buying round: where the player to act may buy from (``Decision.market`` sources)."""
        if self.to_act is not None and self.is_all_in[self.to_act]:
            return (BLIND,)  # an all-in player gets the stub's top card, free (§8.4)
        if None not in self.market:
            return BUY_SOURCES  # always, in practice: the stub never runs out in Abyssinia
        market = zip(SLOTS, self.market, strict=True)
        return (*(slot for slot, card in market if card is not None), BLIND)

    def seat_of(self, player: str) -> int:
        return self.players.index(player)

    def record(self) -> HandRecord:
        """The hand's record so far: header, the reshuffles drawn, the actions applied."""
        h = self.header
        return HandRecord(
            h.variant,
            list(h.seats),
            h.dealer,
            list(h.deck),
            [list(r) for r in self.reshuffles],
            list(self.actions),
            stakes=h.stakes,
            allin=h.allin,
        )

    def net(self) -> dict[str, int]:
        paid = self.payouts or [0] * self.n
        return {p: paid[s] - self.contributed[s] for s, p in enumerate(self.players)}

    def stacks(self) -> dict[str, int]:
        """Each player's stack now: the header stack plus net so far."""
        net = self.net()
        return {s.player: s.stack + net[s.player] for s in self.header.seats}

    def decision(self) -> Decision | None:
        """Whose turn it is and what they may do; None once the hand is complete."""
        seat = self.to_act
        if seat is None:
            return None
        player = self.players[seat]
        if self.phase == DRAW:
            hand = tuple(self.holdings[seat])
            return Decision(player, seat, DRAW, _DISCARD_ONLY, 0, 0, 0, {}, hand, ())
        if self.phase == BUYING:
            offers = self._offers()
            if self.is_all_in[seat]:
                offers = offers[-1:]  # only the blind card, free (§8.4)
            return Decision(player, seat, BUYING, _BUY_ONLY, 0, 0, 0, {}, (), offers)
        return self._bet_decision(seat)

    def _bet_decision(self, seat: int) -> Decision:
        size = self.bet_sizes[self.bet_round]
        owed = self._owed(seat)
        raises_left = MAX_BETS_PER_ROUND - self.bet_count
        legal = self._bet_legal(seat)
        costs: dict[str, int] = {kind: self._bet_cost(seat, kind) for kind in legal}
        player = self.players[seat]
        return Decision(player, seat, BETTING, legal, owed, size, raises_left, costs, (), ())

    def _owed(self, seat: int) -> int:
        """The amount to call (RULES.md §8.3): the level less this round's chips, except that
        the only player still in with chips calls at most what another player still in has
        put in this round."""
        target = self.current_bet
        if self.allin and not self._others_have_chips(seat):
            target = min(target, max(self.round_bets[s] for s in self.in_seats if s != seat))
        return max(0, target - self.round_bets[seat])

    def _others_have_chips(self, seat: int) -> bool:
        """Whether another player still in has chips (``seat`` is still in)."""
        return self.with_chips > (0 if self.is_all_in[seat] else 1)

    def _may_raise(self, seat: int, owed: int) -> bool:
        """Whether ``seat`` may bet or raise now (RULES.md §3 and §8.3)."""
        if self.bet_count >= MAX_BETS_PER_ROUND:
            return False
        if not self.allin:
            return True
        return self._raise_block(seat, owed) is None

    def _options(self, seat: int) -> tuple[int, bool]:
        """(``_owed``, ``_may_raise``) of a tournament player with chips, worked out in one
        pass: this runs at every betting turn of a tournament hand."""
        bets = self.round_bets
        level = self.current_bet
        if self.with_chips <= 1:  # the only player still in with chips: no raise
            top = max(bets[s] for s in self.in_seats if s != seat)
            return max(0, min(level, top) - bets[seat]), False
        owed = level - bets[seat]
        if self.bet_count >= MAX_BETS_PER_ROUND or self.chips_left(seat) <= owed:
            return owed, False
        last = self.acted_at[seat]
        if last is not None and 2 * (level - last) < self.bet_sizes[self.bet_round]:
            return owed, False
        return owed, True

    def _raise_block(self, seat: int, owed: int) -> Refusal | None:
        """Why a tournament player may not bet or raise now, as a refusal code, or None."""
        if self.bet_count >= MAX_BETS_PER_ROUND:
            return Refusal.CAPPED
        if not self._others_have_chips(seat):
            return Refusal.OTHERS_ALL_IN  # nobody could answer
        if self.chips_left(seat) <= owed:
            return Refusal.SHORT  # cannot cover more than the call
        last = self.acted_at[seat]
        if last is not None and 2 * (self.current_bet - last) < self.bet_sizes[self.bet_round]:
            return Refusal.NOT_REOPENED  # only incomplete all-ins since this player acted
        return None

    def _bet_legal(self, seat: int) -> tuple[ActionKind, ...]:
        """The betting actions legal for ``seat`` now, in display order (RULES.md §3, §8.3)."""
        owed = self._owed(seat)
        return self._legal_from(owed, self._may_raise(seat, owed))

    def _legal_from(self, owed: int, can_raise: bool) -> tuple[ActionKind, ...]:
        if owed == 0:  # nothing owed: check, or bet (raise: the big blind's option)
            if not can_raise:
                return _CHECK_ONLY
            return _CHECK_BET if self.current_bet == 0 else _CHECK_RAISE
        return _CALL_RAISE_FOLD if can_raise else _CALL_FOLD

    def _bet_cost(self, seat: int, kind: str) -> int:
        """The chips a legal betting action of ``seat`` puts in now."""
        if kind in _FREE:
            return 0
        if kind == CALL:
            cost = self._owed_now if seat == self.to_act else self._owed(seat)
        else:  # a bet or raise goes one increment above the full level
            cost = self.full_bet + self.bet_sizes[self.bet_round] - self.round_bets[seat]
        if self.allin:
            return min(cost, self.chips_left(seat))  # short: all-in with the whole stack
        return cost

    def _offers(self) -> tuple[MarketOffer, ...]:
        price = self._prices
        offers = [
            MarketOffer(slot, card, price[card])
            for slot, card in zip(SLOTS, self.market, strict=True)
            if card is not None
        ]
        return (*offers, MarketOffer(BLIND, None, None))

    def default_action(self) -> Action | None:
        """A timed-out player checks or folds, stands pat, or buys the cheaper market card."""
        d = self.decision()
        if d is None:
            return None
        if d.phase == DRAW:
            return Action(d.player, DISCARD, cards=())
        if d.phase == BUYING:
            priced = [o for o in d.market if o.price is not None]
            if not priced:  # an all-in player: the free blind card
                return Action(d.player, BUY, source=BLIND)
            cheapest = min(priced, key=lambda o: o.price or 0)  # min keeps the left on a tie
            return Action(d.player, BUY, source=cheapest.source)
        return Action(d.player, CHECK if d.to_call == 0 else FOLD)

    # ----- transitions --------------------------------------------------

    def apply(self, action: Action) -> None:
        """Apply one action or raise IllegalAction, changing nothing."""
        seat = self.to_act
        if seat is None or action.player != self.players[seat]:
            self._refuse_turn(action)
        kind = action.action
        phase = self.phase
        if phase == BETTING:
            self._bet_action(seat, kind)
        elif phase == DRAW:
            self._expect(kind, _DISCARD_ONLY, "it is the draw: discard cards or stand pat")
            self._discard(seat, action.cards or ())
        else:
            self._expect(kind, _BUY_ONLY, "it is the buying round: buy left, right or blind")
            self._buy(seat, action.source or "")
        self.actions.append(action)

    def _refuse_turn(self, action: Action) -> NoReturn:
        """Why ``action`` is not the turn's (to_act is None exactly when the hand is complete)."""
        if self.complete:
            raise IllegalAction("the hand is complete; no more actions", Refusal.HAND_COMPLETE)
        if action.player not in self.players:
            raise IllegalAction(f"{action.player} is not seated in this hand", Refusal.NOT_IN_HAND)
        assert self.to_act is not None
        to_act = self.players[self.to_act]
        raise IllegalAction(
            f"it is {to_act}'s turn, not {action.player}'s", Refusal.NOT_YOUR_TURN, to_act=to_act
        )

    def _expect(self, kind: str, allowed: tuple[ActionKind, ...], why: str) -> None:
        if kind not in allowed:
            raise IllegalAction(
                f"{kind} is not allowed now: {why}",
                Refusal.WRONG_PHASE,
                phase=self.phase,
                legal=allowed,
            )

    def _bet_action(self, seat: int, kind: str) -> None:
        if kind not in self._legal:
            d = self._bet_decision(seat)
            reason, message = self._refusal(kind, d)
            raise IllegalAction(message, reason, legal=d.legal, to_call=d.to_call)
        if not self.allin:
            self._cash_bet_action(seat, kind)
            return
        bets = self.round_bets
        size = self.bet_sizes[self.bet_round]
        if kind == CALL:
            cost = self._owed_now
        elif kind in _AGGRESSIVE:  # one increment above the full level
            cost = self.full_bet + size - bets[seat]
        else:
            cost = 0
        left = self.stack0[seat] - self.contributed[seat]
        if cost >= left > 0:  # short, or exactly all of it: all-in (the actor has chips)
            cost = left
            self.is_all_in[seat] = True
            self.with_chips -= 1
        self.contributed[seat] += cost
        bets[seat] += cost
        if kind in _AGGRESSIVE:
            level = bets[seat]
            if 2 * (level - self.full_bet) >= size:
                # A full bet or raise (small all-ins that add up count too): it counts
                # toward the cap and reopens the betting.
                self.full_bet = level
                self.bet_count += 1
                self.pending = set(self.in_seats)
            else:  # incomplete all-in: whoever now owes acts again, without a new raise
                flags = self.is_all_in
                self.pending.update(s for s in self.in_seats if bets[s] < level and not flags[s])
            self.current_bet = level
            if self.first_bettor is None and self.bet_round == 0:
                self.first_bettor = seat
        elif kind == FOLD:
            self.folded[seat] = True
            self.with_chips -= 1  # a folding player had chips: all-in players do not act
            self.in_seats = tuple(s for s in self.in_seats if s != seat)
            self.dead.extend(self.holdings[seat])
        self.acted_at[seat] = self.current_bet
        self.pending.discard(seat)
        self._after_turn(seat)

    def _cash_bet_action(self, seat: int, kind: str) -> None:
        """A legal betting action of a cash hand: nobody runs short, every bet or raise
        is a full one (RULES.md §3). The hot path of the bot's tables: kept lean."""
        if kind == CALL:
            cost = self._owed_now
        elif kind in _AGGRESSIVE:  # a raise calls, then adds a bet
            cost = self._owed_now + self.bet_sizes[self.bet_round]
        else:
            cost = 0
        self.contributed[seat] += cost
        self.round_bets[seat] += cost
        if kind in _AGGRESSIVE:
            self.current_bet = self.full_bet = self.round_bets[seat]
            self.bet_count += 1
            self.pending = set(self.in_seats)
            if self.first_bettor is None and self.bet_round == 0:
                self.first_bettor = seat
        elif kind == FOLD:
            self.folded[seat] = True
            self.in_seats = tuple(s for s in self.in_seats if s != seat)
            self.dead.extend(self.holdings[seat])
        self.pending.discard(seat)
        if len(self.in_seats) == 1:
            self._finish_uncontested()
        elif not self.pending:
            self._next_street()
        else:
            self._bet_turn(self._first_pending(seat + 1))

    def _refusal(self, kind: str, d: Decision) -> tuple[Refusal, str]:
        """The refusal's code and its message."""
        legal = ", ".join(d.legal)
        block = self._raise_block(d.seat, d.to_call) if self.allin else None
        if kind in _AGGRESSIVE and block in _BLOCKS and kind not in d.legal:
            return block, f"{kind} is not allowed now: {_BLOCKS[block]}; legal now: {legal}"
        reasons: dict[str, tuple[Refusal, str]] = {
            FOLD: (Refusal.NOTHING_OWED, "you may not fold when nothing is owed"),
            CHECK: (Refusal.OWES, f"you owe {d.to_call} to stay in"),
            CALL: (Refusal.NO_BET, "there is no bet to call"),
            BET: (Refusal.BET_EXISTS, "there is already a bet: call or raise it"),
            RAISE: (Refusal.CAPPED, "the betting is capped (one bet and three raises)")
            if d.raises_left <= 0
            else (Refusal.NO_BET, "there is no bet to raise"),
        }
        code, why = reasons.get(kind, (Refusal.WRONG_PHASE, f"{kind} is not a betting action"))
        return code, f"{kind} is not allowed now: {why}; legal now: {legal}"

    def _discard(self, seat: int, cards: Sequence[Card]) -> None:
        held = self.holdings[seat]
        kept = [c for c in held if c not in cards]
        if len(kept) + len(cards) != len(held):  # a card not held, or named twice
            self._refuse_discard(held, cards)
        refill = self._reshuffle_for(len(cards))  # checked before anything changes
        self.holdings[seat] = kept
        left = len(self.stub) - self.stub_pos
        if refill is None:
            new = self._take_many(len(cards))
            self.dead.extend(cards)
        else:
            new = self._take_many(left)
            self._use_reshuffle(refill)
            new += self._take_many(len(cards) - left)
            self.dead = list(cards)
        self.holdings[seat].extend(new)
        self.drawn[seat].append(len(cards))
        self.queue.pop(0)
        self._after_queue()

    def _refuse_discard(self, held: list[Card], cards: Sequence[Card]) -> NoReturn:
        foreign = [c for c in cards if c not in held]
        if foreign:
            mine = " ".join(format_cards(held))
            raise IllegalAction(
                f"you don't hold {format_card(foreign[0])}; your cards are {mine}",
                Refusal.NOT_HELD,
                card=foreign[0],
                held=tuple(held),
            )
        raise IllegalAction("a card is named twice in the discard", Refusal.NAMED_TWICE)

    def _reshuffle_for(self, need: int) -> list[Card] | None:
        """The next stub when this draw runs the stub out, checked against the dead cards."""
        left = len(self.stub) - self.stub_pos
        if need <= left:
            return None
        if self.reshuffles_used < len(self.reshuffles):
            stub = self.reshuffles[self.reshuffles_used]
            if len(stub) != len(self.dead) or set(stub) != set(self.dead):
                dead = " ".join(format_cards(sorted(self.dead)))
                number = self.reshuffles_used + 1
                raise IllegalAction(
                    f"reshuffle {number} must hold exactly the {len(self.dead)} dead cards: {dead}"
                )
            return stub
        if self.rng is None:
            raise IllegalAction("this draw needs a reshuffled stub that the record does not hold")
        if need - left > len(self.dead):  # before shuffling: a refusal must not use the rng
            raise IllegalAction("not enough dead cards to serve this draw")
        stub = list(self.dead)
        self.rng.shuffle(stub)
        return stub

    def _use_reshuffle(self, stub: list[Card]) -> None:
        if self.reshuffles_used == len(self.reshuffles):
            self.reshuffles.append(stub)
        self.reshuffles_used += 1
        self.stub, self.stub_pos = list(stub), 0

    def _buy(self, seat: int, source: str) -> None:
        if self.is_all_in[seat] and source == BLIND:  # the stub's top card, free (§8.4)
            self.holdings[seat].append(self._take())
            self.queue.pop(0)
            self._after_queue()
            return
        sources = self.buy_sources()
        if source not in sources and self.is_all_in[seat] and source in SLOTS:
            raise IllegalAction(
                "you are all-in: you receive the stub's top card free (buy blind)",
                Refusal.ALL_IN_BUYS_BLIND,
                source=source,
                sources=sources,
            )
        if source not in sources:
            raise IllegalAction(
                f"buy from {', '.join(sources)}, not {str(source)!r}",
                Refusal.BAD_SOURCE,
                source=source,
                sources=sources,
            )
        if source == BLIND:
            card = self._take()
        else:
            slot = SLOTS.index(source)
            offered = self.market[slot]
            assert offered is not None  # the stub never runs out in Abyssinia
            card = offered
            self.market[slot] = self._take()
        self.holdings[seat].append(card)
        if self.allin:
            self._put(seat, self._prices[card])
        else:
            self.contributed[seat] += self._prices[card]
        self.queue.pop(0)
        self._after_queue()

    def _after_queue(self) -> None:
        if self.queue:
            self.to_act = self.queue[0]
        else:
            self._next_street()

    def _after_turn(self, seat: int) -> None:
        if len(self.in_seats) == 1:
            self._finish_uncontested()
        elif not self.pending:
            self._next_street()
        else:
            self._advance_bet(seat + 1)

    def _advance_bet(self, start: int) -> None:
        """Pass the turn to the first pending seat from ``start`` that acts at all; when
        none does, the betting round is over."""
        while self.pending:
            seat = self._first_pending(start)
            if not self.allin:
                self._bet_turn(seat)
                return
            if not self.is_all_in[seat]:
                # A player who owes nothing and may neither bet nor raise does not act.
                owed, can_raise = self._options(seat)
                if owed > 0 or (self.acted_at[seat] is None and can_raise):
                    self.to_act, self._owed_now = seat, owed
                    self._legal = self._legal_from(owed, can_raise)
                    return
            self.pending.discard(seat)
        self._next_street()

    def _bet_turn(self, seat: int) -> None:
        """Pass the betting turn to ``seat`` (of a cash hand) and work out what it may do
        (``_bet_legal``'s answer, without its calls: this runs at every cash turn)."""
        self.to_act = seat
        level = self.current_bet
        owed = self._owed_now = level - self.round_bets[seat]
        if level == 0:
            self._legal = _CHECK_BET
        elif self.bet_count >= MAX_BETS_PER_ROUND:
            self._legal = _CALL_FOLD if owed else _CHECK_ONLY
        else:
            self._legal = _CALL_RAISE_FOLD if owed else _CHECK_RAISE

    def _next_street(self) -> None:
        self.street += 1
        if self.street == len(self.variant.streets):
            self._showdown()
            return
        self.phase = self.variant.streets[self.street]
        if self.phase == BETTING:
            self._begin_betting()
        else:
            self.queue = self._clockwise(self.dealer + 1)
            self.to_act = self.queue[0]  # the street's one legal action holds for the whole queue
            self._legal = _DISCARD_ONLY if self.phase == DRAW else _BUY_ONLY

    def _begin_betting(self) -> None:
        self.bet_round += 1
        self.round_bets = [0] * self.n
        self.current_bet = self.full_bet = self.bet_count = 0
        self.acted_at = [None] * self.n
        if self.allin:  # all-in players take no further betting action
            if self.with_chips < 2 and (self.bet_round or not self.stakes.blinds):
                self._next_street()  # nobody owes a call: the round is not played (§8.3)
                return
            self.pending = {s for s in self.in_seats if not self.is_all_in[s]}
        else:
            self.pending = set(self.in_seats)
        first = self.dealer + 1
        if self.bet_round == 0 and self.stakes.blinds:
            first = self._post_blinds() + 1
        elif self.bet_round == 1 and self.variant.draws == 1 and self.first_bettor is not None:
            first = self.first_bettor  # the first bettor of round 1 opens round 2
        self._advance_bet(first)

    def _post_blinds(self) -> int:
        """Post both blinds as round 1's opening bet; return the big blind's seat.

        A short blind posts what it has and is all-in; the level and full level are the
        full big blind all the same (RULES.md §8.2, §8.3).
        """
        small, big = self.stakes.blinds or (0, 0)
        sb = self.dealer if self.n == 2 else (self.dealer + 1) % self.n
        bb = (sb + 1) % self.n
        for seat, amount in ((sb, small), (bb, big)):
            self.round_bets[seat] = self._put(seat, amount)
            if self.is_all_in[seat]:
                self.pending.discard(seat)
        self.current_bet = self.full_bet = big
        self.bet_count = 1
        return bb

    # ----- showdown and payouts -------------------------------------------

    def _finish_uncontested(self) -> None:
        winner = self.active[0]  # takes every pot (RULES.md §8.5): one pot, all theirs
        self._pay([Award(POT, self.pot, {self.players[winner]: self.pot}, {})])

    def _showdown(self) -> None:
        self.phase, self.to_act, self.showdown = SHOWDOWN, None, True
        awards: list[Award] = []
        order = self._clockwise(self.dealer + 1)  # ties: first winner left of the dealer
        rankings = (_HIGH, _LOW) if self.variant.split else (self.variant.ranking,)
        held = self.holdings
        scores = {r: {s: VALUE[r](held[s]) for s in self.in_seats} for r in rankings}
        for index, (pot, eligible) in enumerate(self._layers()):
            if len(eligible) == 1:  # a bet nobody could call comes back (§8.5)
                awards.append(Award(POT, pot, {self.players[eligible[0]]: pot}, {}, index))
                continue
            if len(eligible) == len(order):
                seats = order
            else:
                chosen = set(eligible)
                seats = [s for s in order if s in chosen]
            if self.variant.split:
                high = pot - pot // 2  # an odd chip of the pot goes to the high half
                by_high, by_low = scores[_HIGH], scores[_LOW]
                awards.append(self._award(HIGH_HALF, _HIGH, high, seats, by_high, index))
                awards.append(self._award(LOW_HALF, _LOW, pot // 2, seats, by_low, index))
            else:
                ranking = self.variant.ranking
                awards.append(self._award(POT, ranking, pot, seats, scores[ranking], index))
        self._pay(awards)

    def _layers(self) -> list[tuple[int, list[int]]]:
        """The pots of RULES.md §8.5 as (amount, eligible seats), the main pot first.

        Contributions are cut at each all-in contribution of a player still in; a layer
        nobody still in may win (only the top one can be) joins the pot below it.
        """
        flags = self.is_all_in
        put = self.contributed
        caps = sorted({put[s] for s in self.in_seats if flags[s]})
        if not caps:
            return [(self.pot, list(self.in_seats))]
        layers: list[tuple[int, list[int]]] = []
        live = list(self.in_seats)  # eligible for the layer being cut
        below = 0
        for cap in [*caps, max(put)]:
            amount = sum((c if c < cap else cap) - below for c in put if c > below)
            if amount:
                if live:
                    layers.append((amount, live))
                else:  # nobody still in may win it: it joins the pot below
                    last, players = layers[-1]
                    layers[-1] = (last + amount, players)
            live = [s for s in live if not flags[s] or put[s] > cap]
            below = cap
        return layers

    def pots(self) -> list[Pot]:
        """The pots, main first, with their eligible players and, once complete, winners."""
        if self.complete and len(self.in_seats) == 1:
            return [Pot(self.pot, (self.players[self.in_seats[0]],), *self._pot_winners(0))]
        out = []
        for index, (amount, eligible) in enumerate(self._layers()):
            names = tuple(self.players[s] for s in eligible)
            won = self._pot_winners(index) if self.complete else ((), (), ())
            out.append(Pot(amount, names, *won))
        return out

    def _pot_winners(self, index: int) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
        """(winners, high, low) of pot ``index``, each in seat order."""
        by_label: dict[AwardLabel, set[str]] = {label: set() for label in AwardLabel}
        for award in self.awards:
            if award.pot == index:
                by_label[award.label].update(award.shares)
        order = self.players
        if self.variant.split:
            high = by_label[HIGH_HALF] | by_label[POT]
            low = by_label[LOW_HALF] | by_label[POT]
            both = high | low
            return (
                tuple(p for p in order if p in both),
                tuple(p for p in order if p in high),
                tuple(p for p in order if p in low),
            )
        return tuple(p for p in order if p in by_label[POT]), (), ()

    def _award(
        self,
        label: AwardLabel,
        ranking: Ranking,
        amount: int,
        seats: list[int],
        scores: dict[int, int],
        index: int,
    ) -> Award:
        """The award of one pot or half among ``seats`` (eligible, clockwise from the
        dealer's left) by their ``scores`` under ``ranking``."""
        best = max([scores[s] for s in seats])
        winners = [s for s in seats if scores[s] == best]
        players = self.players
        if len(winners) == 1:  # the usual case, without the odd-chip arithmetic
            (seat,) = winners
            name = _NAMES.get((ranking, best)) or _hand_name(ranking, best, self.holdings[seat])
            return Award(label, amount, {players[seat]: amount}, {players[seat]: name}, index)
        share, odd = divmod(amount, len(winners))
        shares = {players[s]: share + (1 if i < odd else 0) for i, s in enumerate(winners)}
        names = {players[s]: _hand_name(ranking, scores[s], self.holdings[s]) for s in winners}
        return Award(label, amount, shares, names, index)

    def _pay(self, awards: list[Award]) -> None:
        payouts = [0] * self.n
        for award in awards:
            for player, chips in award.shares.items():
                payouts[self.players.index(player)] += chips
        self.awards, self.payouts = awards, payouts
        self.phase, self.to_act, self.queue, self.pending = COMPLETE, None, [], set()
        self._legal = ()

    # ----- small helpers --------------------------------------------------

    def _clockwise(self, start: int) -> list[int]:
        """Seats still in, clockwise from ``start`` (inclusive)."""
        seats = self.in_seats
        first = bisect_left(seats, start % self.n)  # in_seats is in seat order: rotate it
        return [*seats[first:], *seats[:first]]

    def _first_pending(self, start: int) -> int:
        """The first seat clockwise from ``start`` (inclusive) still to act this round."""
        assert self.pending, "no seat is pending"
        seat = start % self.n
        while seat not in self.pending:
            seat = (seat + 1) % self.n
        return seat

    def _put(self, seat: int, chips: int) -> int:
        """Put ``chips`` in for ``seat`` (in a tournament hand at most its stack, going
        all-in when that empties it); return what went in."""
        if self.allin:
            left = self.chips_left(seat)
            if chips >= left:
                chips = left
                if not self.is_all_in[seat]:
                    self.is_all_in[seat] = True
                    self.with_chips -= 1
        self.contributed[seat] += chips
        return chips

    def _take(self) -> Card:
        card = self.stub[self.stub_pos]
        self.stub_pos += 1
        return card

    def _take_many(self, count: int) -> list[Card]:
        cards = self.stub[self.stub_pos : self.stub_pos + count]
        self.stub_pos += count
        return cards
