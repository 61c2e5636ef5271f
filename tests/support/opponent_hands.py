"""Heads-up hands set up for asking a computer player what it does at one decision."""

from __future__ import annotations

from bot.engine import VARIANTS, Action, Hand
from bot.engine.cards import parse_cards
from tests.support.engine_helpers import deck_for


def heads_up(variant: str, mine: str, theirs: str, then: str = "") -> Hand:
    """Heads-up hand: ``me`` (seat 0, first to act) holds ``mine``; for Abyssinia
    ``then`` starts the stub (the market's two cards first)."""
    if VARIANTS[variant].split:
        deck = [*parse_cards(then)]
        deck += [c for c in parse_cards(" ".join(deck_for([], ""))) if c not in deck]
    else:
        deck = parse_cards(" ".join(deck_for([mine, theirs], then)))
    # Dealer is seat 1, so seat 0 is dealt first and acts first (heads-up triple draw:
    # the dealer posts the small blind and acts first; seat 0 still draws first).
    return Hand.start(variant, [("me", 100), ("you", 100)], 1, deck)


def until_my(hand: Hand, phase: str, their_bet: str = "call") -> None:
    """Let the other player check/call (or ``their_bet``) and stand pat until my turn in
    ``phase``; my own betting turns check or call."""
    while not (hand.players[hand.to_act] == "me" and hand.phase == phase):
        d = hand.decision()
        assert d is not None
        if d.phase == "draw":
            hand.apply(Action(d.player, "discard", cards=()))
        elif d.player == "you" and their_bet in d.legal:
            hand.apply(Action(d.player, their_bet))
        else:
            hand.apply(Action(d.player, "check" if "check" in d.legal else "call"))
