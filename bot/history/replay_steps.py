"""A stored hand as the steps one viewer saw: the deal, each action, showdown, result.

Each step holds the engine's ``public_view`` after that moment and, for a viewer who
was dealt in, that viewer's own cards from ``seat_view``. Nothing else of the record
(the deck order, the stub, others' hidden or thrown cards) reaches a step.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import StrEnum

from bot.engine import ActionKind, Hand, HandRecord, PublicView, public_view, seat_view
from bot.engine.cards import Card
from bot.engine.variants import Phase


class StepKind(StrEnum):
    """What moment of the hand a step is."""

    DEAL = "deal"
    ACTION = "action"
    SHOWDOWN = "showdown"
    RESULT = "result"


@dataclass(frozen=True)
class Step:
    kind: StepKind
    public: PublicView  # the table as everyone saw it after this step
    cards: tuple[Card, ...] = ()  # the viewer's own cards then (none for a spectator)
    actor: str | None = None  # action steps: who acted
    action: str | None = None  # an ActionKind
    amount: int = 0  # chips the action put in (a bet, a call, a purchase)
    thrown: int = 0  # discard: how many cards (public)
    own_thrown: tuple[Card, ...] = ()  # discard by the viewer: the cards they threw
    source: str | None = None  # buy: a BuySource
    bought: Card | None = None  # buy: the card, face up for everyone
    round: int = 0  # which round of its phase the action was in (1-based)
    phase: str = ""  # the Phase the action was in: BET, DRAW or BUY
    to_call: int = 0  # bet: what the actor owed before acting
    all_in: bool = False  # the action left the actor all-in (a tournament hand, RULES.md §8)
    shown: dict[str, tuple[Card, ...]] = field(default_factory=dict)  # public hands now


def replay_steps(record: HandRecord, viewer: str | None = None) -> list[Step]:
    """The hand as ``viewer`` (a seat's player key, or None: someone not dealt in) saw it.

    A viewer who was not dealt into the hand gets the spectator's steps."""
    hand = Hand(replace(record, actions=[]))  # the header, stakes and allin included
    me = viewer if viewer in hand.players else None

    def own() -> tuple[Card, ...]:
        return seat_view(hand, me).cards if me is not None else ()

    steps = [Step(StepKind.DEAL, public_view(hand), own())]
    for action in record.actions:
        before = public_view(hand)
        seat = hand.seat_of(action.player)
        paid = hand.contributed[seat]
        decision = hand.decision()
        owed = decision.to_call if decision is not None and decision.phase == Phase.BET else 0
        was_all_in = hand.is_all_in[seat]
        hand.apply(action)
        after = public_view(hand)
        bought = hand.holdings[seat][-1] if action.action == ActionKind.BUY else None
        thrown = action.cards or ()
        steps.append(
            Step(
                StepKind.ACTION,
                after,
                own(),
                actor=action.player,
                action=action.action,
                amount=hand.contributed[seat] - paid,
                thrown=len(thrown) if action.action == ActionKind.DISCARD else 0,
                own_thrown=tuple(thrown) if action.player == me else (),
                source=action.source,
                bought=bought,
                round=before.round,
                phase=before.phase,
                to_call=owed,
                all_in=hand.is_all_in[seat] and not was_all_in,
                shown=dict(after.shown),
            )
        )
    if hand.complete:
        final = public_view(hand)
        if hand.showdown:
            steps.append(Step(StepKind.SHOWDOWN, final, own(), shown=dict(final.shown)))
        steps.append(Step(StepKind.RESULT, final, own(), shown=dict(final.shown)))
    return steps
