"""One player's hands as hand-history text in the style PokerStars writes.

English keywords on purpose: the tools players feed these files to parse PokerStars'
English. "Dealt to NAME [cards]" names the exporting player's cards only; others' cards
appear only where the table showed them (a showdown, Abyssinia's bought cards).
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator

from bot.engine import VARIANTS
from bot.engine.cards import format_cards

from .rows import StoredHand
from .steps import Step, replay_steps

ORDINAL = ("FIRST", "SECOND", "THIRD", "FOURTH", "FIFTH")


def stamp(when: float) -> str:
    return time.strftime("%Y/%m/%d %H:%M:%S UTC", time.gmtime(when))


def cards(items: Iterable[int]) -> str:
    return "[" + " ".join(format_cards(items)) + "]"


def limits(variant_id: str) -> str:
    v = VARIANTS[variant_id]
    sizes = sorted(set(v.bet_sizes))
    text = "/".join(str(s) for s in (sizes if len(sizes) > 1 else sizes * 2))
    return f"{text} Fixed Limit" + (f", ante {v.ante}" if v.ante else "")


def hand_text(stored: StoredHand, viewer: str) -> str:
    """The hand as ``viewer`` (their seat's player key) saw it, PokerStars-style."""
    return "\n".join(_lines(stored, viewer)) + "\n"


def hands_text(hands: Iterable[StoredHand], viewer: str) -> Iterator[str]:
    """Each hand's text followed by a blank line, oldest first as given (streamable)."""
    for stored in hands:
        yield hand_text(stored, viewer) + "\n\n"


def _lines(stored: StoredHand, viewer: str) -> Iterator[str]:
    record, v = stored.record, VARIANTS[stored.variant]
    name = stored.name
    when = stored.completed_at or stored.started_at
    yield f"PokerBot Hand #{stored.hand_id}: {v.name} ({limits(v.id)}) - {stamp(when)}"
    notes = [n for n, on in (("practice", stored.practice), ("cancelled", stored.cancelled)) if on]
    yield (
        f"Table '{stored.channel_id}' {v.max_seats}-max Seat #{record.dealer + 1} is the button"
        + (f" ({', '.join(notes)})" if notes else "")
    )
    for i, seat in enumerate(record.seats, 1):
        yield f"Seat {i}: {name(seat.player)} ({seat.stack} in chips)"
    steps = replay_steps(record, viewer)
    deal = steps[0]
    players = [s.player for s in record.seats]
    if v.ante:
        for p in players:
            yield f"{name(p)}: posts the ante {v.ante}"
    if v.blinds:
        posted = {s.player: s.in_pot for s in deal.public.seats if s.in_pot}
        small, big = sorted(posted, key=posted.__getitem__)
        yield f"{name(small)}: posts small blind {posted[small]}"
        yield f"{name(big)}: posts big blind {posted[big]}"
    if v.split:
        yield "*** BUYING ROUND 1 ***"
    else:
        yield "*** DEALING HANDS ***"
        if deal.cards:
            yield f"Dealt to {name(viewer)} {cards(deal.cards)}"
    phase = (v.streets[0], 1)
    folded_on: dict[str, str] = {}
    for step in steps[1:]:
        if step.kind != "action":
            continue
        assert step.actor is not None
        if (step.phase, step.round) != phase:
            phase = (step.phase, step.round)
            if step.phase == "draw":
                yield f"*** {ORDINAL[step.round - 1]} DRAW ***"
            elif step.phase == "buy":
                yield f"*** BUYING ROUND {step.round} ***"
        who = name(step.actor)
        yield from _action(step, who, viewer)
        if step.action == "fold":
            folded_on[step.actor] = _street(step)
    final = steps[-1].public
    if not final.complete:
        return
    if final.shown:
        yield "*** SHOW DOWN ***"
        for p, held in final.shown.items():
            yield f"{name(p)}: shows {cards(held)}"
    for award in final.awards:
        pot = {"pot": "pot", "high": "high pot", "low": "low pot"}[award.label]
        for p, chips in award.shares.items():
            named = f" with {award.hand_names[p]}" if p in award.hand_names else ""
            yield f"{name(p)} collected {chips} from {pot}{named}"
    yield "*** SUMMARY ***"
    yield f"Total pot {final.pot}"
    won: dict[str, int] = {}
    for award in final.awards:
        for p, chips in award.shares.items():
            won[p] = won.get(p, 0) + chips
    for i, seat in enumerate(record.seats, 1):
        p = seat.player
        button = " (button)" if i - 1 == record.dealer else ""
        if p in folded_on:
            result = f"folded {folded_on[p]}"
        elif p in final.shown:
            result = f"showed {cards(final.shown[p])} and " + (
                f"won ({won[p]})" if p in won else "lost"
            )
        else:
            result = f"collected ({won.get(p, 0)})"
        yield f"Seat {i}: {name(p)}{button} {result}, net {final.net.get(p, 0):+d}"


def _street(step: Step) -> str:
    if step.phase == "bet":
        return f"in betting round {step.round}"
    return f"in {step.phase} round {step.round}"


def _action(step: Step, who: str, viewer: str) -> Iterator[str]:
    action = step.action
    if action == "check":
        yield f"{who}: checks"
    elif action == "bet":
        yield f"{who}: bets {step.amount}"
    elif action == "call":
        yield f"{who}: calls {step.amount}"
    elif action == "raise":
        seat = next(s for s in step.public.seats if s.player == step.actor)
        size = VARIANTS[step.public.variant].bet_sizes[step.round - 1]
        yield f"{who}: raises {size} to {seat.bet}"
    elif action == "fold":
        yield f"{who}: folds"
    elif action == "discard":
        if step.thrown == 0:
            yield f"{who}: stands pat"
        else:
            plural = "card" if step.thrown == 1 else "cards"
            mine = f" {cards(step.own_thrown)}" if step.own_thrown else ""
            yield f"{who}: discards {step.thrown} {plural}{mine}"
        if step.actor == viewer:
            yield f"Dealt to {who} {cards(step.cards)}"
    elif action == "buy":
        assert step.bought is not None
        source = "blind" if step.source == "blind" else f"from the {step.source}"
        yield f"{who}: buys {cards([step.bought])} {source} for {step.amount}"
