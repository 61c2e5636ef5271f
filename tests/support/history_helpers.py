"""What a viewer saw of a hand at the table: the oracle of the history privacy tests."""

from __future__ import annotations

import dataclasses

from bot.engine import Hand, public_view
from bot.engine.record import HandRecord


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
