"""What one player may see of a hand, and what everyone may see.

The table manager and the Discord layer render only these views, so a hidden
card cannot reach a public message by accident: ``public_view`` holds no
hidden card at all, and ``seat_view`` adds only that seat's own cards.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .cards import Card
from .hand import Award, Decision, Hand, MarketOffer, Pot
from .record import ActionKind
from .stakes import Stakes
from .variants import Phase


@dataclass(frozen=True)
class SeatInfo:
    player: str
    stack: int  # header stack plus net so far
    in_pot: int  # everything this player has put in this hand
    bet: int  # put in during the current betting round
    folded: bool
    card_count: int
    drawn: tuple[int, ...]  # how many cards they took at each draw
    open_cards: tuple[Card, ...]  # Abyssinia's bought cards, face up for all
    dealer: bool
    all_in: bool = False  # a tournament hand's player with nothing left behind (RULES.md §8)


@dataclass(frozen=True)
class PublicView:
    variant: str
    phase: Phase  # BET, DRAW, BUY or COMPLETE
    round: int  # which round of this phase it is (1-based): betting round 2 of 4 -> 2
    rounds: int  # how many rounds of this phase the game has: betting round 2 of 4 -> 4
    pot: int
    to_act: str | None
    to_call: int
    bet_size: int
    raises_left: int
    legal: tuple[ActionKind, ...]
    seats: tuple[SeatInfo, ...]
    market: tuple[MarketOffer, ...]
    stub_left: int
    complete: bool
    shown: dict[str, tuple[Card, ...]] = field(default_factory=dict)  # revealed at showdown
    awards: tuple[Award, ...] = ()
    net: dict[str, int] = field(default_factory=dict)
    # RULES.md §8: who is all-in (seat order), the pots (main first; a cash hand has one)
    # with their eligible players and, once complete, winners; the hand's stakes.
    all_in: tuple[str, ...] = ()
    pots: tuple[Pot, ...] = ()
    stakes: Stakes | None = None
    tournament: bool = False  # the hand's record says "allin": true
    costs: dict[str, int] = field(default_factory=dict)  # chips each legal bet action puts in


@dataclass(frozen=True)
class SeatView:
    player: str
    cards: tuple[Card, ...]  # this player's own cards, never anyone else's
    public: PublicView
    decision: Decision | None  # set only when it is this player's turn


def _round(hand: Hand) -> tuple[int, int]:
    """Which round of its phase the hand is in, and of how many (0, 0 once complete)."""
    if hand.complete:
        return 0, 0
    done = hand.variant.streets[: hand.street + 1]
    return done.count(hand.phase), hand.variant.streets.count(hand.phase)


def public_view(hand: Hand) -> PublicView:
    d = hand.decision()
    stacks = hand.stacks()
    betting = Phase.BET  # read once, not once a seat
    seats = tuple(
        SeatInfo(
            player=p,
            stack=stacks[p],
            in_pot=hand.contributed[s],
            bet=0 if hand.phase != betting else hand.round_bets[s],
            folded=hand.folded[s],
            card_count=len(hand.holdings[s]),
            drawn=tuple(hand.drawn[s]),
            open_cards=tuple(hand.holdings[s]) if hand.variant.split else (),
            dealer=s == hand.dealer,
            all_in=hand.is_all_in[s],
        )
        for s, p in enumerate(hand.players)
    )
    number, total = _round(hand)
    shown = {hand.players[s]: tuple(hand.holdings[s]) for s in hand.active} if hand.showdown else {}
    return PublicView(
        variant=hand.variant.id,
        phase=Phase.COMPLETE if hand.complete else hand.phase,
        round=number,
        rounds=total,
        pot=hand.pot,
        to_act=d.player if d else None,
        to_call=d.to_call if d else 0,
        bet_size=d.bet_size if d else 0,
        raises_left=d.raises_left if d else 0,
        legal=d.legal if d else (),
        seats=seats,
        market=hand._offers() if hand.variant.split and not hand.complete else (),
        stub_left=len(hand.stub) - hand.stub_pos,
        complete=hand.complete,
        shown=shown,
        awards=tuple(hand.awards),
        net=hand.net() if hand.complete else {},
        all_in=hand.all_in,
        pots=tuple(hand.pots()),
        stakes=hand.stakes,
        tournament=hand.allin,
        costs=dict(d.costs) if d else {},
    )


def seat_view(hand: Hand, player: str, public: PublicView | None = None) -> SeatView:
    """One player's view; ``public`` may pass the hand's public view if already built."""
    seat = hand.seat_of(player)
    cards = tuple(hand.holdings[seat])
    d = hand.decision()
    public = public or public_view(hand)
    return SeatView(player, cards, public, d if d and d.seat == seat else None)
