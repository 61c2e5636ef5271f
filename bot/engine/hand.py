"""One hand of any of the four tables as an explicit state machine.

A hand starts from its record header (seats, dealer, deck, reshuffles) and
moves only through ``apply(action)``. Every action is checked completely
before anything changes, so a refused action leaves the hand exactly as it was.
"""

from __future__ import annotations

import random
from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NoReturn

from .cards import Card, format_card, format_cards, rank_of
from .rankings import VALUE, describe
from .record import BUY_SOURCES, Action, HandRecord, RecordError, new_header
from .variants import MAX_BETS_PER_ROUND, VARIANTS, Variant, buy_price

SLOTS = ("left", "right")


class IllegalAction(ValueError):
    """An action the rules do not allow now.

    The message (for the replay CLI and logs) says why and what is legal; ``code`` and
    ``params`` say the same as data, for callers that word it themselves.
    """

    def __init__(self, message: str, code: str = "illegal", **params: object) -> None:
        super().__init__(message)
        self.code = code
        self.params = params


@dataclass(frozen=True)
class MarketOffer:
    source: str  # "left", "right" or "blind"
    card: Card | None  # None for the blind (unknown) card
    price: int | None  # None for the blind card: charged after it is turned


@dataclass(frozen=True)
class Decision:
    """What the player to act may do now."""

    player: str
    seat: int
    phase: str  # "bet", "draw" or "buy"
    legal: tuple[str, ...]
    to_call: int  # chips owed to stay in (betting)
    bet_size: int  # the round's fixed bet size (betting)
    raises_left: int
    costs: dict[str, int]  # chips each legal betting action puts in
    discardable: tuple[Card, ...]  # draw: the cards the player may throw
    market: tuple[MarketOffer, ...]  # buy: the two market cards and the blind


@dataclass(frozen=True)
class Award:
    """One pot or half paid out: who won it, with what, and how much each got."""

    label: str  # "pot", "high" or "low"
    amount: int
    shares: dict[str, int]
    hand_names: dict[str, str]  # winners' hand names (empty when uncontested)


# describe() by (ranking, value): equal values are the same hand, so the same name. Naming
# costs more than a whole betting round, and there are only ~7,500 values per ranking.
_NAMES: dict[tuple[str, int], str] = {}


def _hand_name(ranking: str, value: int, cards: list[Card]) -> str:
    name = _NAMES.get((ranking, value))
    if name is None:
        name = _NAMES[ranking, value] = describe(ranking, cards)
    return name


class Hand:
    """The state of one hand; build it with ``Hand.start`` or ``Hand.replay``."""

    def __init__(self, header: HandRecord, rng: random.Random | None = None) -> None:
        variant = VARIANTS[header.variant]
        self.variant: Variant = variant
        self.header = header
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
        self.phase = "deal"
        self.to_act: int | None = None
        self.queue: list[int] = []  # draw / buy order
        self.round_bets = [0] * self.n
        self.current_bet = 0
        self.bet_count = 0
        self.pending: set[int] = set()
        self.first_bettor: int | None = None  # of the first betting round
        # What the player to act may do, worked out once when the turn passes (agents
        # and ``apply`` both read it) and only then, so a refused action leaves it as is.
        self._legal: tuple[str, ...] = ()
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
    ) -> Hand:
        """A new live hand; the header is validated exactly as a record's would be."""
        return cls(new_header(variant, seats, dealer, deck), rng)

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
        self.contributed = [self.variant.ante] * self.n
        if self.variant.streets[0] != "buy":
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

    def legal_actions(self) -> tuple[str, ...]:
        """The action names the player to act may use now (``Decision.legal``); () when complete."""
        return self._legal

    def buy_sources(self) -> tuple[str, ...]:
        """Buying round: where the player to act may buy from (``Decision.market`` sources)."""
        if None not in self.market:
            return BUY_SOURCES  # always, in practice: the stub never runs out in Abyssinia
        market = zip(SLOTS, self.market, strict=True)
        return (*(slot for slot, card in market if card is not None), "blind")

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
        if self.phase == "draw":
            hand = tuple(self.holdings[seat])
            return Decision(player, seat, "draw", ("discard",), 0, 0, 0, {}, hand, ())
        if self.phase == "buy":
            return Decision(player, seat, "buy", ("buy",), 0, 0, 0, {}, (), self._offers())
        return self._bet_decision(seat)

    def _bet_decision(self, seat: int) -> Decision:
        size = self.variant.bet_sizes[self.bet_round]
        owed = self.current_bet - self.round_bets[seat]
        raises_left = MAX_BETS_PER_ROUND - self.bet_count
        legal = self._bet_legal(seat)
        costs = {kind: self._bet_cost(seat, kind) for kind in legal}
        player = self.players[seat]
        return Decision(player, seat, "bet", legal, owed, size, raises_left, costs, (), ())

    def _bet_legal(self, seat: int) -> tuple[str, ...]:
        """The betting actions legal for ``seat`` now, in display order (RULES.md §3)."""
        if self.current_bet == 0:
            return ("check", "bet")
        can_raise = self.bet_count < MAX_BETS_PER_ROUND
        if self.round_bets[seat] == self.current_bet:  # nothing owed: the big blind's option
            return ("check", "raise") if can_raise else ("check",)
        return ("call", "raise", "fold") if can_raise else ("call", "fold")

    def _bet_cost(self, seat: int, kind: str) -> int:
        """The chips a legal betting action of ``seat`` puts in now."""
        if kind == "check" or kind == "fold":
            return 0
        owed = self.current_bet - self.round_bets[seat]
        if kind == "call":
            return owed
        size = self.variant.bet_sizes[self.bet_round]
        return size if kind == "bet" else owed + size  # a raise calls, then adds a bet

    def _offers(self) -> tuple[MarketOffer, ...]:
        offers = [
            MarketOffer(slot, card, buy_price(rank_of(card)))
            for slot, card in zip(SLOTS, self.market, strict=True)
            if card is not None
        ]
        return (*offers, MarketOffer("blind", None, None))

    def default_action(self) -> Action | None:
        """A timed-out player checks or folds, stands pat, or buys the cheaper market card."""
        d = self.decision()
        if d is None:
            return None
        if d.phase == "draw":
            return Action(d.player, "discard", cards=())
        if d.phase == "buy":
            priced = [o for o in d.market if o.price is not None]
            cheapest = min(priced, key=lambda o: o.price or 0)  # min keeps the left on a tie
            return Action(d.player, "buy", source=cheapest.source)
        return Action(d.player, "check" if d.to_call == 0 else "fold")

    # ----- transitions --------------------------------------------------

    def apply(self, action: Action) -> None:
        """Apply one action or raise IllegalAction, changing nothing."""
        seat = self.to_act
        if seat is None or action.player != self.players[seat]:
            self._refuse_turn(action)
        kind = action.action
        phase = self.phase
        if phase == "bet":
            self._bet_action(seat, kind)
        elif phase == "draw":
            self._expect(kind, ("discard",), "it is the draw: discard cards or stand pat")
            self._discard(seat, action.cards or ())
        else:
            self._expect(kind, ("buy",), "it is the buying round: buy left, right or blind")
            self._buy(seat, action.source or "")
        self.actions.append(action)

    def _refuse_turn(self, action: Action) -> NoReturn:
        """Why ``action`` is not the turn's (to_act is None exactly when the hand is complete)."""
        if self.complete:
            raise IllegalAction("the hand is complete; no more actions", "hand_complete")
        if action.player not in self.players:
            raise IllegalAction(f"{action.player} is not seated in this hand", "not_in_hand")
        assert self.to_act is not None
        to_act = self.players[self.to_act]
        raise IllegalAction(
            f"it is {to_act}'s turn, not {action.player}'s", "not_your_turn", to_act=to_act
        )

    def _expect(self, kind: str, allowed: tuple[str, ...], why: str) -> None:
        if kind not in allowed:
            raise IllegalAction(
                f"{kind} is not allowed now: {why}", "wrong_phase", phase=self.phase, legal=allowed
            )

    def _bet_action(self, seat: int, kind: str) -> None:
        if kind not in self._legal:
            d = self._bet_decision(seat)
            reason, message = self._refusal(kind, d)
            raise IllegalAction(message, reason, legal=d.legal, to_call=d.to_call)
        cost = self._bet_cost(seat, kind)
        self.contributed[seat] += cost
        self.round_bets[seat] += cost
        if kind == "bet" or kind == "raise":
            self.current_bet = self.round_bets[seat]
            self.bet_count += 1
            self.pending = set(self.in_seats)
            if self.first_bettor is None and self.bet_round == 0:
                self.first_bettor = seat
        elif kind == "fold":
            self.folded[seat] = True
            self.in_seats = tuple(s for s in self.in_seats if s != seat)
            self.dead.extend(self.holdings[seat])
        self.pending.discard(seat)
        self._after_turn(seat)

    def _refusal(self, kind: str, d: Decision) -> tuple[str, str]:
        """The refusal's code and its message."""
        legal = ", ".join(d.legal)
        reasons = {
            "fold": ("nothing_owed", "you may not fold when nothing is owed"),
            "check": ("owes", f"you owe {d.to_call} to stay in"),
            "call": ("no_bet", "there is no bet to call"),
            "bet": ("bet_exists", "there is already a bet: call or raise it"),
            "raise": ("capped", "the betting is capped (one bet and three raises)")
            if d.raises_left <= 0
            else ("no_bet", "there is no bet to raise"),
        }
        code, why = reasons.get(kind, ("wrong_phase", f"{kind} is not a betting action"))
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
                "not_held",
                card=foreign[0],
                held=tuple(held),
            )
        raise IllegalAction("a card is named twice in the discard", "named_twice")

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
        sources = self.buy_sources()
        if source not in sources:
            raise IllegalAction(
                f"buy from {', '.join(sources)}, not {source!r}",
                "bad_source",
                source=source,
                sources=sources,
            )
        if source == "blind":
            card = self._take()
        else:
            slot = SLOTS.index(source)
            offered = self.market[slot]
            assert offered is not None  # the stub never runs out in Abyssinia
            card = offered
            self.market[slot] = self._take()
        self.holdings[seat].append(card)
        self._put(seat, buy_price(rank_of(card)))
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
            self._bet_turn(self._first_pending(seat + 1))

    def _bet_turn(self, seat: int) -> None:
        """Pass the betting turn to ``seat`` and work out what it may do."""
        self.to_act = seat
        self._legal = self._bet_legal(seat)

    def _next_street(self) -> None:
        self.street += 1
        if self.street == len(self.variant.streets):
            self._showdown()
            return
        self.phase = self.variant.streets[self.street]
        if self.phase == "bet":
            self._begin_betting()
        else:
            self.queue = self._clockwise(self.dealer + 1)
            self.to_act = self.queue[0]  # the street's one legal action holds for the whole queue
            self._legal = ("discard",) if self.phase == "draw" else ("buy",)

    def _begin_betting(self) -> None:
        self.bet_round += 1
        self.round_bets = [0] * self.n
        self.current_bet = self.bet_count = 0
        self.pending = set(self.in_seats)
        first = self.dealer + 1
        if self.bet_round == 0 and self.variant.blinds:
            first = self._post_blinds() + 1
        elif self.bet_round == 1 and self.variant.draws == 1 and self.first_bettor is not None:
            first = self.first_bettor  # the first bettor of round 1 opens round 2
        self._bet_turn(self._first_pending(first))

    def _post_blinds(self) -> int:
        """Post both blinds as round 1's opening bet; return the big blind's seat."""
        small, big = self.variant.blinds or (0, 0)
        sb = self.dealer if self.n == 2 else (self.dealer + 1) % self.n
        bb = (sb + 1) % self.n
        for seat, amount in ((sb, small), (bb, big)):
            self._put(seat, amount)
            self.round_bets[seat] = amount
        self.current_bet, self.bet_count = big, 1
        return bb

    # ----- showdown and payouts -------------------------------------------

    def _finish_uncontested(self) -> None:
        winner = self.active[0]
        self._pay([Award("pot", self.pot, {self.players[winner]: self.pot}, {})])

    def _showdown(self) -> None:
        self.phase, self.to_act, self.showdown = "showdown", None, True
        pot = self.pot
        if self.variant.split:
            high = pot - pot // 2  # an odd chip of the pot goes to the high half
            awards = [self._award("high", "high", high), self._award("low", "a5", pot // 2)]
        else:
            awards = [self._award("pot", self.variant.ranking, pot)]
        self._pay(awards)

    def _award(self, label: str, ranking: str, amount: int) -> Award:
        value = VALUE[ranking]
        scores = {s: value(self.holdings[s]) for s in self.active}
        best = max(scores.values())
        winners = [s for s in self._clockwise(self.dealer + 1) if scores[s] == best]
        share, odd = divmod(amount, len(winners))
        shares = {self.players[s]: share + (1 if i < odd else 0) for i, s in enumerate(winners)}
        names = {self.players[s]: _hand_name(ranking, scores[s], self.holdings[s]) for s in winners}
        return Award(label, amount, shares, names)

    def _pay(self, awards: list[Award]) -> None:
        payouts = [0] * self.n
        for award in awards:
            for player, chips in award.shares.items():
                payouts[self.players.index(player)] += chips
        self.awards, self.payouts = awards, payouts
        self.phase, self.to_act, self.queue, self.pending = "complete", None, [], set()
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

    def _put(self, seat: int, chips: int) -> None:
        self.contributed[seat] += chips

    def _take(self) -> Card:
        card = self.stub[self.stub_pos]
        self.stub_pos += 1
        return card

    def _take_many(self, count: int) -> list[Card]:
        cards = self.stub[self.stub_pos : self.stub_pos + count]
        self.stub_pos += count
        return cards
