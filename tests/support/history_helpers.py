"""What a viewer saw of a hand at the table, and which cards a replay step or a text holds:
the oracle and the probes of the history privacy tests."""

from __future__ import annotations

import dataclasses
import re

from bot.engine import Hand, public_view
from bot.engine.cards import FULL_DECK, format_card
from bot.engine.record import HandRecord
from bot.history.rows import StoredHand


def seen(record: HandRecord, viewer: str | None) -> set[int]:
    """Every card ``viewer`` (None: someone not dealt in) saw at the table: their own (dealt,
    drawn, thrown), everything face up (Abyssinia), hands shown at the showdown."""
    hand = Hand(dataclasses.replace(record, actions=[]))
    out: set[int] = set()
    for action in [None, *record.actions]:
        if action is not None:
            if action.player == viewer and action.cards:
                out |= set(action.cards)
            hand.apply(action)
        if viewer in hand.players:
            out |= set(hand.holdings[hand.seat_of(viewer)])
        view = public_view(hand)
        out |= {c for s in view.seats for c in s.open_cards}
        out |= {o.card for o in view.market if o.card is not None}
        out |= {c for cards in view.shown.values() for c in cards}
    return out


def stored(hand: Hand, hand_id: int = 7, finished: bool = True) -> StoredHand:
    record = hand.record()
    names = {p: f"Name{p}" for p in hand.players}
    return StoredHand(
        hand_id, 1, 2, record.variant, 10.0, 20.0 if finished else None, record, names
    )


def step_cards(step) -> set[int]:
    """Every card a step holds, wherever it is."""
    out = set(step.cards) | set(step.own_thrown) | {c for c in step.shown.values() for c in c}
    out |= {step.bought} if step.bought is not None else set()
    out |= {c for s in step.public.seats for c in s.open_cards}
    out |= {o.card for o in step.public.market if o.card is not None}
    out |= {c for cards in step.public.shown.values() for c in cards}
    return out


def card_words(text: str) -> set[int]:
    return {c for c in FULL_DECK if re.search(rf"(?<!\w){format_card(c)}(?!\w)", text)}
